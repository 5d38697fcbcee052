/// <reference types="node" preserve="true" />
/**
 * One logged-in connection to an Iggy server: a socket, a frame splitter and a client session
 * state machine from `@agdx/iggy-protocol`. It matches replies to calls in order (both
 * generations answer a connection's requests in the order they were sent), pipelines classic
 * requests, keeps one VSR request in flight (the VSR session numbering allows no more), sends
 * heartbeat Pings on idle connections, bounds every call by a timeout, and reconnects with a
 * bounded back-off, logging in again and running the owner's restore hooks (group re-joins)
 * before queued calls go out.
 */

import net from 'node:net';
import tls from 'node:tls';
import { CancelledError, ClosedError, TimeoutError, TransportFailureError, watchAbort } from '@agdx/transport';
import type { TransportError } from '@agdx/transport';
import {
  ClassicClientSession,
  ClassicResponseSplitter,
  CommandCode,
  EvictionReason,
  IggyError,
  IggyEvictionError,
  VsrClientSession,
  VsrFrameSplitter,
  decodeClusterMetadata,
  encodeGetClusterMetadataRequest,
} from '@agdx/iggy-protocol';
import type { ClusterMetadata, FrameSplitter } from '@agdx/iggy-protocol';
import { ClusterDirectory } from './cluster-directory.js';
import type { Endpoint, Settlement } from './cluster-directory.js';
import { toTransportError } from './error-mapping.js';
import { OutcomeUnknownError, isOutcomeUnknown } from './outcome-unknown.js';
import type { ResolvedIggyOptions } from './options.js';

/** Options of one {@link IggyConnection.request}. */
export interface RequestOptions {
  /** Aborting rejects the call with `CancelledError`. */
  readonly signal?: AbortSignal | undefined;
  /** Overrides the connection's default request timeout. */
  readonly timeoutMs?: number | undefined;
  /**
   * The call changes nothing on the server, so it may be written again after a lost connection
   * (reads). Mutations are never replayed: they fail with a `transport` error instead.
   */
  readonly idempotent?: boolean | undefined;
  /**
   * The bytes before `body` in its buffer are free for the request header (VSR 256, classic 8),
   * so the frame is built around the body instead of copying it.
   */
  readonly headerInPlace?: boolean | undefined;
  /**
   * Called once the request no longer occupies the connection: answered, failed, or dropped
   * unwritten. For an aborted call that was written this is later than its rejection: the
   * request stays on the wire until its reply or a reset (see {@link AppendCoalescer}).
   */
  readonly onRelease?: (() => void) | undefined;
}

interface Call {
  readonly code: number;
  readonly body: Uint8Array;
  readonly idempotent: boolean;
  /** See `RequestOptions.headerInPlace`. */
  readonly headerInPlace: boolean;
  /** The call's time limit, ms. */
  readonly timeoutMs: number;
  /** Restore-hook and heartbeat calls may go out before the connection is `ready`. */
  readonly internal: boolean;
  readonly resolve: (payload: Uint8Array) => void;
  readonly reject: (error: TransportError) => void;
  settled: boolean;
  written: boolean;
  retried: boolean;
  /** The node refused it unapplied as not the primary (58): it is sent again after failover. */
  notAccepted: boolean;
  /** How many times a node refused it with 58; bounded by {@link MAX_NOT_ACCEPTED}. */
  refusals: number;
  /** A transient status (57/58) armed a resend of its frame that has not gone out yet. */
  resendArmed: boolean;
  /** The session's record of the written request, to match its reply. */
  pending: unknown;
  /** `RequestOptions.onRelease`, cleared once called. */
  release: (() => void) | undefined;
  cleanup: () => void;
}

type State = 'connecting' | 'restoring' | 'ready' | 'down' | 'closed';

type Session = VsrClientSession | ClassicClientSession;

/** Eviction reasons after which logging in again cannot help. */
const FATAL_EVICTIONS: ReadonlySet<number> = new Set([
  EvictionReason.InvalidCredentials,
  EvictionReason.InvalidToken,
  EvictionReason.UserInactive,
  EvictionReason.IncompatibleProtocol,
  EvictionReason.MalformedLogin,
]);
/**
 * Classic login statuses after which logging in again cannot help. Iggy 0.8 answers an unknown
 * or revoked token with 20 (ResourceNotFound) and an expired one with 54.
 */
const FATAL_LOGIN_CODES: ReadonlySet<number> = new Set([20, 41, 42, 43, 44, 47, 53, 54]);
/**
 * Bytes a classic connection leaves in its socket's buffer in this process before it stops
 * writing pipelined requests until the socket drains. The kernel's buffers take what they can
 * first, so this is only reached when the server reads slower than calls arrive (or not at all):
 * calls beyond it wait in the queue unwritten, bounded by their timeout, and a reset then fails
 * them cleanly instead of with an unknown outcome. VSR keeps one request in flight anyway.
 */
