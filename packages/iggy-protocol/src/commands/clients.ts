/**
 * GetClient (21) and GetClients (22). GetClient's request is `[client_id u32]` and its reply a
 * `ClientDetails` (see `system.ts`), or an empty body when no such client is connected.
 * GetClients answers the `ClientHeader`s of every connection back to back, with no count:
 * `[client_id u32][user_id u32][transport u8][address_len u32][address][consumer_groups_count u32]`.
 */

import { ByteReader } from '../internal/byte-reader.js';
import { ByteWriter, encodeUtf8 } from '../internal/byte-writer.js';
import { checkU32, checkU8 } from '../internal/checks.js';

/** The user id Iggy reports for a connection that has not logged in. */
export const NO_USER_ID = 0xffff_ffff;

/** One connected client as GetClients lists it. */
export interface ClientInfo {
  /** The server's id of the connection. */
  readonly clientId: number;
  /** The logged-in user, or {@link NO_USER_ID}. */
  readonly userId: number;
  /** 1 = TCP, 2 = QUIC, 3 = HTTP, 4 = WebSocket. */
  readonly transport: number;
  /** The peer address. */
  readonly address: string;
  /** How many consumer groups the client is a member of. */
  readonly consumerGroupsCount: number;
}

/** Encodes GetClient's request. */
export function encodeGetClientRequest(clientId: number): Uint8Array {
  return new ByteWriter(4).u32(checkU32(clientId, 'clientId')).finish().slice();
}

/** Decodes GetClient's request (server side). */
export function decodeGetClientRequest(payload: Uint8Array): { readonly clientId: number } {
  const r = new ByteReader(payload, 'GetClient');
  const clientId = r.u32('clientId');
  r.end();
  return { clientId };
}

/** Encodes the GetClients reply (server side). */
export function encodeClientList(clients: readonly ClientInfo[]): Uint8Array {
  const w = new ByteWriter(32 * clients.length + 8);
  for (const c of clients) {
    const address = encodeUtf8(c.address);
    w.u32(checkU32(c.clientId, 'clientId')).u32(checkU32(c.userId, 'userId')).u8(checkU8(c.transport, 'transport'));
    w.u32(address.length).bytes(address).u32(checkU32(c.consumerGroupsCount, 'consumerGroupsCount'));
  }
  return w.finish().slice();
}

/** Decodes the GetClients reply: headers until the body ends. */
export function decodeClientList(payload: Uint8Array): ClientInfo[] {
  const r = new ByteReader(payload, 'GetClients');
  const out: ClientInfo[] = [];
  while (r.remaining > 0) {
    const clientId = r.u32('clientId');
    const userId = r.u32('userId');
    const transport = r.u8('transport');
    const address = r.longString('address');
    const consumerGroupsCount = r.u32('consumerGroupsCount');
    out.push({ clientId, userId, transport, address, consumerGroupsCount });
  }
  return out;
}
