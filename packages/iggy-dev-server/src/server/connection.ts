/**
 * One TCP connection: detects the protocol generation from the first bytes, splits frames,
 * runs them one at a time in arrival order, and applies back-pressure (reading pauses while
 * too many requests or reply bytes are waiting), so a connection's memory stays bounded by
 * one frame plus the limits. Until it logs in, a connection is held to a short deadline and a
 * small buffer, so sockets that never log in cost the server almost nothing; once logged in it
 * is closed only when it stays silent past the idle timeout.
 */

import type { Socket } from 'node:net';
import { detectProtocolGeneration, isKnownCommandCode } from '@agdx/iggy-protocol';
import type { FrameSplitter } from '@agdx/iggy-protocol';
import { ClassicHandler } from './classic-handler.js';
import type { ServerContext } from './context.js';
import type { LoginAttempts } from './login-guard.js';
import { VsrHandler } from './vsr-handler.js';

/** What a protocol handler may do with its connection. */
export interface ConnectionPort {
  /** The server's id of this connection. */
  readonly clientId: number;
  /** The peer address, `host:port`. */
  readonly address: string;
  /** This connection's login-failure accounting. */
  readonly logins: LoginAttempts;
  /** Writes bytes. */
  send(bytes: Uint8Array): void;
  /** Sends what is queued, then closes. */
  end(): void;
  /**
   * Stops running this connection's requests for `ms`, then calls `then` (unless the
   * connection closed meanwhile) and goes on with the next request, so a delayed answer keeps
   * its place in the reply order.
   */
  hold(ms: number, then: () => void): void;
  /** The connection logged in (`true`) or out (`false`); switches between pre-login and idle limits. */
  setAuthenticated(authenticated: boolean): void;
}

/** A protocol handler. */
export interface FrameHandler {
  /** The splitter for this generation. */
  readonly splitter: FrameSplitter;
  /** Runs one whole frame. */
  handle(frame: Uint8Array): void;
  /** What to send before closing on a framing error, if anything. */
  framingError?(): Uint8Array | undefined;
  /** What to send before releasing a silent group member, if anything. */
  stale?(): Uint8Array | undefined;
  /** The logged-in user, undefined before login or after logout. */
  readonly userId?: number | undefined;
}

/**
 * `[length 1..3][known code]`: a classic request with an impossible length (Iggy answers status
 * 3). Detection alone would wait for a VSR header that never comes.
 */
function classicWithBadLength(first: Uint8Array): boolean {
  if (first.length < 8) return false;
  const view = new DataView(first.buffer, first.byteOffset, 8);
  const length = view.getUint32(0, true);
  return length >= 1 && length < 4 && isKnownCommandCode(view.getUint32(4, true));
}

const DETECT_BYTES = 64;
/** Up to this many bytes, a turn's replies are copied into one buffer for one plain write. */
const GATHER_COPY_BYTES = 64 * 1024;

/** Called when a connection logs in or out (the registry sheds unauthenticated ones first). */
export type AuthenticationListener = (conn: Connection, authenticated: boolean) => void;

/** A live connection. */
export class Connection implements ConnectionPort {
  readonly clientId: number;
  readonly address: string;
  readonly #socket: Socket;
  readonly #ctx: ServerContext;
  #handler: FrameHandler | undefined;
  #prefix: Uint8Array = new Uint8Array(0);
  readonly #queue: Uint8Array[] = [];
  #closing = false;
  #closed = false;
  #scheduled = false;
  #lastActivity = Date.now();
  #authenticated = false;
  #held = false;
  /** Replies of this turn, written together (see `send`). */
  #replies: Uint8Array[] = [];
  /** Bytes in `#replies`. */
  #replyBytes = 0;
  /** Bytes of whole frames waiting in the queue (bounded before login). */
  #queuedBytes = 0;
  /** The pre-login deadline, then the idle timer; one at a time. */
  #timer: ReturnType<typeof setTimeout> | undefined;
  readonly #onAuthentication: AuthenticationListener;
  readonly logins: LoginAttempts;

