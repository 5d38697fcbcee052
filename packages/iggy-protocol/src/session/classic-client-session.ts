/**
 * The client side of a classic (0.10) connection as a pure state machine. Classic has no request
 * ids: responses come strictly in request order, so the session keeps a FIFO of the codes in
 * flight (which also makes pipelining safe) and tracks login state.
 */

import { CommandCode } from '../commands/command-codes.js';
import type { ClassicLoginRequest, TokenCredentials } from '../commands/login.js';
import { decodeIdentityResponse, encodeLoginUserRequest, encodeLoginWithTokenRequest } from '../commands/login.js';
import { decodeClassicResponse, encodeClassicRequest, encodeClassicRequestInPlace } from '../framing/classic-frame.js';
import { IggyCodecError, IggyError, IggyInvalidError, UNMATCHED_REPLY } from '../errors.js';

/** Life cycle of a {@link ClassicClientSession}. */
export type ClassicSessionState = 'anonymous' | 'authenticating' | 'authenticated' | 'closed';

/** A request in flight. */
export interface ClassicPendingRequest {
  /** The exact bytes to write. */
  readonly frame: Uint8Array;
  /** The command code. */
  readonly code: number;
}

/** What a matched response resolved: the payload, or the server's refusal of that request. */
export type ClassicResponseOutcome =
  | { readonly ok: true; readonly request: ClassicPendingRequest; readonly payload: Uint8Array }
  | { readonly ok: false; readonly request: ClassicPendingRequest; readonly error: IggyError };

/** Options of a {@link ClassicClientSession}. */
export interface ClassicClientSessionOptions {
  /** Idle time after which a heartbeat Ping is due, ms (default 5000). */
  readonly heartbeatIntervalMs?: number;
  /** The clock, ms (default `Date.now`). */
  readonly now?: () => number;
}

/** The client half of a classic connection. */
export class ClassicClientSession {
  #state: ClassicSessionState = 'anonymous';
  #userId: number | undefined;
  #lastSent: number;
  readonly #heartbeatMs: number;
  readonly #now: () => number;
  readonly #inFlight: ClassicPendingRequest[] = [];

  constructor(options: ClassicClientSessionOptions = {}) {
    this.#heartbeatMs = options.heartbeatIntervalMs ?? 5000;
    this.#now = options.now ?? Date.now;
    this.#lastSent = this.#now();
  }

  /** The current state. */
  get state(): ClassicSessionState {
    return this.#state;
  }

  /** The logged-in user's id. */
  get userId(): number | undefined {
    return this.#userId;
  }

  /** Requests waiting for a response, oldest first. */
  get inFlight(): readonly ClassicPendingRequest[] {
    return this.#inFlight;
  }

  #push(code: number, payload: Uint8Array, headerInPlace = false): ClassicPendingRequest {
    const pending = { frame: headerInPlace ? encodeClassicRequestInPlace(code, payload) : encodeClassicRequest(code, payload), code };
    this.#inFlight.push(pending);
    this.#lastSent = this.#now();
    return pending;
  }

  /** Builds LoginUser (38) for a password, or LoginWithPersonalAccessToken (44) for a token. */
  login(credentials: ClassicLoginRequest | TokenCredentials): ClassicPendingRequest {
    if (this.#state !== 'anonymous') throw new IggyInvalidError(`cannot log in in state ${this.#state}`);
    this.#state = 'authenticating';
    if ('token' in credentials) return this.#push(CommandCode.LoginWithPersonalAccessToken, encodeLoginWithTokenRequest(credentials.token));
    return this.#push(CommandCode.LoginUser, encodeLoginUserRequest(credentials));
  }

  /**
   * Builds a request for any command with an encoded payload (Ping is allowed before login). With
   * `headerInPlace`, the 8 bytes before `payload` in its buffer belong to this request (encode the
   * payload with `headroom: CLASSIC_REQUEST_HEADER_SIZE`): the header is written there and the
   * frame is a view, so a large payload is not copied.
   */
  command(code: number, payload: Uint8Array = new Uint8Array(0), headerInPlace = false): ClassicPendingRequest {
    if (this.#state === 'closed') throw new IggyInvalidError('session is closed');
    if (code === CommandCode.LoginUser || code === CommandCode.LoginWithPersonalAccessToken || code === CommandCode.LogoutUser) {
      throw new IggyInvalidError(`command ${code} is a login or logout; use login() or logout()`);
    }
    if (code !== CommandCode.Ping && this.#state !== 'authenticated') throw new IggyInvalidError(`command ${code} needs a logged-in session (state ${this.#state})`);
    return this.#push(code, payload, headerInPlace);
  }

  /** Builds a Ping (heartbeat). */
  ping(): ClassicPendingRequest {
    return this.command(CommandCode.Ping);
  }

  /** Builds LogoutUser (39); the session closes when it is answered. */
  logout(): ClassicPendingRequest {
    if (this.#state !== 'authenticated') throw new IggyInvalidError(`cannot log out in state ${this.#state}`);
    return this.#push(CommandCode.LogoutUser, new Uint8Array(0));
  }

  /** True when logged in and nothing was sent for the heartbeat interval. */
  heartbeatDue(): boolean {
    return this.#state === 'authenticated' && this.#now() - this.#lastSent >= this.#heartbeatMs;
  }

  /**
   * Matches one response frame to the oldest request in flight. A non-zero status comes back as
   * an `ok: false` outcome with an {@link IggyError}; a malformed frame or one with nothing in
   * flight throws `IggyCodecError` (the stream cannot be trusted any more; for the latter
   * `context.reason` is `unexpected-reply:nothing-in-flight`).
   */
  handleFrame(frame: Uint8Array): ClassicResponseOutcome {
    const { status, payload } = decodeClassicResponse(frame);
    const pending = this.#inFlight.shift();
    if (pending === undefined) throw new IggyCodecError('response with no request in flight', { context: { status, reason: UNMATCHED_REPLY.nothingInFlight } });
    const isLogin = pending.code === CommandCode.LoginUser || pending.code === CommandCode.LoginWithPersonalAccessToken;
    if (status !== 0) {
      if (isLogin) this.#state = 'anonymous';
      return { ok: false, request: pending, error: new IggyError(status, undefined, { context: { code: pending.code } }) };
    }
    if (isLogin) {
      this.#userId = decodeIdentityResponse(payload);
      this.#state = 'authenticated';
    } else if (pending.code === CommandCode.LogoutUser) {
      this.#state = 'closed';
    }
    return { ok: true, request: pending, payload };
  }

  /** Drops every request in flight and closes the session. */
  close(): void {
    this.#state = 'closed';
    this.#inFlight.length = 0;
  }
}
