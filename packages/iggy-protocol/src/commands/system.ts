/** GetMe (20) reply: the caller's client details. Ping (1) and Logout (39) have empty bodies. */

import { ByteReader } from '../internal/byte-reader.js';
import { ByteWriter, encodeUtf8 } from '../internal/byte-writer.js';
import { checkU32, checkU8 } from '../internal/checks.js';

/** A consumer group membership of a client. */
export interface ClientGroupMembership {
  /** Stream id. */
  readonly streamId: number;
  /** Topic id. */
  readonly topicId: number;
  /** Group id. */
  readonly groupId: number;
}

/** ClientDetails (GetMe): the ClientHeader plus group memberships. */
export interface ClientDetails {
  /** The server's id of this connection. */
  readonly clientId: number;
  /** The authenticated user (0 = root). */
  readonly userId: number;
  /** 1 = TCP, 2 = QUIC, 3 = HTTP, 4 = WebSocket. */
  readonly transport: number;
  /** The peer address. */
  readonly address: string;
  /** Consumer groups joined. */
  readonly consumerGroups: readonly ClientGroupMembership[];
}

/** Encodes ClientDetails (server side). */
export function encodeClientDetails(c: ClientDetails): Uint8Array {
  const w = new ByteWriter(64);
  const address = encodeUtf8(c.address);
  w.u32(checkU32(c.clientId, 'clientId')).u32(checkU32(c.userId, 'userId')).u8(checkU8(c.transport, 'transport'));
  w.u32(address.length).bytes(address).u32(checkU32(c.consumerGroups.length, 'consumerGroups'));
  for (const g of c.consumerGroups) w.u32(checkU32(g.streamId, 'streamId')).u32(checkU32(g.topicId, 'topicId')).u32(checkU32(g.groupId, 'groupId'));
  return w.finish().slice();
}

/** Decodes ClientDetails. */
export function decodeClientDetails(payload: Uint8Array): ClientDetails {
  const r = new ByteReader(payload, 'ClientDetails');
  const clientId = r.u32('clientId');
  const userId = r.u32('userId');
  const transport = r.u8('transport');
  const address = r.longString('address');
  const count = r.u32('consumerGroupsCount');
  r.need(count * 12, 'consumerGroups');
  const consumerGroups: ClientGroupMembership[] = [];
  for (let i = 0; i < count; i++) consumerGroups.push({ streamId: r.u32('streamId'), topicId: r.u32('topicId'), groupId: r.u32('groupId') });
  r.end();
  return { clientId, userId, transport, address, consumerGroups };
}