  constructor(socket: Socket, ctx: ServerContext, onAuthentication: AuthenticationListener = () => undefined) {
    this.#socket = socket;
    this.#ctx = ctx;
    this.#onAuthentication = onAuthentication;
    this.clientId = ctx.nextClientId();
    const host = socket.remoteAddress ?? 'unknown';
    this.address = `${host}:${socket.remotePort ?? 0}`;
    this.logins = ctx.loginGuard.forConnection(host);
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.#onData(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength)));
    socket.on('drain', () => this.#pump());
    socket.on('error', () => socket.destroy());
    socket.on('close', () => this.#onClose());
    this.#startTimer(ctx.limits.preLoginTimeoutMs);
  }

  /** True once the socket closed. */
  get closed(): boolean {
    return this.#closed;
  }

  /** True while the connection is logged in. */
  get authenticated(): boolean {
    return this.#authenticated;
  }

  setAuthenticated(authenticated: boolean): void {
    if (this.#closed || authenticated === this.#authenticated) return;
    this.#authenticated = authenticated;
    this.#startTimer(authenticated ? this.#ctx.limits.idleTimeoutMs : this.#ctx.limits.preLoginTimeoutMs);
    this.#onAuthentication(this, authenticated);
  }

  hold(ms: number, then: () => void): void {
    if (ms <= 0) {
      then();
      return;
    }
    this.#held = true;
    this.#socket.pause();
    setTimeout(() => {
      this.#held = false;
      if (this.#closing || this.#closed) return;
      then();
      this.#pump();
    }, ms).unref();
  }

  /** Replaces the running deadline; 0 means none. Both limits close the socket without a word. */
  #startTimer(ms: number): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    if (ms <= 0) return;
    this.#timer = setTimeout(() => this.#socket.destroy(), ms);
    this.#timer.unref();
  }

  /**
   * Replies produced in one turn of the event loop leave in one write: a pipelining client
   * gets several requests answered per read, and each separate write is a system call that
   * costs more than the reply itself. The replies are gathered here and written once the turn's
   * reads are done (`setImmediate` runs after the poll phase), so no reply waits for a later
   * event: several small ones as one buffer, through the socket's plain write path rather than
   * its corked `writev` path (one stream entry and one native request per turn instead of one
   * per reply), large ones corked together without a copy.
   */
  send(bytes: Uint8Array): void {
    if (this.#closing || this.#closed) return;
    if (this.#replies.length === 0) setImmediate(this.#flush);
    this.#replies.push(bytes);
    this.#replyBytes += bytes.length;
  }

  readonly #flush = (): void => {
    const replies = this.#replies;
    if (replies.length === 0) return;
    const total = this.#replyBytes;
    this.#replies = [];
    this.#replyBytes = 0;
    // After destroy() the socket drops what it is given; after end() nothing is gathered.
    if (this.#socket.destroyed) return;
    let ok: boolean;
    if (replies.length === 1) {
      ok = this.#socket.write(replies[0] as Uint8Array);
    } else if (total <= GATHER_COPY_BYTES) {
      const joined = new Uint8Array(total);
      let at = 0;
      for (const r of replies) {
        joined.set(r, at);
        at += r.length;
      }
      ok = this.#socket.write(joined);
    } else {
      this.#socket.cork();
      ok = true;
      for (const r of replies) ok = this.#socket.write(r) && ok;
      this.#socket.uncork();
    }
    // Requests held back, or reading paused, while these replies were gathered may go on now;
    // a socket that did not take them all (`ok` false) resumes through 'drain' instead.
    if (ok) this.#pump();
  };

  /** Reply bytes not yet taken by the kernel: gathered this turn, or buffered by the socket. */
  #pendingReplyBytes(): number {
    return this.#replyBytes + this.#socket.writableLength;
  }

  end(): void {
    if (this.#closing) return;
    // `closing` first: no reply is gathered after this and no request runs from the flush;
    // then the replies gathered this turn leave ahead of the end.
    this.#closing = true;
    this.#flush();
    this.#queue.length = 0;
    this.#queuedBytes = 0;
    // The server is done with this client: its memberships end now, not when the peer hangs up.
    this.#ctx.connectionClosed(this.clientId);
    this.#socket.end();
    // A peer that never reads must not keep the socket alive.
    setTimeout(() => this.#socket.destroy(), 5000).unref();
  }

  /** The logged-in user (GetClient, GetClients), undefined before login. */
  get userId(): number | undefined {
    return this.#handler?.userId;
  }

  /** When the peer last sent anything (ms since the epoch). */
  get lastActivity(): number {
    return this.#lastActivity;
  }

  /** Releases a silent group member: the generation's notice (VSR eviction), then close. */
  releaseStale(): void {
    const notice = this.#handler?.stale?.();
    if (notice !== undefined) this.send(notice);
    this.end();
  }

  /** Drops the connection at once. */
  destroy(): void {
    this.#socket.destroy();
  }

  #onData(chunk: Uint8Array): void {
    if (this.#closing) return;
    this.#lastActivity = Date.now();
    if (this.#handler === undefined) {
      const joined = new Uint8Array(this.#prefix.length + chunk.length);
      joined.set(this.#prefix, 0);
      joined.set(chunk, this.#prefix.length);
      const generation = classicWithBadLength(joined) ? 'classic' : detectProtocolGeneration(joined.subarray(0, DETECT_BYTES));
      if (generation === 'need-more') {
        this.#prefix = joined;
        return;
      }
      if (generation === 'unknown') {
        this.#socket.destroy();
        return;
      }
      this.#prefix = new Uint8Array(0);
      this.#handler = generation === 'vsr' ? new VsrHandler(this, this.#ctx) : new ClassicHandler(this, this.#ctx);
      chunk = joined;
    }
    let frames: Uint8Array[];
    try {
      frames = this.#handler.splitter.push(chunk);
    } catch {
      // An impossible or oversized frame cannot be skipped: the byte stream is lost. Classic
      // clients get the InvalidCommand status Iggy sends first.
      const farewell = this.#handler.framingError?.();
      if (farewell !== undefined) {
        this.send(farewell);
        this.end();
      } else {
        this.#socket.destroy();
      }
      return;
    }
    if (!this.#authenticated && !this.#withinPreLoginBuffer(frames)) {
      this.#socket.destroy();
      return;
    }
    for (const f of frames) {
      this.#queue.push(f);
      this.#queuedBytes += f.length;
    }
    // Only whole requests count as activity: a peer trickling bytes stays idle.
    if (frames.length > 0 && this.#authenticated) this.#timer?.refresh();
    this.#pump();
  }

  /**
   * Before login a connection may hold only a small amount: a partial frame, whole frames
   * waiting to run, or a single frame, larger than `preLoginBufferBytes`, close it. Login
   * requests are far smaller; every Iggy client logs in before sending anything large.
   */
  #withinPreLoginBuffer(frames: readonly Uint8Array[]): boolean {
    const cap = this.#ctx.limits.preLoginBufferBytes;
    let held = this.#queuedBytes + (this.#handler?.splitter.buffered ?? 0);
    for (const f of frames) {
      if (f.length > cap) return false;
      held += f.length;
    }
    return held <= cap;
  }

  #pump(): void {
    const handler = this.#handler;
    if (handler === undefined) return;
    let ran = 0;
    while (this.#queue.length > 0 && !this.#closing && !this.#closed && !this.#held) {
      if (this.#pendingReplyBytes() > this.#ctx.limits.maxPendingBytes) break;
      if (ran >= this.#ctx.limits.maxInFlight) {
        // Yield to other connections; the rest of the queue runs on the next turn.
        if (!this.#scheduled) {
          this.#scheduled = true;
          setImmediate(() => {
            this.#scheduled = false;
            this.#pump();
          });
        }
        break;
      }
      const frame = this.#queue.shift() as Uint8Array;
      this.#queuedBytes -= frame.length;
      ran++;
      try {
        handler.handle(frame);
      } catch (error) {
        // A handler bug must cost one connection, never the server.
        this.#ctx.internalError(error);
        this.#socket.destroy();
        return;
      }
    }
    const backlog = this.#queue.length >= this.#ctx.limits.maxInFlight || this.#pendingReplyBytes() > this.#ctx.limits.maxPendingBytes;
    if (backlog || this.#held) this.#socket.pause();
    else if (this.#socket.isPaused() && !this.#closing) this.#socket.resume();
  }

  #onClose(): void {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#queue.length = 0;
    this.#queuedBytes = 0;
    this.#ctx.connectionClosed(this.clientId);
  }
}
