/** FlushUnsavedBuffer (102): `[stream][topic][partition_id u32][fsync u8]` in both generations. */

import { ByteReader } from '../internal/byte-reader.js';
import { ByteWriter } from '../internal/byte-writer.js';
import { checkU32 } from '../internal/checks.js';
import type { Identifier } from './primitives.js';
import { readIdentifier, writeIdentifier } from './primitives.js';

/** Write a partition's buffered messages to disk, optionally with an fsync. */
export interface FlushUnsavedBufferRequest {
  /** The stream. */
  readonly stream: Identifier;
  /** The topic. */
  readonly topic: Identifier;
  /** The partition (0-based). */
  readonly partitionId: number;
  /** Also fsync the written data. */
  readonly fsync: boolean;
}

/** Encodes FlushUnsavedBuffer. */
export function encodeFlushUnsavedBufferRequest(req: FlushUnsavedBufferRequest): Uint8Array {
  const w = new ByteWriter(40);
  writeIdentifier(w, req.stream, 'stream');
  writeIdentifier(w, req.topic, 'topic');
  w.u32(checkU32(req.partitionId, 'partitionId')).u8(req.fsync ? 1 : 0);
  return w.finish().slice();
}

/** Decodes FlushUnsavedBuffer (server side); any non-zero fsync byte means true, as in Iggy. */
export function decodeFlushUnsavedBufferRequest(payload: Uint8Array): FlushUnsavedBufferRequest {
  const r = new ByteReader(payload, 'FlushUnsavedBuffer');
  const stream = readIdentifier(r, 'stream');
  const topic = readIdentifier(r, 'topic');
  const partitionId = r.u32('partitionId');
  const fsync = r.u8('fsync') !== 0;
  r.end();
  return { stream, topic, partitionId, fsync };
}
