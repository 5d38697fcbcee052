/** DeleteSegments (503): `[stream][topic][partition_id u32][segments_count u32]` in both generations. */

import { ByteReader } from '../internal/byte-reader.js';
import { ByteWriter } from '../internal/byte-writer.js';
import { checkU32 } from '../internal/checks.js';
import type { Identifier } from './primitives.js';
import { readIdentifier, writeIdentifier } from './primitives.js';

/** Delete the oldest `segmentsCount` sealed segments of one partition. */
export interface DeleteSegmentsRequest {
  /** The stream. */
  readonly stream: Identifier;
  /** The topic. */
  readonly topic: Identifier;
  /** The partition (0-based). */
  readonly partitionId: number;
  /** How many of the oldest segments to delete. */
  readonly segmentsCount: number;
}

/** Encodes DeleteSegments. */
export function encodeDeleteSegmentsRequest(req: DeleteSegmentsRequest): Uint8Array {
  const w = new ByteWriter(40);
  writeIdentifier(w, req.stream, 'stream');
  writeIdentifier(w, req.topic, 'topic');
  w.u32(checkU32(req.partitionId, 'partitionId')).u32(checkU32(req.segmentsCount, 'segmentsCount'));
  return w.finish().slice();
}

/** Decodes DeleteSegments (server side). */
export function decodeDeleteSegmentsRequest(payload: Uint8Array): DeleteSegmentsRequest {
  const r = new ByteReader(payload, 'DeleteSegments');
  const stream = readIdentifier(r, 'stream');
  const topic = readIdentifier(r, 'topic');
  const partitionId = r.u32('partitionId');
  const segmentsCount = r.u32('segmentsCount');
  r.end();
  return { stream, topic, partitionId, segmentsCount };
}
