/**
 * The client side of a VSR session as a pure state machine: it builds request frames with the
 * right operation, session and request number, and matches reply frames to the requests in
 * flight. It performs no I/O; the transport writes the frames it returns and feeds it the frames
 * a {@link VsrFrameSplitter} cuts from the socket.
 *
 * Numbering (sheet §2.3.5): Register carries session 0 and request 0; afterwards a counter starts
 * at 1, metadata operations (128..149) and Logout take it and advance it, NonReplicated and
 * partition operations (160..162) reuse its current value. Before login only Ping is accepted.
 */

import { CommandCode } from '../commands/command-codes.js';
import type { Credentials, RegisterReply } from '../commands/login.js';
import { decodeRegisterReply, encodeRegisterRequest } from '../commands/login.js';
import { IGGY_PROTOCOL_VERSION } from '../commands/version.js';
import { IggyCodecError, IggyError, IggyInvalidError, UNMATCHED_REPLY } from '../errors.js';
import { checkU128 } from '../internal/checks.js';
import { Operation, isMetadataOperation, isPartitionOperation, operationForCode } from '../framing/operations.js';
import { evictionError, unwrapVsrReply } from '../framing/result-section.js';
import { decodeVsrServerFrame, encodeVsrRequestFrame, encodeVsrRequestFrameInPlace, vsrRequestChecksum } from '../framing/vsr-header.js';

/** Life cycle of a {@link VsrClientSession}. */
export type VsrSessionState = 'unregistered' | 'registering' | 'registered' | 'closed';

/** Options of a {@link VsrClientSession}. */
export interface VsrClientSessionOptions {
  /** The client id (non-zero u128); default random. */
  readonly clientId?: bigint;
  /** The SDK name sent in the version prefix (default `agdx-iggy-protocol`). */
  readonly sdkName?: string;
  /** The SDK version sent in the version prefix (default `0.1.0`). */
  readonly sdkVersion?: string;
  /** The packed protocol version (default 0.11.0 = 11264). */
  readonly protocolVersion?: number;
  /** Idle time after which a heartbeat Ping is due, ms (default 5000, as the SDKs). */
  readonly heartbeatIntervalMs?: number;
  /** The clock, ms (default `Date.now`). */
  readonly now?: () => number;
  /**
   * Stamp `request_checksum` (XXH3-64 of the body) on every request so the server verifies it
   * (default false, like the official SDKs; requires `initChecksums()`).
   */
  readonly stampRequestChecksum?: boolean;
}

/** A request the session produced and is waiting on. */
export interface VsrPendingRequest {
  /** The exact bytes to write (and to resend on a transient status). */
  readonly frame: Uint8Array;
  /** The operation byte. */
  readonly operation: number;
  /** The command code. */
  readonly code: number;
  /** The request number. */
  readonly request: bigint;
}

/**
 * What a matched reply resolved: the payload, or the server's refusal of that request. A
 * transient refusal (57/58) leaves the request in flight: resend its `frame` unchanged.
 */
export type VsrReplyOutcome =
  | { readonly ok: true; readonly request: VsrPendingRequest; readonly payload: Uint8Array }
  | { readonly ok: false; readonly request: VsrPendingRequest; readonly error: IggyError; readonly retry: boolean };

function randomClientId(): bigint {
  const b = new Uint8Array(16);
  globalThis.crypto.getRandomValues(b);
  const v = new DataView(b.buffer);
  const id = (v.getBigUint64(8, true) << 64n) | v.getBigUint64(0, true);
  return id === 0n ? 1n : id;
}

/** The client half of a VSR session. Create a new one per login (re-login uses a fresh client id). */
export class VsrClientSession {
  /** The client id written at offset 128 of every request. */
  readonly clientId: bigint;
  readonly #sdkName: string;
  readonly #sdkVersion: string;
  readonly #protocolVersion: number;
  readonly #heartbeatMs: number;
  readonly #now: () => number;
  readonly #stamp: boolean;
  #state: VsrSessionState = 'unregistered';
  #session = 0n;
  #counter = 1n;
  #registration: RegisterReply | undefined;
  #lastSent: number;
  readonly #inFlight: VsrPendingRequest[] = [];