const WRITE_BUFFER_LIMIT = 4 * 1024 * 1024;
/** How long a VSR transient status (57/58) waits before the identical bytes go out again. */
const TRANSIENT_RESEND_MS = 50;
/** Iggy's TransientNotAccepted: a node of a cluster refused because it is not the primary. */
const TRANSIENT_NOT_ACCEPTED = 58;
/** The shortest pause between passes over a cluster's addresses, so a search never spins. */
const MIN_CLUSTER_PAUSE_MS = 10;
/**
 * How many times one call may be refused with 58 before it fails. A view change costs one or two
 * refusals; a node that keeps refusing while its roster names it the leader (a stuck or hostile
 * node) would otherwise make the client reconnect and resend until the call's timeout.
 */
const MAX_NOT_ACCEPTED = 6;
/**
 * The largest cluster roster accepted, in nodes and in reply bytes (checked before decoding).
 * Iggy clusters have a handful of nodes; a roster of thousands (up to a frame's 64 MiB) would
 * cost memory on every login and a dial per entry on every failover pass.
 */
const MAX_ROSTER_NODES = 64;
const MAX_ROSTER_BYTES = 256 * 1024;
/** Leader redirects one connect attempt follows, as the official Node SDK. */
const MAX_LEADER_REDIRECTS = 3;

/** The handshake step waiting for its reply: a payload, a server refusal, or a broken stream. */
interface Handshake {
  readonly resolve: (payload: Uint8Array) => void;
  readonly refuse: (error: IggyError) => void;
  readonly reject: (error: unknown) => void;
}

function sameEndpoint(a: Endpoint, b: Endpoint): boolean {
  return a.port === b.port && a.host.toLowerCase() === b.host.toLowerCase();
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref?.());
}

/** Tells the call's owner that the connection is done with its request (once). */
function released(call: Call): void {
  const release = call.release;
  call.release = undefined;
  release?.();
}

function isFatalLoginFailure(error: unknown): boolean {
  if (error instanceof IggyEvictionError) return FATAL_EVICTIONS.has(error.reason);
  return error instanceof IggyError && FATAL_LOGIN_CODES.has(error.code);
}

/** A hook run after every successful re-login, before queued calls are written. */
export type RestoreHook = () => Promise<void>;

/** One connection with its own session; see the module comment. */
export class IggyConnection {
  readonly #options: ResolvedIggyOptions;
  #state: State = 'connecting';
  #socket: net.Socket | undefined;
  #session: Session | undefined;
  #splitter: FrameSplitter | undefined;
  /** Calls not yet written, in order. */
  readonly #queue: Call[] = [];
  /** Written calls waiting for their reply, in order; parallel to the session's in-flight list. */
  readonly #inFlight: Call[] = [];
  /** The handshake step (login, then the cluster metadata read) waiting for its reply. */
  #login: Handshake | undefined;
  /** Seeds, roster and leader, shared with the transport's other connections. */
  readonly #directory: ClusterDirectory;
  /** The address of the current (or last) socket. */
  #endpoint: Endpoint | undefined;
  #reconnecting: Promise<void> | undefined;
  #heartbeat: ReturnType<typeof setInterval> | undefined;
  #restoreHooks: RestoreHook[] = [];
  #lastError: TransportError | undefined;
  #fatal: TransportError | undefined;
  #reconnects = 0;
  /**
   * 58 refusals since the last answered request: the reconnect that follows one waits a back-off
   * that doubles with each, so a node that keeps refusing is not re-dialled in a tight loop.
   */
  #refusalStreak = 0;
  /** Requests written, by command code (diagnostics: what a workload costs on the wire). */
  readonly #written = new Map<number, number>();
  #closedWaiters: Array<() => void> = [];
  /** The socket a 'drain' listener waits on (see {@link WRITE_BUFFER_LIMIT}). */
  #drainAwaited: net.Socket | undefined;
  /** Fires on close: ends a back-off pause or a socket attempt of a reconnect in progress. */
  readonly #closing = new AbortController();

  private constructor(options: ResolvedIggyOptions, directory: ClusterDirectory) {
    this.#options = options;
    this.#directory = directory;
  }

  /**
   * Opens a connection and logs in, retrying per the reconnect policy; with cluster discovery,
   * settles on the leader. `directory` is shared by a transport's connections (default: one of
   * its own, from the options' seeds).
   */
  static async open(options: ResolvedIggyOptions, signal?: AbortSignal, directory: ClusterDirectory = new ClusterDirectory(options.seeds)): Promise<IggyConnection> {
    const connection = new IggyConnection(options, directory);
    try {
      await connection.#establish(signal);
    } catch (error) {
      connection.#shutdown(new ClosedError('connection closed'));
      throw error;
    }
    connection.#state = 'ready';
    connection.#startHeartbeat();
    return connection;
  }

