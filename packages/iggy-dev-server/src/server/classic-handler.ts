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
  decodeLoginUserRequest,
  decodeLoginWithTokenRequest,
  encodeClassicResponse,
  encodeIdentityResponse,
} from '@agdx/iggy-protocol';
import type { FrameSplitter } from '@agdx/iggy-protocol';
import { executeCommand } from './commands.js';
import type { ConnectionPort, FrameHandler } from './connection.js';
import type { ServerContext } from './context.js';
import { statusOf } from './error-status.js';
import { refusedOnBackup, TRANSIENT_NOT_ACCEPTED } from '../cluster/backup-gate.js';

const utf8 = new TextEncoder();

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

  framingError(): Uint8Array {
    return encodeClassicResponse(3);
  }

  #status(status: number, close = false): void {
    this.#conn.send(encodeClassicResponse(status));
    if (close) this.#conn.end();
  }

  handle(frame: Uint8Array): void {
    const { code, payload } = decodeClassicRequest(frame);
    if (code !== CommandCode.SendMessages && payload.length > CLASSIC_MAX_CONTROL_PAYLOAD) return this.#status(4, true);
    const admission = this.#session.admit(code);
    if (admission.action === 'deny') return this.#status(admission.status, code === CommandCode.SendMessages && admission.status === 40);
    try {
      this.#conn.send(encodeClassicResponse(0, this.#run(code, payload)));
    } catch (error) {
      this.#status(statusOf(error));
    }
  }

  #run(code: number, payload: Uint8Array): Uint8Array {
    switch (code) {
      case CommandCode.LoginUser: {
        const req = decodeLoginUserRequest(payload);
        const userLength = utf8.encode(req.username).length;
        const passwordLength = utf8.encode(req.password).length;
        if (userLength < 3 || userLength > 50) throw new IggyError(43);
        if (passwordLength < 3 || passwordLength > 100) throw new IggyError(44);
        const user = this.#ctx.users.get(req.username);
        if (user === undefined || user.password !== req.password) throw new IggyError(42);
        this.#session.login(user.id);
        return encodeIdentityResponse(user.id);
      }
      case CommandCode.LoginWithPersonalAccessToken: {
        const { token } = decodeLoginWithTokenRequest(payload);
        const userId = this.#ctx.tokens.get(token);
        if (userId === undefined) throw new IggyError(53);
        this.#session.login(userId);
        return encodeIdentityResponse(userId);
      }
      case CommandCode.LogoutUser:
        this.#session.logout();
        this.#ctx.connectionClosed(this.#conn.clientId);
        return new Uint8Array(0);
      default:
        if (refusedOnBackup(code) && !this.#ctx.isPrimary()) throw new IggyError(TRANSIENT_NOT_ACCEPTED);
        return executeCommand(this.#ctx, { clientId: this.#conn.clientId, userId: this.#session.userId ?? 0, address: this.#conn.address, protocol: 'classic' }, code, payload);
    }
  }
}
