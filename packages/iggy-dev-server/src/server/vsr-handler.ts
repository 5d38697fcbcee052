/**
 * The VSR (Iggy 0.9, binary protocol 0.11) side of a connection. Header rules, session binding,
 * deduplication and evictions come from `VsrServerSession`; this file authenticates Register
 * bodies and maps command outcomes onto the reply shapes of the real server: metadata
 * operations carry refusals in the result section, partition operations (send, store and
 * delete offset) as status 20 for any routing failure, the rest as a header status.
 */

import {
  CommandCode,
  EvictionReason,
  IGGY_PROTOCOL_VERSION,
  IggyError,
  Operation,
  VsrFrameSplitter,
  VsrServerSession,
  decodeRegisterRequest,
  decodeVsrRequestFrame,
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
import { refusedOnBackup, TRANSIENT_NOT_ACCEPTED } from '../cluster/backup-gate.js';

/** Codes a VSR partition operation reports as status 20 (ResourceNotFound), as Iggy 0.9 does. */
const ROUTING_FAILURES: ReadonlySet<number> = new Set([4, 1009, 2010, 3007, 5000, 5006, 5009]);
const RESOURCE_NOT_FOUND = 20;
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

  stale(): Uint8Array | undefined {
    return this.#session.state === 'bound' ? this.#session.evict(this.#session.clientId, EvictionReason.StaleClient) : undefined;
  }

  #register(header: VsrRequestHeader, body: Uint8Array): void {
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
    let userId: number | undefined;
    if ('token' in c) {
      userId = this.#ctx.tokens.get(c.token);
      if (userId === undefined) return this.#evict(header, EvictionReason.InvalidToken);
    } else {
      const user = this.#ctx.users.get(c.username);
      // Wrong user, wrong password and out-of-range lengths all look the same (reason 9).
      if (user === undefined || user.password !== c.password) return this.#evict(header, EvictionReason.InvalidCredentials);
      userId = user.id;
    }
    const session = this.#ctx.nextSession();
    const reply = encodeRegisterReply({ userId, session, serverProtocolVersion: IGGY_PROTOCOL_VERSION, serverVersion: SERVER_VERSION });
    this.#conn.send(this.#session.bind(header, userId, session, reply));
  }

  #evict(header: VsrRequestHeader, reason: number): void {
    this.#conn.send(this.#session.evict(header.client, reason));
    this.#conn.end();
  }

  #execute(header: VsrRequestHeader, body: Uint8Array, code: number): void {
    if (code === CommandCode.LogoutUser) {
      this.#ctx.connectionClosed(this.#conn.clientId);
      this.#conn.send(this.#session.reply(header));
      return;
    }
    const op = header.operation;
    let payload: Uint8Array;
    try {
      if (refusedOnBackup(code) && !this.#ctx.isPrimary()) throw new IggyError(TRANSIENT_NOT_ACCEPTED);
      payload = executeCommand(this.#ctx, { clientId: this.#conn.clientId, userId: this.#session.userId, address: this.#conn.address, protocol: 'vsr' }, code, body);
    } catch (error) {
      let status = statusOf(error);
      if (isPartitionOperation(op)) {
        if (ROUTING_FAILURES.has(status)) status = RESOURCE_NOT_FOUND;
        this.#conn.send(this.#session.reply(header, { status }));
      } else if (isMetadataOperation(op)) {
        this.#conn.send(this.#session.reply(header, { results: [{ index: 0, code: status }] }));
      } else {
        this.#conn.send(this.#session.reply(header, { status }));
      }
      return;
    }
    this.#conn.send(this.#session.reply(header, { payload: op === Operation.StoreConsumerOffset || op === Operation.DeleteConsumerOffset ? new Uint8Array(0) : payload }));
  }
}