  /** The protocol generation this connection speaks. */
  get protocol(): 'vsr' | 'classic' {
    return this.#options.protocol;
  }

  /** The address this connection is (or was last) connected to. */
  get endpoint(): Endpoint | undefined {
    return this.#endpoint;
  }

  /** The resolved options. */
  get options(): ResolvedIggyOptions {
    return this.#options;
  }

  /** True once {@link close} was called. */
  get closed(): boolean {
    return this.#state === 'closed';
  }

  /** Calls queued or waiting for a reply. */
  get load(): number {
    return this.#queue.length + this.#inFlight.length;
  }

  /** How many times the connection was re-established after a loss. */
  get reconnects(): number {
    return this.#reconnects;
  }

  /** The VSR client id (the member identity the server keys group polls on); 0 for classic. */
  get vsrClientId(): bigint {
    return this.#session instanceof VsrClientSession ? this.#session.clientId : 0n;
  }

  /** Requests written on this connection since it opened, by command code (resends not counted). */
  get requestsWritten(): ReadonlyMap<number, number> {
    return this.#written;
  }

  /** Registers a hook run after each re-login (for example re-joining consumer groups). */
  onRestore(hook: RestoreHook): void {
    this.#restoreHooks.push(hook);
  }

  /**
   * Sends one command and resolves with the reply payload (the VSR result section already
   * stripped). Rejects with typed transport errors only.
   */
  request(code: number, body: Uint8Array, options: RequestOptions = {}): Promise<Uint8Array> {
    return this.#enqueue(code, body, options, false);
  }

  #enqueue(code: number, body: Uint8Array, options: RequestOptions, internal: boolean): Promise<Uint8Array> {
    const signal = options.signal;
    const refusal =
      this.#state === 'closed' ? new ClosedError('the Iggy connection is closed')
      : this.#fatal !== undefined ? this.#fatal
      : signal?.aborted === true ? new CancelledError('the operation was aborted', { cause: signal.reason })
      : undefined;
    if (refusal !== undefined) {
      // Never queued, so never on the wire: released at once.
      options.onRelease?.();
      return Promise.reject(refusal);
    }
    const timeoutMs = options.timeoutMs ?? this.#options.requestTimeoutMs;
    return new Promise<Uint8Array>((resolve, reject) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      let unwatch: (() => void) | undefined;
      const call: Call = {
        code,
        body,
        idempotent: options.idempotent === true,
        headerInPlace: options.headerInPlace === true,
        timeoutMs,
        internal,
        settled: false,
        written: false,
        retried: false,
        notAccepted: false,
        refusals: 0,
        resendArmed: false,
        pending: undefined,
        release: options.onRelease,
        resolve,
        reject,
        cleanup: () => {
          if (timer !== undefined) clearTimeout(timer);
          unwatch?.();
        },
      };
      // A written request that timed out may still have been applied: it says so.
      const timedOut = (): TimeoutError =>
        new TimeoutError(`Iggy request ${code} timed out after ${timeoutMs} ms`, { context: { code, timeoutMs, ...(call.written && !call.idempotent ? { outcome: 'unknown' } : {}) } });
      timer = setTimeout(() => this.#abandon(call, timedOut(), true), timeoutMs);
      // Many concurrent calls often share one signal: one listener per signal, not per call.
      unwatch = watchAbort(signal, () => this.#abandon(call, new CancelledError('the operation was aborted', { cause: signal?.reason }), false));
      this.#queue.push(call);
      this.#pump();
      if (this.#state === 'down') this.#startReconnect();
    });
  }

  #settle(call: Call, outcome: { payload: Uint8Array } | { error: TransportError }): void {
    if (call.settled) return;
    call.settled = true;
    call.cleanup();
    if ('payload' in outcome) call.resolve(outcome.payload);
    else call.reject(outcome.error);
  }

