/**
 * Iggy permissions from the command line: `--global` takes a comma list of global flags (or
 * `all`), `--stream ID:flags` grants on one stream, `--topic STREAM/TOPIC:flags` on one topic.
 * Flags are kebab-case (`read-streams`, `poll-messages`); unnamed flags are off.
 */

import type { GlobalPermissions, Permissions, StreamPermissions, TopicPermissions } from '@agdx/transport-iggy';
import { UsageError } from './errors.js';

const GLOBAL = {
  'manage-servers': 'manageServers',
  'read-servers': 'readServers',
  'manage-users': 'manageUsers',
  'read-users': 'readUsers',
  'manage-streams': 'manageStreams',
  'read-streams': 'readStreams',
  'manage-topics': 'manageTopics',
  'read-topics': 'readTopics',
  'poll-messages': 'pollMessages',
  'send-messages': 'sendMessages',
} as const satisfies Record<string, keyof GlobalPermissions>;

const STREAM = {
  'manage-stream': 'manageStream',
  'read-stream': 'readStream',
  'manage-topics': 'manageTopics',
  'read-topics': 'readTopics',
  'poll-messages': 'pollMessages',
  'send-messages': 'sendMessages',
} as const satisfies Record<string, keyof Omit<StreamPermissions, 'streamId' | 'topics'>>;

const TOPIC = {
  'manage-topic': 'manageTopic',
  'read-topic': 'readTopic',
  'poll-messages': 'pollMessages',
  'send-messages': 'sendMessages',
} as const satisfies Record<string, keyof Omit<TopicPermissions, 'topicId'>>;

/** The flag names each scope accepts, for help texts. */
export const PERMISSION_FLAGS: { readonly global: readonly string[]; readonly stream: readonly string[]; readonly topic: readonly string[] } = {
  global: Object.keys(GLOBAL),
  stream: Object.keys(STREAM),
  topic: Object.keys(TOPIC),
};

/** Turns a comma list into an object with every flag of `table` set to whether it was named. */
function flags<T extends Record<string, string>>(list: string, table: T, option: string): Record<T[keyof T], boolean> {
  const names = list === 'all' ? Object.keys(table) : list.split(',').map((n) => n.trim()).filter((n) => n !== '');
  const out = Object.fromEntries(Object.values(table).map((k) => [k, false])) as Record<T[keyof T], boolean>;
  for (const name of names) {
    const key = table[name] as T[keyof T] | undefined;
    if (key === undefined) throw new UsageError(`${option}: unknown permission "${name}" (one of ${Object.keys(table).join(', ')}, or all)`);
    out[key] = true;
  }
  return out;
}

function id(text: string, what: string, option: string): number {
  if (!/^\d{1,10}$/.test(text) || Number(text) > 0xffff_ffff) throw new UsageError(`${option}: ${what} must be a numeric id, got "${text}"`);
  return Number(text);
}

function split(spec: string, option: string): [string, string] {
  const at = spec.lastIndexOf(':');
  if (at <= 0) throw new UsageError(`${option} must look like ${option === '--stream' ? 'ID:flag,flag' : 'STREAM/TOPIC:flag,flag'}, got "${spec}"`);
  return [spec.slice(0, at), spec.slice(at + 1)];
}

/** Builds permissions from `--global`, `--stream` and `--topic` values; `undefined` when none was given. */
export function permissionsFrom(global: string | undefined, streams: readonly string[], topics: readonly string[]): Permissions | undefined {
  if (global === undefined && streams.length === 0 && topics.length === 0) return undefined;
  const byStream = new Map<number, { flags: Record<string, boolean>; topics: TopicPermissions[] }>();
  const streamOf = (streamId: number): { flags: Record<string, boolean>; topics: TopicPermissions[] } => {
    let entry = byStream.get(streamId);
    if (entry === undefined) byStream.set(streamId, (entry = { flags: flags('', STREAM, '--stream'), topics: [] }));
    return entry;
  };
  for (const spec of streams) {
    const [target, list] = split(spec, '--stream');
    Object.assign(streamOf(id(target, 'the stream', '--stream')).flags, flags(list, STREAM, '--stream'));
  }
  for (const spec of topics) {
    const [target, list] = split(spec, '--topic');
    const [s, t, ...rest] = target.split('/');
    if (s === undefined || t === undefined || rest.length > 0) throw new UsageError(`--topic must look like STREAM/TOPIC:flag,flag, got "${spec}"`);
    streamOf(id(s, 'the stream', '--topic')).topics.push({ topicId: id(t, 'the topic', '--topic'), ...flags(list, TOPIC, '--topic') });
  }
  return {
    global: flags(global ?? '', GLOBAL, '--global'),
    streams: [...byStream].map(([streamId, e]) => ({ streamId, ...(e.flags as Omit<StreamPermissions, 'streamId' | 'topics'>), topics: e.topics })),
  };
}

/** Permissions as lines of text (`global: read-streams, …`, `stream 1: …`, `topic 1/2: …`). */
export function describePermissions(p: Permissions | undefined): string[] {
  if (p === undefined) return ['none'];
  const named = (table: Record<string, string>, value: object): string => {
    const on = Object.entries(table).filter(([, key]) => (value as Record<string, unknown>)[key] === true).map(([name]) => name);
    return on.length === 0 ? '-' : on.join(', ');
  };
  const lines = [`global: ${named(GLOBAL, p.global)}`];
  for (const s of p.streams) {
    lines.push(`stream ${s.streamId}: ${named(STREAM, s)}`);
    for (const t of s.topics) lines.push(`topic ${s.streamId}/${t.topicId}: ${named(TOPIC, t)}`);
  }
  return lines;
}
