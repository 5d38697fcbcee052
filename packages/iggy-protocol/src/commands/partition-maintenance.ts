/**
 * Requests addressed to one partition for maintenance, both generations:
 * - DeleteSegments (503): `[stream][topic][partition_id u32][segments_count u32]`;
 * - FlushUnsavedBuffer (102): `[stream][topic][partition_id u32][fsync u8]`.
 */

import { ByteReader } from '../internal/byte-reader.js';
import { ByteWriter } from '../internal/byte-writer.js';
import { checkU32 } from '../internal/checks.js';
import type { Identifier } from './primitives.js';
import { readIdentifier, writeIdentifier } from './primitives.js';

/** One partition of a topic. */
export interface PartitionTarget {
  /** The stream. */
  readonly stream: Identifier;
  /** The topic. */
  readonly topic: Identifier;
  /** The partition (0-based). */
  readonly partitionId: number;
}

/** Delete the oldest `segmentsCount` sealed segments of one partition. */
export interface DeleteSegmentsRequest extends PartitionTarget {
  /** How many of the oldest segments to delete. */
  readonly segmentsCount: number;
}

/** Write a partition's buffered messages to disk, optionally with an fsync. */
export interface FlushUnsavedBufferRequest extends PartitionTarget {
  /** Also fsync the written data. */
  readonly fsync: boolean;
}

function writeTarget(t: PartitionTarget): ByteWriter {
  const w = new ByteWriter(40);
  writeIdentifier(w, t.stream, 'stream');
  writeIdentifier(w, t.topic, 'topic');
  return w.u32(checkU32(t.partitionId, 'partitionId'));
}

function readTarget(r: ByteReader): PartitionTarget {
  const stream = readIdentifier(r, 'stream');
  const topic = readIdentifier(r, 'topic');
  return { stream, topic, partitionId: r.u32('partitionId') };
}

/** Encodes DeleteSegments. */
export function encodeDeleteSegmentsRequest(req: DeleteSegmentsRequest): Uint8Array {
  return writeTarget(req).u32(checkU32(req.segmentsCount, 'segmentsCount')).finish().slice();
}

/** Decodes DeleteSegments (server side). */
export function decodeDeleteSegmentsRequest(payload: Uint8Array): DeleteSegmentsRequest {
  const r = new ByteReader(payload, 'DeleteSegments');
  const target = readTarget(r);
  const segmentsCount = r.u32('segmentsCount');
  r.end();
  return { ...target, segmentsCount };
}

/** Encodes FlushUnsavedBuffer. */
export function encodeFlushUnsavedBufferRequest(req: FlushUnsavedBufferRequest): Uint8Array {
  return writeTarget(req).u8(req.fsync ? 1 : 0).finish().slice();
}

/** Decodes FlushUnsavedBuffer (server side); any non-zero fsync byte means true, as in Iggy. */
export function decodeFlushUnsavedBufferRequest(payload: Uint8Array): FlushUnsavedBufferRequest {
  const r = new ByteReader(payload, 'FlushUnsavedBuffer');
  const target = readTarget(r);
  const fsync = r.u8('fsync') !== 0;
  r.end();
  return { ...target, fsync };
}