  constructor(options: VsrClientSessionOptions = {}) {
    this.clientId = options.clientId === undefined ? randomClientId() : checkU128(options.clientId, 'clientId');
    if (this.clientId === 0n) throw new IggyInvalidError('clientId must be non-zero', { context: { field: 'clientId' } });
    this.#sdkName = options.sdkName ?? 'agdx-iggy-protocol';
    this.#sdkVersion = options.sdkVersion ?? '0.1.0';
    this.#protocolVersion = options.protocolVersion ?? IGGY_PROTOCOL_VERSION;
    this.#heartbeatMs = options.heartbeatIntervalMs ?? 5000;
    this.#now = options.now ?? Date.now;
    this.#stamp = options.stampRequestChecksum === true;
    this.#lastSent = this.#now();
  }

  /** The current state. */
  get state(): VsrSessionState {
    return this.#state;
  }

  /** The session number from the Register reply (0 before). */
  get session(): bigint {
    return this.#session;
  }

  /** The Register reply, once registered. */
  get registration(): RegisterReply | undefined {
    return this.#registration;
  }

  /** The current value of the request counter. */
  get requestCounter(): bigint {
    return this.#counter;
  }

  /** Requests waiting for a reply, oldest first. */
  get inFlight(): readonly VsrPendingRequest[] {
    return this.#inFlight;
  }

  #push(operation: number, code: number, request: bigint, session: bigint, body: Uint8Array, inPlace = false): VsrPendingRequest {
    const init = {
      client: this.clientId,
      request,
      operation,
      session,
      code: operation === Operation.NonReplicated ? code : 0,
      ...(this.#stamp ? { requestChecksum: vsrRequestChecksum(body) } : {}),
    };
    const frame = inPlace ? encodeVsrRequestFrameInPlace(init, body) : encodeVsrRequestFrame(init, body);
    const pending = { frame, operation, code, request };
    this.#inFlight.push(pending);
    this.#lastSent = this.#now();
    return pending;
  }

