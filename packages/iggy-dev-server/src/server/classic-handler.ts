/**
 * The classic (Iggy ≤ 0.8, binary protocol 0.10) side of a connection: `[length][code]`
 * requests answered in order with `[status][length]` responses. Where Iggy 0.8 would lose the
 * frame boundary (a control frame over 10 MiB, a SendMessages before login) this server sends
 * the same status and then closes the connection, as the audit recommends.
 */

import {
  CLASSIC_MAX_CONTROL_PAYLOAD,
  ClassicRequestSplitter,
  ClassicServerSession,
  CommandCode,
  IggyError,
  decodeClassicRequest,
  encodeClassicResponse,
  encodeIdentityResponse,
} from '@agdx/iggy-protocol';
import type { FrameSplitter } from '@agdx/iggy-protocol';
import type { LoginOutcome } from '../auth/user-directory.js';
import { executeCommand } from './commands.js';
import type { ConnectionPort, FrameHandler } from './connection.js';
import type { ServerContext } from './context.js';
import { statusOf } from './error-status.js';
import { LOGIN_REFUSED_STATUS } from './login-guard.js';
import { decodeLoginUserRequest, decodeLoginWithTokenRequest } from './request-decoders.js';
import { refusedOnBackup, TRANSIENT_NOT_ACCEPTED } from '../cluster/backup-gate.js';

const utf8 = new TextEncoder();

const CLASSIC_LOGIN_FAILURES = { credentials: 42, inactive: 47, 'unknown-token': 20, 'expired-token': 54 } as const;

/** Serves one classic connection. */
export class ClassicHandler implements FrameHandler {
  readonly splitter: FrameSplitter;
  readonly #conn: ConnectionPort;
  readonly #ctx: ServerContext;
  readonly #session = new ClassicServerSession();

  constructor(conn: ConnectionPort, ctx: ServerContext) {
    this.#conn = conn;
    this.#ctx = ctx;
    this.splitter = new ClassicRequestSplitter({ maxFrameSize: ctx.limits.maxFrameSize });
  }

  get userId(): number | undefined {
    return this.#session.userId;
  }

  framingError(): Uint8Array {
    return encodeClassicResponse(3);
  }

  #status(status: number, close = false): void {
    this.#conn.send(encodeClassicResponse(status));
    if (close) this.#conn.end();
  }

  handle(frame: Uint8Array): void {
    const { code, payload } = decodeClassicRequest(frame);
    // Iggy 0.8 answers a control frame over its limit with InvalidCommand (tcp/connection_handler.rs).
    if (code !== CommandCode.SendMessages && payload.length > CLASSIC_MAX_CONTROL_PAYLOAD) return this.#status(3, true);
    const admission = this.#session.admit(code);
    if (admission.action === 'deny') return this.#status(admission.status, code === CommandCode.SendMessages && admission.status === 40);
    if (code === CommandCode.LoginUser || code === CommandCode.LoginWithPersonalAccessToken) return this.#login(code, payload);
    try {
      this.#conn.send(encodeClassicResponse(0, this.#run(code, payload)));
    } catch (error) {
      this.#status(statusOf(error, 'classic'));
    }
  }

  /**
   * A login goes through the login guard: refused outright while the address is locked out,
   * and a failure is answered late (and closes the connection past its limit).
   */
  #login(code: number, payload: Uint8Array): void {
    const admission = this.#conn.logins.admit();
    if (admission.action === 'refuse') return this.#conn.hold(admission.delayMs, () => this.#status(LOGIN_REFUSED_STATUS));
    let identity: Uint8Array;
    try {
      identity = this.#run(code, payload);
    } catch (error) {
      const status = statusOf(error, 'classic');
      const failure = this.#conn.logins.failed();
      return this.#conn.hold(failure.delayMs, () => this.#status(status, failure.close));
    }
    this.#conn.setAuthenticated(true);
    this.#conn.send(encodeClassicResponse(0, identity));
  }

  /** Iggy 0.8's answers: 42 bad credentials, 47 inactive user, 20 unknown token, 54 expired token. */
  #loggedIn(outcome: LoginOutcome): Uint8Array {
    if (!outcome.ok) throw new IggyError(CLASSIC_LOGIN_FAILURES[outcome.reason]);
    this.#session.login(outcome.userId);
    return encodeIdentityResponse(outcome.userId);
  }

  #run(code: number, payload: Uint8Array): Uint8Array {
    switch (code) {
      case CommandCode.LoginUser: {
        const req = decodeLoginUserRequest(payload);
        const userLength = utf8.encode(req.username).length;
        const passwordLength = utf8.encode(req.password).length;
        if (userLength < 3 || userLength > 50) throw new IggyError(43);
        if (passwordLength < 3 || passwordLength > 100) throw new IggyError(44);
        return this.#loggedIn(this.#ctx.users.login(req.username, req.password));
      }
      case CommandCode.LoginWithPersonalAccessToken:
        return this.#loggedIn(this.#ctx.users.loginWithToken(decodeLoginWithTokenRequest(payload).token));
      case CommandCode.LogoutUser:
        this.#session.logout();
        this.#conn.setAuthenticated(false);
        this.#ctx.connectionClosed(this.#conn.clientId);
        return new Uint8Array(0);
      default:
        if (refusedOnBackup(code) && !this.#ctx.isPrimary()) throw new IggyError(TRANSIENT_NOT_ACCEPTED);
        return executeCommand(this.#ctx, { clientId: this.#conn.clientId, userId: this.#session.userId ?? 0, address: this.#conn.address, protocol: 'classic' }, code, payload);
    }
  }
}
