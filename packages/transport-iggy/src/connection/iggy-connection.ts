/// <reference types="node" preserve="true" />
/**
 * One logged-in connection to an Iggy server: a socket, a frame splitter and a client session
 * state machine from `@agdx/iggy-protocol`. It matches replies to calls in order (both
 * generations answer a connection's requests in the order they were sent), pipelines classic
 * requests, keeps one VSR request in flight (the VSR session numbering allows no more), sends
 * heartbeat Pings on idle connections, bounds every call by a timeout, and reconnects with a
 * bounded back-off, logging in again and running the owner's restore hooks (group re-joins)
 * before queued calls go out.
 *
 * This class owns the connection's state and routes replies; each part that stands apart lives
 * beside it: the call record (`call.ts`), the write pump and its backpressure (`write-pump.ts`),
 * the 57/58 handling (`transient-status.ts`), what a loss does to written calls
 * (`lost-calls.ts`), the socket attempt and login (`socket-attempt.ts`, `roster-reply.ts`), the
 * search for a serving node (`leader-search.ts`, `backoff.ts`, `fatal-login.ts`), the
 * reconnect loop (`reconnect-loop.ts`) and the heartbeat (`heartbeat.ts`).
 */

import type net from 'node:net';
import { CancelledError, ClosedError, TransportFailureError } from '@agdx/transport';
import type { TransportError } from '@agdx/transport';
import { CommandCode, VsrClientSession } from '@agdx/iggy-protocol';
import type { FrameSplitter, IggyError } from '@agdx/iggy-protocol';
import { ClusterDirectory } from '../cluster-directory.js';
import type { Endpoint } from '../cluster-directory.js';
import { toTransportError } from '../error-mapping.js';
import type { ResolvedIggyOptions } from '../options.js';
import { pauseUntilClosed } from './backoff.js';
import { drop, released, settle, startCall } from './call.js';
import type { Call, RequestOptions } from './call.js';
import { isFatalEviction } from './fatal-login.js';
import { startHeartbeat } from './heartbeat.js';
import { findServingNode } from './leader-search.js';
import type { SearchHost } from './leader-search.js';
import { sortLostCalls } from './lost-calls.js';
import { ReconnectLoop } from './reconnect-loop.js';
import type { ReconnectHost } from './reconnect-loop.js';
import type { Session } from './session.js';
import { attemptSocket } from './socket-attempt.js';
import type { AttemptHost, Handshake } from './socket-attempt.js';
import type { ConnectionState } from './state.js';
import { TRANSIENT_NOT_ACCEPTED, armResend, notPrimaryLoss, refuseAsNotPrimary } from './transient-status.js';
import { WritePump } from './write-pump.js';

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref?.());
}

/** A hook run after every successful re-login, before queued calls are written. */
export type RestoreHook = () => Promise<void>;

