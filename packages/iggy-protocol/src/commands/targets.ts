/**
 * Requests whose body is only identifiers. One codec per shape:
 * - stream: GetStream, DeleteStream, PurgeStream, GetTopics;
 * - topic: GetTopic, DeleteTopic, PurgeTopic, GetConsumerGroups;
 * - group: GetConsumerGroup, DeleteConsumerGroup, JoinConsumerGroup, LeaveConsumerGroup,
 *   SyncConsumerGroup.
 */

import { ByteReader } from '../internal/byte-reader.js';
import { ByteWriter } from '../internal/byte-writer.js';
import type { Identifier } from './primitives.js';
import { readIdentifier, writeIdentifier } from './primitives.js';

/** A stream. */
export interface StreamTarget {
  /** The stream. */
  readonly stream: Identifier;
}

/** A topic of a stream. */
export interface TopicTarget extends StreamTarget {
  /** The topic. */
  readonly topic: Identifier;
}

/** A consumer group of a topic. */
export interface GroupTarget extends TopicTarget {
  /** The consumer group. */
  readonly group: Identifier;
}

/** Encodes `[stream]`. */
export function encodeStreamTarget(t: StreamTarget): Uint8Array {
  const w = new ByteWriter(16);
  writeIdentifier(w, t.stream, 'stream');
  return w.finish().slice();
}

/** Decodes `[stream]`. */
export function decodeStreamTarget(payload: Uint8Array): StreamTarget {
  const r = new ByteReader(payload, 'stream request');
  const stream = readIdentifier(r, 'stream');
  r.end();
  return { stream };
}

/** Encodes `[stream][topic]`. */
export function encodeTopicTarget(t: TopicTarget): Uint8Array {
  const w = new ByteWriter(32);
  writeIdentifier(w, t.stream, 'stream');
  writeIdentifier(w, t.topic, 'topic');
  return w.finish().slice();
}

/** Decodes `[stream][topic]`. */
export function decodeTopicTarget(payload: Uint8Array): TopicTarget {
  const r = new ByteReader(payload, 'topic request');
  const stream = readIdentifier(r, 'stream');
  const topic = readIdentifier(r, 'topic');
  r.end();
  return { stream, topic };
}

/** Encodes `[stream][topic][group]`. */
export function encodeGroupTarget(t: GroupTarget): Uint8Array {
  const w = new ByteWriter(48);
  writeIdentifier(w, t.stream, 'stream');
  writeIdentifier(w, t.topic, 'topic');
  writeIdentifier(w, t.group, 'group');
  return w.finish().slice();
}

/** Decodes `[stream][topic][group]`. */
export function decodeGroupTarget(payload: Uint8Array): GroupTarget {
  const r = new ByteReader(payload, 'consumer group request');
  const stream = readIdentifier(r, 'stream');
  const topic = readIdentifier(r, 'topic');
  const group = readIdentifier(r, 'group');
  r.end();
  return { stream, topic, group };
}
