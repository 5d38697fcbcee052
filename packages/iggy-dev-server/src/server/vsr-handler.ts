/**
 * The VSR (Iggy 0.9, binary protocol 0.11) side of a connection. Header rules, session binding,
 * deduplication and evictions come from `VsrServerSession`; this file authenticates Register
 * bodies and maps command outcomes onto the reply shapes of the real server: metadata
 * operations carry refusals in the result section (except those Iggy makes before consensus,
 * `pre-consensus.ts`), partition operations (send, store and delete offset) as status 20 for
 * any routing failure, the rest as a header status.
 */

import {
  CommandCode,
  EvictionReason,
  IGGY_PROTOCOL_VERSION,
  IggyError,
  Operation,
  VsrFrameSplitter,
  VsrServerSession,
  decodeVsrRequestFrame,
  encodeResultSection,
  encodeRegisterReply,
  isMetadataOperation,
  isPartitionOperation,
  isProtocolVersionAccepted,
  xxh3_64,
} from '@agdx/iggy-protocol';
import type { FrameSplitter, VsrRequestHeader } from '@agdx/iggy-protocol';
import { executeCommand, SERVER_VERSION } from './commands.js';
import type { ConnectionPort, FrameHandler } from './connection.js';
import type { ServerContext } from './context.js';
import { statusOf } from './error-status.js';
import { LOGIN_REFUSED_STATUS } from './login-guard.js';
import { refusedBeforeConsensus } from './pre-consensus.js';
import { decodeRegisterRequest } from './request-decoders.js';
import { refusedOnBackup, TRANSIENT_NOT_ACCEPTED } from '../cluster/backup-gate.js';

/**
 * Codes a VSR partition operation reports as status 20 (ResourceNotFound), as Iggy 0.9 does: its
 * namespace resolution fails for an undecodable body (3, 4) as for an unknown target.
 */
const ROUTING_FAILURES: ReadonlySet<number> = new Set([3, 4, 1009, 2010, 3007, 5000, 5006, 5009]);
const RESOURCE_NOT_FOUND = 20;
/**
 * The operation a reply travels under when it differs from the request's: Iggy commits a
 * DeleteSegments as a TruncatePartition and answers under that operation, result-framed.
 */
function committedAs(op: number): number | undefined {
  return op === Operation.DeleteSegments ? Operation.TruncatePartition : undefined;
}

/** Frames whose command byte is above this are fatal to the connection (audit §1.4). */
const MAX_COMMAND_BYTE = 29;

/** Serves one VSR connection. */
export class VsrHandler implements FrameHandler {
  readonly splitter: FrameSplitter;
  readonly #conn: ConnectionPort;
  readonly #ctx: ServerContext;
  readonly #session = new VsrServerSession();

  constructor(conn: ConnectionPort, ctx: ServerContext) {
    this.#conn = conn;
    this.#ctx = ctx;
    this.splitter = new VsrFrameSplitter({ maxFrameSize: ctx.limits.maxFrameSize });
  }

  handle(frame: Uint8Array): void {
    if ((frame[60] ?? 0) > MAX_COMMAND_BYTE) {
      this.#conn.end();
      return;
    }
    let header: VsrRequestHeader;
    let body: Uint8Array;
    try {
      ({ header, body } = decodeVsrRequestFrame(frame));
    } catch {
      // The real server logs and drops a request whose header fails the typed parse.
      return;
    }
    if (header.requestChecksum !== 0n && header.requestChecksum !== xxh3_64(body)) {
      if (header.client !== 0n) this.#conn.send(this.#session.reply(header, { status: 4 }));
      return;
    }
    const admission = this.#session.admit(header);
    switch (admission.action) {
      case 'drop':
        return;
      case 'respond':
        this.#conn.send(admission.frame);
        if (admission.closes) this.#conn.end();
        return;
      case 'register':
        this.#register(header, body);
        return;
      case 'execute':
        this.#execute(header, body, admission.code);
        return;
    }
  }

  get userId(): number | undefined {
    return this.#session.state === 'bound' ? this.#session.userId : undefined;
  }

  stale(): Uint8Array | undefined {
    return this.#session.state === 'bound' ? this.#session.evict(this.#session.clientId, EvictionReason.StaleClient) : undefined;
  }