/** One connection with its own session; see the module comment. */
export class IggyConnection {
  readonly #options: ResolvedIggyOptions;
  #state: ConnectionState = 'connecting';
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
  /** Writes queued calls; pumps again once a full socket drains (see `WRITE_BUFFER_LIMIT`). */
  readonly #writer = new WritePump({ queue: this.#queue, inFlight: this.#inFlight, written: this.#written }, (drained) => {
    if (this.#socket === drained) this.#pump();
  });
  /** Fires on close: ends a back-off pause or a socket attempt of a reconnect in progress. */
  readonly #closing = new AbortController();
  /** Brings the connection back after a loss, one reconnect at a time. */
  readonly #reconnect: ReconnectLoop;

  private constructor(options: ResolvedIggyOptions, directory: ClusterDirectory) {
    this.#options = options;
    this.#directory = directory;
    // Made here, not as a field initializer: its host reads the options set just above.
    this.#reconnect = new ReconnectLoop(this.#reconnectHost());
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
      const call = startCall({ code, body, options, internal, timeoutMs, resolve, reject, abandon: this.#abandonCall });
      this.#queue.push(call);
      this.#pump();
      if (this.#state === 'down') this.#startReconnect();
    });
  }

  /** `#abandon`, bound once rather than made per call. */
  readonly #abandonCall = (call: Call, error: TransportError, resetIfWritten: boolean): void => this.#abandon(call, error, resetIfWritten);

  /**
   * Ends a call early (timeout or abort). An unwritten call just leaves the queue; a written one
   * stays in flight so its late reply is matched and dropped. After a timeout the server may
   * never answer (a VSR server drops what it cannot parse), so the connection is reset.
   */
  #abandon(call: Call, error: TransportError, resetIfWritten: boolean): void {
    if (call.settled) return;
    const queued = this.#queue.indexOf(call);
    if (queued !== -1) this.#queue.splice(queued, 1);
    settle(call, { error });
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

  /** Writes whatever may go out now: once logged in, and while restoring only internal calls. */
  #pump(): void {
    const socket = this.#socket;
    const session = this.#session;
    if (socket === undefined || session === undefined || this.#login !== undefined) return;
    if (this.#state !== 'ready' && this.#state !== 'restoring') return;
    this.#writer.write(socket, session, this.#options.protocol === 'vsr', this.#state === 'restoring');
  }

  /** Finds a node that serves and logs in to it (see `findServingNode`). */
  #establish(signal?: AbortSignal): Promise<void> {
    return findServingNode(this.#searchHost(), signal);
  }

  /** The connection as a leader search sees it. */
  #searchHost(): SearchHost {
    return {
      options: this.#options,
      directory: this.#directory,
      isClosed: () => this.#state === 'closed',
      attempt: (endpoint, timeoutMs, signal) => attemptSocket(this.#attemptHost(), endpoint, timeoutMs, signal),
      discard: () => this.#discard(),
      pause: (ms) => this.#backoff(ms),
      markFatal: (error) => (this.#fatal = error),
    };
  }

  /** The connection as a socket attempt sees it. */
  #attemptHost(): AttemptHost {
    return {
      options: this.#options,
      closing: this.#closing.signal,
      isClosed: () => this.#state === 'closed',
      adopt: (socket, session, splitter, endpoint) => {
        this.#socket = socket;
        this.#session = session;
        this.#splitter = splitter;
        this.#endpoint = endpoint;
      },
      expect: (step) => {
        this.#login = step;
      },
      isCurrent: (socket) => this.#socket === socket,
      forget: (socket) => {
        if (this.#socket !== socket) return;
        this.#socket = undefined;
        this.#session = undefined;
        this.#splitter = undefined;
        this.#login = undefined;
      },
      onData: (chunk) => this.#onData(chunk),
      lose: (error) => this.#lose(error),
    };
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
      if (isFatalEviction(error)) this.#fatal = failure;
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
    if (outcome.ok) settle(call, { payload: outcome.payload });
    else settle(call, { error: toTransportError(outcome.error, { command: call.code }) });
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
    if (call !== undefined) refuseAsNotPrimary(call, error, endpoint);
    // Forgotten as leader and tried last: without discovery nothing else would move us off it.
    if (endpoint !== undefined) this.#directory.refusedWork(endpoint);
    this.#lose(notPrimaryLoss(error, endpoint));
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
    if (socket === undefined || call === undefined) return;
    armResend(call, () => {
      if (this.#socket === socket && this.#session === session && this.#inFlight.includes(call)) socket.write(request.frame);
    });
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
    const retry = sortLostCalls(this.#inFlight.splice(0), { error, restoring, fatal: this.#fatal });
    this.#queue.unshift(...retry);
    if (this.#fatal !== undefined) {
      for (const call of this.#queue.splice(0)) drop(call, this.#fatal);
      return;
    }
    this.#startReconnect();
  }

  #startReconnect(): void {
    this.#reconnect.start();
  }

  /** The connection as its reconnect loop sees it. */
  #reconnectHost(): ReconnectHost {
    return {
      options: this.#options,
      state: () => this.#state,
      enter: (state) => {
        this.#state = state;
      },
      refusalStreak: () => this.#refusalStreak,
      pause: (ms) => this.#backoff(ms),
      establish: () => this.#establish(),
      reconnected: () => {
        this.#reconnects++;
      },
      restoreHooks: () => this.#restoreHooks,
      pump: () => this.#pump(),
      giveUp: (failure) => {
        this.#lastError = failure;
        const socket = this.#socket;
        this.#socket = undefined;
        this.#session = undefined;
        socket?.destroy();
        this.#state = 'down';
        // Attempts are bounded: queued calls fail now; the next call starts a fresh cycle.
        for (const call of this.#queue.splice(0)) drop(call, failure);
        for (const call of this.#inFlight.splice(0)) drop(call, failure);
      },
    };
  }

  #startHeartbeat(): void {
    this.#heartbeat = startHeartbeat(this.#options.heartbeatIntervalMs, {
      idle: () => this.#state === 'ready' && this.#queue.length === 0 && this.#inFlight.length === 0,
      due: () => this.#session?.heartbeatDue() === true,
      ping: (timeoutMs) => {
        this.#enqueue(CommandCode.Ping, new Uint8Array(0), { timeoutMs }, true).catch(() => undefined);
      },
    });
  }

  /** The pause between connection attempts, ended early by close() (see `pauseUntilClosed`). */
  #backoff(ms: number): Promise<void> {
    return pauseUntilClosed(ms, this.#closing.signal);
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
    for (const call of this.#queue.splice(0)) drop(call, error);
    for (const call of this.#inFlight.splice(0)) drop(call, error);
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