  /** Fails a call taken off the queue or the in-flight list for good, and releases it. */
  #drop(call: Call, error: TransportError): void {
    this.#settle(call, { error });
    released(call);
  }

  /**
   * Ends a call early (timeout or abort). An unwritten call just leaves the queue; a written one
   * stays in flight so its late reply is matched and dropped. After a timeout the server may
   * never answer (a VSR server drops what it cannot parse), so the connection is reset.
   */
  #abandon(call: Call, error: TransportError, resetIfWritten: boolean): void {
    if (call.settled) return;
    const queued = this.#queue.indexOf(call);
    if (queued !== -1) this.#queue.splice(queued, 1);
    this.#settle(call, { error });
    if (!call.written || !this.#inFlight.includes(call)) {
      released(call);
      return;
    }
    if (resetIfWritten) {
      this.#lose(new TransportFailureError('no reply from the Iggy server in time; connection reset', { cause: error }));
      return;
    }
    // An aborted call's reply is still owed. If it never comes, nothing behind it would be
    // answered either (VSR keeps one request in flight), so the connection is reset once the
    // call's own time limit has passed.
    const socket = this.#socket;
    setTimeout(() => {
      if (this.#socket === socket && this.#inFlight.includes(call)) {
        this.#lose(new TransportFailureError('no reply from the Iggy server to an aborted request; connection reset', { cause: error }));
      }
    }, call.timeoutMs).unref?.();
  }

  /** Writes whatever may go out now. */
  #pump(): void {
    const socket = this.#socket;
    const session = this.#session;
    if (socket === undefined || session === undefined || this.#login !== undefined) return;
    if (this.#state !== 'ready' && this.#state !== 'restoring') return;
    const vsr = this.#options.protocol === 'vsr';
    let corked = false;
    while (this.#queue.length > 0) {
      if (vsr && this.#inFlight.length > 0) break;
      if (!vsr && socket.writableLength >= WRITE_BUFFER_LIMIT) {
        this.#resumeOnDrain(socket);
        break;
      }
      const index = this.#state === 'ready' ? 0 : this.#queue.findIndex((c) => c.internal);
      if (index === -1) break;
      const call = this.#queue[index] as Call;
      this.#queue.splice(index, 1);
      if (call.settled) {
        released(call);
        continue;
      }
      let frame: Uint8Array;
      try {
        const pending = session.command(call.code, call.body, call.headerInPlace);
        frame = pending.frame;
        call.pending = pending;
      } catch (error) {
        this.#settle(call, { error: toTransportError(error) });
        released(call);
        continue;
      }
      call.written = true;
      this.#written.set(call.code, (this.#written.get(call.code) ?? 0) + 1);
      this.#inFlight.push(call);
      // VSR writes one frame per pump: it goes out at once, without the cork's extra tick.
      if (vsr) {
        socket.write(frame);
        break;
      }
      if (!corked) {
        socket.cork();
        corked = true;
      }
      socket.write(frame);
    }
    if (corked) process.nextTick(() => socket.uncork());
  }

  /** Pumps again once `socket` has handed its buffered bytes to the kernel (one listener per socket). */
  #resumeOnDrain(socket: net.Socket): void {
    if (this.#drainAwaited === socket) return;
    this.#drainAwaited = socket;
    socket.once('drain', () => {
      if (this.#drainAwaited === socket) this.#drainAwaited = undefined;
      if (this.#socket === socket) this.#pump();
    });
  }

  /**
   * Connects and logs in, per the reconnect policy: each attempt tries the known leader, then
   * every seed in order, then the rest of the roster, and settles on the leader the cluster
   * metadata names. With more than one known node the whole search is also bounded by
   * `failoverTimeoutMs`, each socket attempt by what is left of it.
   */
  async #establish(signal?: AbortSignal): Promise<void> {
    const { initialDelayMs, maxDelayMs, failoverTimeoutMs } = this.#options;
    const clustered = this.#directory.clustered;
    // A cluster may be electing for seconds (Iggy's heartbeat timeout): there the search is
    // bounded by time, not by a count of passes that a quick "no leader yet" would use up.
    const deadline = clustered ? Date.now() + failoverTimeoutMs : Number.POSITIVE_INFINITY;
    const maxAttempts = clustered ? Number.MAX_SAFE_INTEGER : this.#options.maxAttempts;
    let delay = clustered ? Math.max(MIN_CLUSTER_PAUSE_MS, initialDelayMs) : initialDelayMs;
    let last: unknown;
    const tried = new Set<string>();
    let attempt = 1;
    for (; attempt <= maxAttempts; attempt++) {
      for (const endpoint of this.#directory.candidates()) {
        if (this.#state === 'closed') throw new ClosedError('the Iggy connection is closed');
        if (signal?.aborted === true) throw new CancelledError('connecting was aborted', { cause: signal.reason });
        if (Date.now() >= deadline) break;
        tried.add(`${endpoint.host}:${endpoint.port}`);
        try {
          if (await this.#connectAndSettle(endpoint, deadline, signal)) return;
          last = new TransportFailureError('the Iggy cluster named no reachable, healthy leader', { context: { endpoint } });
        } catch (error) {
          last = error;
          if (error instanceof CancelledError || error instanceof ClosedError) throw error;
          if (isFatalLoginFailure(error)) {
            this.#fatal = toTransportError(error, { phase: 'login' });
            throw this.#fatal;
          }
          if (this.#directory.leader !== undefined && sameEndpoint(this.#directory.leader, endpoint)) this.#directory.forgetLeader();
        }
      }
      const left = deadline - Date.now();
      if (left <= 0) break;
      if (attempt < maxAttempts) {
        // Up to 20 % jitter, so clients cut off together do not return in lockstep.
        await this.#backoff(Math.min(left, Math.round(delay * (0.8 + Math.random() * 0.2))));
        delay = Math.min(Math.max(maxDelayMs, clustered ? MIN_CLUSTER_PAUSE_MS : 0), Math.max(1, delay * 2));
      }
    }
    const context = { phase: 'connect', attempts: Math.min(attempt, maxAttempts), tried: [...tried], ...(clustered ? { failoverTimeoutMs } : {}) };
    if (clustered) {
      throw new TransportFailureError(`no Iggy primary found within ${failoverTimeoutMs} ms (tried ${[...tried].join(', ')})`, { cause: last, context });
    }
    throw toTransportError(last, context);
  }

  /**
   * One socket attempt at `endpoint`, then the redirects the cluster metadata asks for (at
   * most {@link MAX_LEADER_REDIRECTS}, as the official Node SDK). True once connected to a node
   * that serves (the leader, or a cluster of one); false when the cluster has no leader now.
   */
  async #connectAndSettle(endpoint: Endpoint, deadline: number, signal?: AbortSignal): Promise<boolean> {
    let target = endpoint;
    for (let hop = 0; hop <= MAX_LEADER_REDIRECTS; hop++) {
      const timeoutMs = Math.max(1, Math.min(this.#options.connectTimeoutMs, deadline - Date.now()));
      const metadata = await this.#connectOnce(target, timeoutMs, signal);
      const settlement: Settlement = metadata === undefined ? { kind: 'stay' } : this.#directory.learn(metadata, target);
      if (settlement.kind === 'stay') return true;
      this.#discard();
      if (settlement.kind === 'leaderless') return false;
      target = settlement.leader;
    }
    this.#directory.forgetLeader();
    return false;
  }

  /** Drops the current socket without treating it as a lost connection. */
  #discard(): void {
    const socket = this.#socket;
    this.#socket = undefined;
    this.#session?.close();
    this.#session = undefined;
    this.#splitter = undefined;
    this.#login = undefined;
    socket?.destroy();
  }

  /**
   * Opens a socket to `endpoint` and logs in; with cluster discovery, then reads the cluster
   * metadata. Resolves with the roster, or `undefined` when discovery is off or the server
   * refused the read (a server without clustering support serves as a cluster of one).
   */
  #connectOnce(endpoint: Endpoint, timeoutMs: number, signal?: AbortSignal): Promise<ClusterMetadata | undefined> {
    const o = this.#options;
    const { host, port } = endpoint;
    return new Promise<ClusterMetadata | undefined>((resolve, reject) => {
      let done = false;
      let metadata: ClusterMetadata | undefined;
      const onAbort = (): void => finish(new CancelledError('connecting was aborted', { cause: signal?.reason }));
      // close() ends an attempt still opening its socket (a TLS handshake is not the login).
      const onClose = (): void => finish(new ClosedError('the Iggy connection was closed while connecting'));
      const closing = this.#closing.signal;
      const finish = (error?: unknown): void => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        closing.removeEventListener('abort', onClose);
        if (error === undefined) resolve(metadata);
        else {
          if (this.#socket === socket) {
            this.#socket = undefined;
            this.#session = undefined;
            this.#splitter = undefined;
            this.#login = undefined;
          }
          socket.destroy();
          reject(error);
        }
      };
      const timer = setTimeout(() => finish(new TimeoutError(`connecting to ${host}:${port} timed out after ${timeoutMs} ms`, { context: { host, port } })), timeoutMs);
      signal?.addEventListener('abort', onAbort, { once: true });
      closing.addEventListener('abort', onClose, { once: true });
      const socket: net.Socket = o.tls === undefined
        ? net.connect({ host, port })
        : tls.connect({ servername: net.isIP(host) === 0 ? host : undefined, ...o.tls, host, port });
      const session: Session = o.protocol === 'vsr'
        ? new VsrClientSession({ sdkName: o.clientName, sdkVersion: '0.1.0', heartbeatIntervalMs: o.heartbeatIntervalMs || 5000 })
        : new ClassicClientSession({ heartbeatIntervalMs: o.heartbeatIntervalMs || 5000 });
      const splitter: FrameSplitter = o.protocol === 'vsr' ? new VsrFrameSplitter() : new ClassicResponseSplitter();
      socket.setNoDelay(true);
      // TCP keep-alive notices a vanished peer even when heartbeats are off.
      socket.setKeepAlive(true, 30_000);
      const readRoster = (): void => {
        if (!o.discoverCluster) return finish();
        let pending: { readonly frame: Uint8Array };
        try {
          pending = session.command(CommandCode.GetClusterMetadata, encodeGetClusterMetadataRequest());
        } catch (error) {
          finish(error);
          return;
        }
        this.#login = {
          resolve: (payload) => {
            const malformed = (why: string, cause?: unknown): void =>
              finish(new TransportFailureError(`the Iggy server at ${host}:${port} sent malformed cluster metadata (${why})`, { cause, context: { host, port } }));
            if (payload.length > MAX_ROSTER_BYTES) return malformed(`${payload.length} bytes, more than ${MAX_ROSTER_BYTES}`);
            try {
              metadata = decodeClusterMetadata(payload);
            } catch (cause) {
              return malformed('it does not decode', cause);
            }
            if (metadata.nodes.length > MAX_ROSTER_NODES) return malformed(`${metadata.nodes.length} nodes, more than ${MAX_ROSTER_NODES}`);
            finish();
          },
          // A refusal (for example 5, unavailable, from a server without clustering) is an
          // answer: that server serves as a cluster of one.
          refuse: () => finish(),
          reject: finish,
        };
        socket.write(pending.frame);
      };
      socket.once(o.tls === undefined ? 'connect' : 'secureConnect', () => {
        if (done) return;
        if (this.#state === 'closed') {
          finish(new ClosedError('the Iggy connection was closed while connecting'));
          return;
        }
        this.#socket = socket;
        this.#session = session;
        this.#splitter = splitter;
        this.#endpoint = endpoint;
        this.#login = { resolve: readRoster, refuse: finish, reject: finish };
        const frame = session instanceof VsrClientSession
          ? session.register(o.credentials).frame
          : session.login(o.credentials).frame;
        socket.write(frame);
      });
      socket.on('data', (chunk: Uint8Array) => {
        if (this.#socket === socket) this.#onData(chunk);
      });
      socket.on('error', (error) => {
        if (!done) finish(error);
        else if (this.#socket === socket) this.#lose(toTransportError(error));
      });
      socket.on('close', () => {
        if (!done) finish(new TransportFailureError(`the Iggy server at ${host}:${port} closed the connection during login`, { context: { host, port } }));
        else if (this.#socket === socket) this.#lose(new TransportFailureError('the Iggy server closed the connection'));
      });
    });
  }

  #onData(chunk: Uint8Array): void {
    const splitter = this.#splitter;
    const session = this.#session;
    if (splitter === undefined || session === undefined) return;
    let frames: Uint8Array[];
    try {
      // A plain view: frames (and the payloads inside them) must not come out as Node Buffers.
      frames = splitter.push(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    } catch (error) {
      this.#lose(toTransportError(error));
      return;
    }
    for (const frame of frames) {
      if (this.#session !== session) return;
      this.#onFrame(session, frame);
    }
    this.#pump();
  }

  #onFrame(session: Session, frame: Uint8Array): void {
    const login = this.#login;
    let outcome: ReturnType<Session['handleFrame']>;
    try {
      outcome = session.handleFrame(frame);
    } catch (error) {
      // An eviction, a malformed frame or a reply that answers nothing: the stream is done.
      if (login !== undefined) {
        this.#login = undefined;
        login.reject(error);
        return;
      }
      const failure = toTransportError(error);
      if (error instanceof IggyEvictionError && FATAL_EVICTIONS.has(error.reason)) this.#fatal = failure;
      this.#lose(failure);
      return;
    }
    // In a cluster, 58 means "not the primary" (both generations): move rather than resend.
    if (!outcome.ok && login === undefined && outcome.error.code === TRANSIENT_NOT_ACCEPTED && this.#directory.clustered) {
      this.#notPrimary(outcome.request, outcome.error);
      return;
    }
    const retry = !outcome.ok && 'retry' in outcome && outcome.retry;
    if (retry) {
      this.#resend(session, outcome.request);
      return;
    }
    if (login !== undefined) {
      this.#login = undefined;
      if (outcome.ok) {
        this.#lastError = undefined;
        login.resolve(outcome.payload);
      } else {
        login.refuse(outcome.error);
      }
      return;
    }
    const index = this.#inFlight.findIndex((c) => c.pending === outcome.request);
    if (index === -1) return;
    const call = this.#inFlight.splice(index, 1)[0] as Call;
    released(call);
    if (outcome.ok) {
      this.#refusalStreak = 0;
      // A node that once refused (a backup then) serves now: its place in the order comes back.
      if (this.#endpoint !== undefined) this.#directory.served(this.#endpoint);
    }
    if (outcome.ok) this.#settle(call, { payload: outcome.payload });
    else this.#settle(call, { error: toTransportError(outcome.error, { command: call.code }) });
  }

  /**
   * A node of a cluster answered 58 (TransientNotAccepted): it is not the primary (any more),
   * and nothing was applied. The call goes back to the head of the queue unwritten, whatever
   * kind it is, and the connection is re-established, which finds the primary again.
   */
  #notPrimary(request: unknown, error: IggyError): void {
    const call = this.#inFlight.find((c) => c.pending === request);
    const endpoint = this.#endpoint;
    this.#refusalStreak++;
    if (call !== undefined) {
      call.refusals++;
      if (call.refusals >= MAX_NOT_ACCEPTED) {
        // Refused every time, so nothing was applied: a clean failure, not an unknown outcome.
        this.#settle(call, {
          error: new TransportFailureError(`the Iggy cluster refused the request ${call.refusals} times as not the primary (58); it was not applied`, {
            cause: toTransportError(error),
            context: { command: call.code, refusals: call.refusals, endpoint, outcome: 'not-applied' },
          }),
        });
      } else call.notAccepted = true;
    }
    // Forgotten as leader and tried last: without discovery nothing else would move us off it.
    if (endpoint !== undefined) this.#directory.refusedWork(endpoint);
    this.#lose(new TransportFailureError('the Iggy node is not the primary; finding the new one', { cause: toTransportError(error), context: { endpoint } }));
  }

  /**
   * A VSR transient status (57/58): the identical bytes go out again after a short pause, but
   * only while the request still waits for its answer on this session. A request answered
   * meanwhile (a server that sent the status and then the reply) may have given its pooled frame
   * buffer to the next send, so a late resend would write that send's bytes a second time.
   */
  #resend(session: Session, request: { readonly frame: Uint8Array }): void {
    const socket = this.#socket;
    const call = this.#inFlight.find((c) => c.pending === request);
    // One resend per status: a duplicated 57 must not put the request on the wire twice.
    if (socket === undefined || call === undefined || call.resendArmed) return;
    call.resendArmed = true;
    setTimeout(() => {
      call.resendArmed = false;
      if (this.#socket === socket && this.#session === session && this.#inFlight.includes(call)) socket.write(request.frame);
    }, TRANSIENT_RESEND_MS).unref?.();
  }

  /** The connection broke (or was reset): fail or requeue what was written, then reconnect. */
  #lose(error: TransportError): void {
    if (this.#state === 'closed' || this.#state === 'down') return;
    this.#lastError = error;
    const socket = this.#socket;
    this.#socket = undefined;
    this.#session?.close();
    this.#session = undefined;
    this.#splitter = undefined;
    socket?.destroy();
    const login = this.#login;
    this.#login = undefined;
    login?.reject(error);
    // A restore step lost mid-way fails at once, so the reconnect loop starts the restore over.
    const restoring = this.#state === 'restoring';
    this.#state = 'down';
    const written = this.#inFlight.splice(0);
    const retry: Call[] = [];
    for (const call of written) {
      if (call.settled) {
        released(call);
        continue;
      }
      if (restoring && call.internal) {
        this.#settle(call, { error });
        released(call);
      } else if (call.notAccepted && this.#fatal === undefined) {
        // Refused unapplied (58): it goes out again in its place, whatever kind it is.
        call.notAccepted = false;
        call.written = false;
        retry.push(call);
      } else if (call.idempotent && !call.retried && this.#fatal === undefined) {
        call.retried = true;
        call.written = false;
        retry.push(call);
      } else if (call.idempotent) {
        // A read lost again (or with no way back): it changed nothing, so its outcome is not in doubt.
        this.#drop(call, this.#fatal ?? new TransportFailureError('the Iggy connection was lost again before a read written twice was answered', { cause: error, context: { command: call.code } }));
      } else {
        released(call);
        this.#settle(call, {
          error: new OutcomeUnknownError('the Iggy connection was lost after the request was written and before its reply arrived: it may or may not have been applied', {
            cause: error,
            context: { command: call.code },
          }),
        });
      }
    }
    this.#queue.unshift(...retry);
    if (this.#fatal !== undefined) {
      for (const call of this.#queue.splice(0)) this.#drop(call, this.#fatal);
      return;
    }
    this.#startReconnect();
  }

  #startReconnect(): void {
    if (this.#reconnecting !== undefined || this.#state !== 'down') return;
    this.#reconnecting = (async () => {
      try {
        this.#state = 'connecting';
        if (this.#refusalStreak > 0) {
          // After a 58 the same node may be named leader again at once: pace the retries.
          const { initialDelayMs, maxDelayMs } = this.#options;
          const base = Math.max(MIN_CLUSTER_PAUSE_MS, initialDelayMs);
          await this.#backoff(Math.min(Math.max(maxDelayMs, base), base * 2 ** Math.min(this.#refusalStreak - 1, 16)));
          if ((this.#state as State) === 'closed') return;
        }
        for (let cycle = 1; ; cycle++) {
          await this.#establish();
          this.#reconnects++;
          this.#state = 'restoring';
          try {
            for (const hook of this.#restoreHooks) await hook();
            break;
          } catch (error) {
            // Lost again while restoring (#lose marked it down): start over, within the policy's
            // attempts, instead of failing the calls queued behind the restore.
            if ((this.#state as State) !== 'down' || cycle >= this.#options.maxAttempts) throw error;
            this.#state = 'connecting';
          }
        }
        if ((this.#state as State) === 'restoring') this.#state = 'ready';
        this.#pump();
      } catch (error) {
        if ((this.#state as State) === 'closed') return;
        // Queued calls were never written: whatever the restore's own outcome, theirs is known.
        const failure = isOutcomeUnknown(error)
          ? new TransportFailureError('the Iggy connection was lost again while restoring its state after a reconnect', { cause: error })
          : toTransportError(error);
        this.#lastError = failure;
        const socket = this.#socket;
        this.#socket = undefined;
        this.#session = undefined;
        socket?.destroy();
        this.#state = 'down';
        // Attempts are bounded: queued calls fail now; the next call starts a fresh cycle.
        for (const call of this.#queue.splice(0)) this.#drop(call, failure);
        for (const call of this.#inFlight.splice(0)) this.#drop(call, failure);
      } finally {
        this.#reconnecting = undefined;
      }
    })();
  }

  #startHeartbeat(): void {
    const interval = this.#options.heartbeatIntervalMs;
    if (interval === 0) return;
    this.#heartbeat = setInterval(() => {
      if (this.#state !== 'ready' || this.#queue.length > 0 || this.#inFlight.length > 0) return;
      if (this.#session?.heartbeatDue() !== true) return;
      this.#enqueue(CommandCode.Ping, new Uint8Array(0), { timeoutMs: Math.max(1000, interval * 2) }, true).catch(() => undefined);
    }, Math.max(10, Math.min(interval, 1000)));
    this.#heartbeat.unref?.();
  }

  /**
   * The pause between connection attempts, ended early by close(). Between attempts there is no
   * socket to keep the process alive, yet a caller is waiting (connect() itself, or queued
   * calls): the timer must hold the event loop open, or a script awaiting the connection would
   * end silently mid-wait. Once closed, nothing waits any more, so nothing may hold it.
   */
  #backoff(ms: number): Promise<void> {
    const closing = this.#closing.signal;
    return new Promise((resolve) => {
      if (closing.aborted) return resolve();
      const done = (): void => {
        clearTimeout(timer);
        closing.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      closing.addEventListener('abort', done, { once: true });
    });
  }

  /** Sends an internal request during a restore hook (before queued user calls). */
  restoreRequest(code: number, body: Uint8Array): Promise<Uint8Array> {
    return this.#enqueue(code, body, {}, true);
  }

  /**
   * Drops the connection because a reply it delivered cannot be trusted (it answered another
   * request), then reconnects as after a lost socket: calls in flight are requeued or failed by
   * the usual rules.
   */
  discard(error: TransportError): void {
    this.#lose(error);
  }

  /** The last connection-level failure, for diagnostics. */
  get lastError(): TransportError | undefined {
    return this.#lastError;
  }

  #shutdown(error: ClosedError): void {
    this.#state = 'closed';
    this.#closing.abort(error);
    if (this.#heartbeat !== undefined) clearInterval(this.#heartbeat);
    for (const call of this.#queue.splice(0)) this.#drop(call, error);
    for (const call of this.#inFlight.splice(0)) this.#drop(call, error);
    const login = this.#login;
    this.#login = undefined;
    login?.reject(error);
    this.#session?.close();
    const socket = this.#socket;
    this.#socket = undefined;
    if (socket !== undefined && !socket.destroyed) {
      socket.once('close', () => this.#closedWaiters.splice(0).forEach((w) => w()));
      socket.end();
      setTimeout(() => socket.destroy(), 200).unref?.();
    } else {
      this.#closedWaiters.splice(0).forEach((w) => w());
    }
  }

  /** Closes the connection: pending and later calls reject with `ClosedError`. Idempotent. */
  async close(): Promise<void> {
    if (this.#state === 'closed') return;
    const waited = new Promise<void>((resolve) => this.#closedWaiters.push(resolve));
    this.#shutdown(new ClosedError('the Iggy connection was closed'));
    await Promise.race([waited, sleep(500)]);
  }
}