  /** Builds the Register frame (LoginRegister 40 or, for a token, 45). */
  register(credentials: Credentials, context?: Uint8Array): VsrPendingRequest {
    if (this.#state !== 'unregistered') throw new IggyInvalidError(`cannot register in state ${this.#state}`);
    if (this.#inFlight.length > 0) throw new IggyInvalidError('cannot register while requests are in flight');
    const body = encodeRegisterRequest({
      versionInfo: { protocolVersion: this.#protocolVersion, sdkName: this.#sdkName, sdkVersion: this.#sdkVersion },
      credentials,
      ...(context === undefined ? {} : { context }),
    });
    const code = 'token' in credentials ? CommandCode.LoginRegisterWithPersonalAccessToken : CommandCode.LoginRegister;
    this.#state = 'registering';
    return this.#push(Operation.Register, code, 0n, 0n, body);
  }

  /** Builds a Ping (the only request accepted before login; also the heartbeat). */
  ping(): VsrPendingRequest {
    if (this.#state === 'closed') throw new IggyInvalidError('session is closed');
    return this.#push(Operation.NonReplicated, CommandCode.Ping, this.#counter, this.#session, new Uint8Array(0));
  }

  /**
   * Builds a request for any command code with an already encoded body. The operation follows
   * from the code; login and logout codes must use {@link register} and {@link logout}. With
   * `headerInPlace`, the 256 bytes before `body` in its buffer belong to this request (encode the
   * body with `headroom: VSR_HEADER_SIZE`): the header is written there and the frame is a view,
   * so a large body is not copied.
   */
  command(code: number, body: Uint8Array = new Uint8Array(0), headerInPlace = false): VsrPendingRequest {
    if (code === CommandCode.Ping) return this.ping();
    if (this.#state !== 'registered') throw new IggyInvalidError(`command ${code} needs a registered session (state ${this.#state})`);
    const operation = operationForCode(code);
    if (operation === Operation.Register || operation === Operation.Logout || code === CommandCode.LoginUser || code === CommandCode.LoginWithPersonalAccessToken) {
      throw new IggyInvalidError(`command ${code} is a login or logout; use register() or logout()`);
    }
    const request = this.#counter;
    if (isMetadataOperation(operation)) this.#counter += 1n;
    return this.#push(operation, code, request, this.#session, body, headerInPlace);
  }

  /** Builds the Logout request (operation 3, empty body); the session closes when it is answered. */
  logout(): VsrPendingRequest {
    if (this.#state !== 'registered') throw new IggyInvalidError(`cannot log out in state ${this.#state}`);
    const request = this.#counter;
    this.#counter += 1n;
    return this.#push(Operation.Logout, CommandCode.LogoutUser, request, this.#session, new Uint8Array(0));
  }

  /** True when the session is registered and nothing was sent for the heartbeat interval. */
  heartbeatDue(): boolean {
    return this.#state === 'registered' && this.#now() - this.#lastSent >= this.#heartbeatMs;
  }

  /**
   * Matches one server frame to the request in flight it answers. A status or result code comes
   * back as an `ok: false` outcome carrying an {@link IggyError} for that request. Throws
   * `IggyEvictionError` for an eviction (the session closes and every request in flight fails
   * with it) and `IggyCodecError` for a malformed frame or one that answers nothing in flight
   * (`context.reason` is `unexpected-reply:request-number` or `unexpected-reply:nothing-in-flight`);
   * both end the connection.
   */
  handleFrame(frame: Uint8Array): VsrReplyOutcome {
    const decoded = decodeVsrServerFrame(frame);
    if (decoded.type === 'eviction') {
      this.#state = 'closed';
      this.#inFlight.length = 0;
      throw evictionError(decoded);
    }
    const index = this.#match(decoded.header.operation, decoded.header.request);
    if (index < 0) {
      const expected = this.#inFlight.map((p) => String(p.request));
      throw new IggyCodecError(`reply (operation ${decoded.header.operation}, request ${decoded.header.request}) matches no request in flight`, {
        context: {
          reason: this.#inFlight.length === 0 ? UNMATCHED_REPLY.nothingInFlight : UNMATCHED_REPLY.requestNumber,
          operation: decoded.header.operation,
          request: String(decoded.header.request),
          expected,
          inFlight: this.#inFlight.length,
        },
      });
    }
    const pending = this.#inFlight[index] as VsrPendingRequest;
    let payload: Uint8Array;
    try {
      payload = unwrapVsrReply(decoded);
    } catch (e) {
      if (!(e instanceof IggyError)) throw e;
      if (e.transient) return { ok: false, request: pending, error: e, retry: true };
      this.#inFlight.splice(index, 1);
      if (pending.operation === Operation.Register) this.#state = 'unregistered';
      return { ok: false, request: pending, error: e, retry: false };
    }
    this.#inFlight.splice(index, 1);
    if (pending.operation === Operation.Register) {
      const reply = decodeRegisterReply(payload);
      this.#registration = reply;
      this.#session = reply.session;
      this.#counter = 1n;
      this.#state = 'registered';
    } else if (pending.operation === Operation.Logout) {
      this.#state = 'closed';
    }
    return { ok: true, request: pending, payload };
  }

  /**
   * The request a reply answers: one in flight with the reply's operation (68 answers
   * DeleteSegments) and the echoed request number, which the server copies from the request
   * (raised to at least 1 on partition operations). Metadata and partition replies can overtake
   * each other, so order is not assumed; a reply with another number answers nothing, so a
   * replayed or forged reply is never taken for a later request.
   */
  #match(operation: number, request: bigint): number {
    for (let i = 0; i < this.#inFlight.length; i++) {
      const p = this.#inFlight[i] as VsrPendingRequest;
      const same = p.operation === operation || (p.operation === Operation.DeleteSegments && operation === 68);
      if (!same) continue;
      const echoed = isPartitionOperation(p.operation) && p.request < 1n ? 1n : p.request;
      if (request === echoed) return i;
    }
    return -1;
  }

  /** Drops every request in flight and closes the session (for example after a transport error). */
  close(): void {
    this.#state = 'closed';
    this.#inFlight.length = 0;
  }
}
