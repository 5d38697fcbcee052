/**
 * The permissions structure carried by CreateUser (33), UpdatePermissions (36) and the user
 * details reply, identical in both protocol generations
 * (`core/binary_protocol/src/primitives/permissions.rs`):
 *
 * `[10 global flags u8][has_streams u8]` then, per stream,
 * `[stream_id u32][6 flags u8][has_topics u8]{[topic_id u32][4 flags u8][has_next_topic u8]}*[has_next_stream u8]`.
 */

import type { ByteReader } from '../internal/byte-reader.js';
import type { ByteWriter } from '../internal/byte-writer.js';
import { checkU32 } from '../internal/checks.js';

/** Server-wide permissions (the ten global flags, in wire order). */
export interface GlobalPermissions {
  /** Manage the server (implies reading it). */
  readonly manageServers: boolean;
  /** Read server state: stats, clients, snapshot. */
  readonly readServers: boolean;
  /** Create, update and delete users, their permissions and passwords. */
  readonly manageUsers: boolean;
  /** Read users. */
  readonly readUsers: boolean;
  /** Create, update, delete and purge every stream. */
  readonly manageStreams: boolean;
  /** Read every stream. */
  readonly readStreams: boolean;
  /** Create, update, delete and purge every topic, partition, segment and consumer group. */
  readonly manageTopics: boolean;
  /** Read every topic and consumer group. */
  readonly readTopics: boolean;
  /** Poll messages from every topic. */
  readonly pollMessages: boolean;
  /** Send messages to every topic. */
  readonly sendMessages: boolean;
}

/** Permissions on one topic of a stream. */
export interface TopicPermissions {
  /** The topic's numeric id. */
  readonly topicId: number;
  /** Manage the topic. */
  readonly manageTopic: boolean;
  /** Read the topic. */
  readonly readTopic: boolean;
  /** Poll from the topic. */
  readonly pollMessages: boolean;
  /** Send to the topic. */
  readonly sendMessages: boolean;
}

/** Permissions on one stream and, optionally, some of its topics. */
export interface StreamPermissions {
  /** The stream's numeric id. */
  readonly streamId: number;
  /** Manage the stream. */
  readonly manageStream: boolean;
  /** Read the stream. */
  readonly readStream: boolean;
  /** Manage every topic of the stream. */
  readonly manageTopics: boolean;
  /** Read every topic of the stream. */
  readonly readTopics: boolean;
  /** Poll from every topic of the stream. */
  readonly pollMessages: boolean;
  /** Send to every topic of the stream. */
  readonly sendMessages: boolean;
  /** Per-topic permissions (may be empty). */
  readonly topics: readonly TopicPermissions[];
}

/** A user's permissions: global flags plus per-stream grants. */
export interface Permissions {
  /** Server-wide flags. */
  readonly global: GlobalPermissions;
  /** Per-stream grants (may be empty). */
  readonly streams: readonly StreamPermissions[];
}

const GLOBAL_KEYS = [
  'manageServers',
  'readServers',
  'manageUsers',
  'readUsers',
  'manageStreams',
  'readStreams',
  'manageTopics',
  'readTopics',
  'pollMessages',
  'sendMessages',
] as const satisfies readonly (keyof GlobalPermissions)[];

const STREAM_KEYS = ['manageStream', 'readStream', 'manageTopics', 'readTopics', 'pollMessages', 'sendMessages'] as const satisfies readonly (keyof StreamPermissions)[];

const TOPIC_KEYS = ['manageTopic', 'readTopic', 'pollMessages', 'sendMessages'] as const satisfies readonly (keyof TopicPermissions)[];

/** Global permissions with every flag set to `value` (the root user holds all of them). */
export function globalPermissions(value: boolean): GlobalPermissions {
  return Object.fromEntries(GLOBAL_KEYS.map((k) => [k, value])) as unknown as GlobalPermissions;
}

function flag(w: ByteWriter, v: boolean): void {
  w.u8(v === true ? 1 : 0);
}

// Iggy reads every flag and continuation byte as "non-zero is true", so this does too.
function readFlag(r: ByteReader, field: string): boolean {
  return r.u8(field) !== 0;
}

/** Bytes the permissions structure takes on the wire. */
export function permissionsSize(p: Permissions): number {
  let size = GLOBAL_KEYS.length + 1;
  for (const s of p.streams) size += 4 + STREAM_KEYS.length + 1 + s.topics.length * (4 + TOPIC_KEYS.length + 1) + 1;
  return size;
}

/** Writes the permissions structure (no length prefix). */
export function writePermissions(w: ByteWriter, p: Permissions): void {
  for (const k of GLOBAL_KEYS) flag(w, p.global[k]);
  flag(w, p.streams.length > 0);
  p.streams.forEach((s, i) => {
    w.u32(checkU32(s.streamId, 'permissions.streams.streamId'));
    for (const k of STREAM_KEYS) flag(w, s[k]);
    flag(w, s.topics.length > 0);
    s.topics.forEach((t, j) => {
      w.u32(checkU32(t.topicId, 'permissions.topics.topicId'));
      for (const k of TOPIC_KEYS) flag(w, t[k]);
      flag(w, j < s.topics.length - 1);
    });
    flag(w, i < p.streams.length - 1);
  });
}

/**
 * Reads the permissions structure. Every stream and topic entry consumes at least ten bytes, so
 * the loops are bounded by the input length.
 */
export function readPermissions(r: ByteReader): Permissions {
  const global = Object.fromEntries(GLOBAL_KEYS.map((k) => [k, readFlag(r, `permissions.global.${k}`)])) as unknown as GlobalPermissions;
  const streams: StreamPermissions[] = [];
  let more = readFlag(r, 'permissions.hasStreams');
  while (more) {
    const streamId = r.u32('permissions.streams.streamId');
    const flags = Object.fromEntries(STREAM_KEYS.map((k) => [k, readFlag(r, `permissions.streams.${k}`)]));
    const topics: TopicPermissions[] = [];
    let moreTopics = readFlag(r, 'permissions.streams.hasTopics');
    while (moreTopics) {
      const topicId = r.u32('permissions.topics.topicId');
      const topicFlags = Object.fromEntries(TOPIC_KEYS.map((k) => [k, readFlag(r, `permissions.topics.${k}`)]));
      topics.push({ topicId, ...topicFlags } as unknown as TopicPermissions);
      moreTopics = readFlag(r, 'permissions.topics.hasNext');
    }
    streams.push({ streamId, ...flags, topics } as unknown as StreamPermissions);
    more = readFlag(r, 'permissions.streams.hasNext');
  }
  return { global, streams };
}

/**
 * Writes the optional, length-prefixed permissions of CreateUser and UpdatePermissions:
 * `[0]` when absent, else `[1][len u32][permissions]`.
 */
export function writeOptionalPermissions(w: ByteWriter, p: Permissions | undefined): void {
  if (p === undefined) {
    w.u8(0);
    return;
  }
  w.u8(1).u32(permissionsSize(p));
  writePermissions(w, p);
}

/**
 * Reads the optional permissions of CreateUser and UpdatePermissions. Like Iggy, only a flag of
 * exactly 1 means present, and the declared length must equal the bytes the structure used.
 */
export function readOptionalPermissions(r: ByteReader): Permissions | undefined {
  if (r.u8('permissions.flag') !== 1) return undefined;
  const declared = r.u32('permissions.length');
  const start = r.pos;
  const p = readPermissions(r);
  if (r.pos - start !== declared) throw r.fail(`permissions length says ${declared} bytes, the structure used ${r.pos - start}`, 'permissions.length');
  return p;
}
