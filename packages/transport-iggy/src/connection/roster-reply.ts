/**
 * Reads the cluster metadata a node sends after login, within limits checked before decoding:
 * Iggy clusters have a handful of nodes, and a roster of thousands (up to a frame's 64 MiB)
 * would cost memory on every login and a dial per entry on every failover pass.
 */

import { TransportFailureError } from '@agdx/transport';
import { decodeClusterMetadata } from '@agdx/iggy-protocol';
import type { ClusterMetadata } from '@agdx/iggy-protocol';
import type { Endpoint } from '../cluster-directory.js';

/** The largest cluster roster accepted, in nodes. */
export const MAX_ROSTER_NODES = 64;
/** The largest cluster metadata reply accepted, in bytes (checked before decoding). */
export const MAX_ROSTER_BYTES: number = 256 * 1024;

/** Decodes a GetClusterMetadata reply from `endpoint`; throws `TransportFailureError` if it is malformed or too large. */
export function readRosterReply(payload: Uint8Array, endpoint: Endpoint): ClusterMetadata {
  const { host, port } = endpoint;
  const malformed = (why: string, cause?: unknown): TransportFailureError =>
    new TransportFailureError(`the Iggy server at ${host}:${port} sent malformed cluster metadata (${why})`, { cause, context: { host, port } });
  if (payload.length > MAX_ROSTER_BYTES) throw malformed(`${payload.length} bytes, more than ${MAX_ROSTER_BYTES}`);
  let metadata: ClusterMetadata;
  try {
    metadata = decodeClusterMetadata(payload);
  } catch (cause) {
    throw malformed('it does not decode', cause);
  }
  if (metadata.nodes.length > MAX_ROSTER_NODES) throw malformed(`${metadata.nodes.length} nodes, more than ${MAX_ROSTER_NODES}`);
  return metadata;
}
