/**
 * GetClient (21), GetClients (22) and DescribeOptions (13): what the server knows about its
 * connections and which option keys it accepts. Replies follow Iggy's shapes; the values are
 * this server's own (its connections, its option catalog), never a real server's defaults.
 */

import {
  HEADER_KIND_CODES,
  IggyError,
  NO_USER_ID,
  OptionsScope,
  encodeClientDetails,
  encodeClientList,
  encodeOptionDescriptors,
  headerValue,
} from '@agdx/iggy-protocol';
import type { HeaderValue, IggyProtocol, OptionDescriptor } from '@agdx/iggy-protocol';
import type { Broker } from '../log/broker.js';
import { decodeGetClientRequest } from './request-decoders.js';

/** A connection as GetClient and GetClients report it. */
export interface ConnectedClient {
  /** The server's id of the connection. */
  readonly clientId: number;
  /** The logged-in user, undefined before login. */
  readonly userId: number | undefined;
  /** The peer address. */
  readonly address: string;
}

/** Iggy's transport code for TCP, the only transport this server has. */
const TCP = 1;
/** Iggy refuses GetClient for client id 0 (InvalidClientId). */
const INVALID_CLIENT_ID = 101;

/**
 * GetClient: the client's details with its group memberships, an empty body when unknown.
 * Iggy 0.9 also answers an undecodable body with the empty "not found"; 0.8 refuses it.
 */
export function getClient(broker: Broker, clients: Iterable<ConnectedClient>, payload: Uint8Array, protocol: IggyProtocol): Uint8Array {
  let clientId: number;
  try {
    clientId = decodeGetClientRequest(payload).clientId;
  } catch (error) {
    if (protocol === 'vsr') return new Uint8Array(0);
    throw error;
  }
  // 0.8 refuses id 0 outright; 0.9 just finds no such client.
  if (clientId === 0 && protocol === 'classic') throw new IggyError(INVALID_CLIENT_ID);
  for (const c of clients) {
    if (c.clientId !== clientId) continue;
    return encodeClientDetails({ clientId: c.clientId, userId: c.userId ?? NO_USER_ID, transport: TCP, address: c.address, consumerGroups: broker.membershipsOf(c.clientId) });
  }
  return new Uint8Array(0);
}

/** GetClients: every open connection, logged in or not, in connection order. */
export function getClients(broker: Broker, clients: Iterable<ConnectedClient>): Uint8Array {
  return encodeClientList(
    [...clients].map((c) => ({ clientId: c.clientId, userId: c.userId ?? NO_USER_ID, transport: TCP, address: c.address, consumerGroupsCount: broker.membershipsOf(c.clientId).length })),
  );
}

function descriptor(key: string, value: HeaderValue, description: string): OptionDescriptor {
  return { key, kindCode: HEADER_KIND_CODES[value.kind], defaultValue: value.value, description };
}

/**
 * The topic options this server accepts, with the defaults it applies. Streams and users have
 * no option keys (as in Iggy 0.9), so their catalogs are empty.
 */
export function describeOptions(scope: OptionsScope, segmentBytes: number): Uint8Array {
  if (scope !== OptionsScope.Topic) return encodeOptionDescriptors([]);
  return encodeOptionDescriptors([
    descriptor('compression_algorithm', headerValue.string('none'), 'Compression algorithm (none, gzip); recorded and reported back, never applied'),
    descriptor('message_expiry', headerValue.uint64(0n), 'Message expiry in microseconds or a duration text such as "7 days"; 0 = never'),
    descriptor('max_topic_size', headerValue.uint64(0n), 'Topic size cap in bytes or a size text such as "1 GiB"; 0 = unlimited; each partition keeps an equal share, its oldest segments (in memory batches) deleted at the append that passes it'),
    descriptor('segment_size', headerValue.uint64(BigInt(segmentBytes)), 'Segment size in bytes; recorded, the server rolls segments at its own segment size (the default shown)'),
    descriptor('enforce_fsync', headerValue.bool(false), 'Recorded; the server-wide fsync policy applies'),
    descriptor('messages_required_to_save', headerValue.uint32(0), 'Recorded; every acknowledged batch is already written'),
    descriptor('size_of_messages_required_to_save', headerValue.uint64(0n), 'Recorded; every acknowledged batch is already written'),
    descriptor('preallocate_segments', headerValue.bool(false), 'Recorded; segments are never preallocated'),
  ]);
}