  #register(header: VsrRequestHeader, body: Uint8Array): void {
    const admission = this.#conn.logins.admit();
    if (admission.action === 'refuse') {
      // Iggy's transient login refusal (a status-0 Register reply whose body is a result section
      // with the code): clients send the identical Register again later.
      const refusal = this.#session.reply(header, { payload: encodeResultSection([{ index: 0, code: LOGIN_REFUSED_STATUS }]) });
      return this.#conn.hold(admission.delayMs, () => this.#conn.send(refusal));
    }
    let request;
    try {
      request = decodeRegisterRequest(body);
    } catch {
      this.#evict(header, EvictionReason.MalformedLogin);
      return;
    }
    if (!isProtocolVersionAccepted(request.versionInfo.protocolVersion, IGGY_PROTOCOL_VERSION)) {
      this.#conn.send(this.#session.evict(header.client, EvictionReason.IncompatibleProtocol, { serverProtocolVersion: IGGY_PROTOCOL_VERSION, serverProtocolVersionMin: IGGY_PROTOCOL_VERSION & ~0x3ff }));
      this.#conn.end();
      return;
    }
    const c = request.credentials;
    const outcome = 'token' in c ? this.#ctx.users.loginWithToken(c.token) : this.#ctx.users.login(c.username, c.password);
    // Iggy 0.9 folds a password login's inactive user into InvalidCredentials so it reveals no
    // account state; only a token login reports UserInactive.
    if (!outcome.ok) return this.#evict(header, 'token' in c ? (outcome.reason === 'inactive' ? EvictionReason.UserInactive : EvictionReason.InvalidToken) : EvictionReason.InvalidCredentials);
    const userId = outcome.userId;
    const session = this.#ctx.nextSession();
    const reply = encodeRegisterReply({ userId, session, serverProtocolVersion: IGGY_PROTOCOL_VERSION, serverVersion: SERVER_VERSION });
    this.#conn.setAuthenticated(true);
    this.#conn.send(this.#session.bind(header, userId, session, reply));
  }

  /** A failed login: counted by the login guard, and the eviction goes out after its delay. */
  #evict(header: VsrRequestHeader, reason: number): void {
    const eviction = this.#session.evict(header.client, reason);
    const failure = this.#conn.logins.failed();
    this.#conn.hold(failure.delayMs, () => {
      this.#conn.send(eviction);
      this.#conn.end();
    });
  }

  #execute(header: VsrRequestHeader, body: Uint8Array, code: number): void {
    if (code === CommandCode.LogoutUser) {
      this.#ctx.connectionClosed(this.#conn.clientId);
      this.#conn.setAuthenticated(false);
      this.#conn.send(this.#session.reply(header));
      return;
    }
    const op = header.operation;
    let payload: Uint8Array;
    try {
      if (refusedOnBackup(code) && !this.#ctx.isPrimary()) throw new IggyError(TRANSIENT_NOT_ACCEPTED);
      payload = executeCommand(this.#ctx, { clientId: this.#conn.clientId, userId: this.#session.userId, address: this.#conn.address, protocol: 'vsr' }, code, body);
    } catch (error) {
      let status = statusOf(error, 'vsr');
      if (op === Operation.DeleteSegments && !(error instanceof IggyError)) {
        // Iggy acks an undecodable DeleteSegments empty and unframed, under its own operation.
        this.#conn.send(this.#session.reply(header));
        return;
      }
      if (isPartitionOperation(op)) {
        if (ROUTING_FAILURES.has(status)) status = RESOURCE_NOT_FOUND;
        this.#conn.send(this.#session.reply(header, { status }));
      } else if (isMetadataOperation(op) && !refusedBeforeConsensus(op, status)) {
        this.#conn.send(this.#session.reply(header, { results: [{ index: 0, code: status }], operation: committedAs(op) }));
      } else {
        this.#conn.send(this.#session.reply(header, { status }));
      }
      return;
    }
    this.#conn.send(this.#session.reply(header, { payload: op === Operation.StoreConsumerOffset || op === Operation.DeleteConsumerOffset ? new Uint8Array(0) : payload, operation: committedAs(op) }));
  }
}
