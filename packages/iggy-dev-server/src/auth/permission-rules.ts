/**
 * Iggy's permission rules (`core/metadata/src/permissioner/permissioner_rules`), evaluated on one
 * user's permissions. A user without permissions passes no rule. Each rule answers whether the
 * action is allowed; the caller refuses with 41 (Unauthorized) when it is not.
 */

import type { GlobalPermissions, Permissions, StreamPermissions, TopicPermissions } from '@agdx/iggy-protocol';

/** Permissions indexed for lookups: per-stream grants by stream id, per-topic by topic id. */
export interface CompiledPermissions {
  /** The global flags. */
  readonly global: GlobalPermissions;
  /** Stream grants by stream id (a later entry for the same id wins, as in Iggy's map). */
  readonly streams: ReadonlyMap<number, { readonly grant: StreamPermissions; readonly topics: ReadonlyMap<number, TopicPermissions> }>;
}

/** Indexes permissions for the rules below; `undefined` stays `undefined` (no permissions). */
export function compilePermissions(p: Permissions | undefined): CompiledPermissions | undefined {
  if (p === undefined) return undefined;
  const streams = new Map<number, { grant: StreamPermissions; topics: Map<number, TopicPermissions> }>();
  for (const s of p.streams) streams.set(s.streamId, { grant: s, topics: new Map(s.topics.map((t) => [t.topicId, t])) });
  return { global: p.global, streams };
}

type P = CompiledPermissions | undefined;

/** GetStats, GetClient(s), GetSnapshot: read or manage servers. */
export function canReadServers(p: P): boolean {
  return p !== undefined && (p.global.manageServers || p.global.readServers);
}

/** GetUser (of another user), GetUsers: read or manage users. */
export function canReadUsers(p: P): boolean {
  return p !== undefined && (p.global.manageUsers || p.global.readUsers);
}

/** CreateUser, UpdateUser, DeleteUser, UpdatePermissions, ChangePassword (of another user). */
export function canManageUsers(p: P): boolean {
  return p !== undefined && p.global.manageUsers;
}

/** GetStreams. */
export function canListStreams(p: P): boolean {
  return p !== undefined && (p.global.manageStreams || p.global.readStreams);
}

/** CreateStream. */
export function canCreateStream(p: P): boolean {
  return p !== undefined && p.global.manageStreams;
}

/** GetStream. */
export function canReadStream(p: P, stream: number): boolean {
  if (canListStreams(p)) return true;
  const s = p?.streams.get(stream)?.grant;
  return s !== undefined && (s.manageStream || s.readStream);
}

/** UpdateStream, DeleteStream, PurgeStream. */
export function canManageStream(p: P, stream: number): boolean {
  if (p === undefined) return false;
  if (p.global.manageStreams) return true;
  return p.streams.get(stream)?.grant.manageStream === true;
}

function globalTopicReader(p: CompiledPermissions): boolean {
  const g = p.global;
  return g.readStreams || g.manageStreams || g.manageTopics || g.readTopics;
}

/** GetTopics. */
export function canListTopics(p: P, stream: number): boolean {
  if (p === undefined) return false;
  if (globalTopicReader(p)) return true;
  const s = p.streams.get(stream)?.grant;
  return s !== undefined && (s.manageStream || s.readStream || s.manageTopics || s.readTopics);
}

/** GetTopic and every consumer-group command (Iggy checks `get_topic` for all of them). */
export function canReadTopic(p: P, stream: number, topic: number): boolean {
  if (canListTopics(p, stream)) return true;
  const t = p?.streams.get(stream)?.topics.get(topic);
  return t !== undefined && (t.manageTopic || t.readTopic);
}

/** CreateTopic. */
export function canCreateTopic(p: P, stream: number): boolean {
  if (p === undefined) return false;
  if (p.global.manageStreams || p.global.manageTopics) return true;
  const s = p.streams.get(stream)?.grant;
  return s !== undefined && (s.manageStream || s.manageTopics);
}

/** UpdateTopic, DeleteTopic, PurgeTopic, Create/DeletePartitions, DeleteSegments. */
export function canManageTopic(p: P, stream: number, topic: number): boolean {
  if (canCreateTopic(p, stream)) return true;
  return p?.streams.get(stream)?.topics.get(topic)?.manageTopic === true;
}

/** PollMessages and Get/Store/DeleteConsumerOffset. */
export function canPoll(p: P, stream: number, topic: number): boolean {
  if (p === undefined) return false;
  if (p.global.pollMessages || globalTopicReader(p)) return true;
  const entry = p.streams.get(stream);
  if (entry === undefined) return false;
  const s = entry.grant;
  if (s.pollMessages || s.manageStream || s.readStream || s.manageTopics || s.readTopics) return true;
  const t = entry.topics.get(topic);
  return t !== undefined && (t.manageTopic || t.readTopic || t.pollMessages);
}

/** SendMessages. */
export function canSend(p: P, stream: number, topic: number): boolean {
  if (p === undefined) return false;
  if (p.global.sendMessages || p.global.manageStreams || p.global.manageTopics) return true;
  const entry = p.streams.get(stream);
  if (entry === undefined) return false;
  const s = entry.grant;
  if (s.sendMessages || s.manageStream || s.manageTopics) return true;
  const t = entry.topics.get(topic);
  return t !== undefined && (t.manageTopic || t.sendMessages);
}
