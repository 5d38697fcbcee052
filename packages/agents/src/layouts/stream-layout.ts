import { InvalidError, utf8Length, type AgentKind } from '@agdx/wire';
import type { Routing } from '@agdx/transport';
import { AgentTopic } from '../client/agent-topic.js';

/**
 * How a stream lays out agent work (seed 000). Lifecycle, state, broadcast records and records
 * for undeclared agents stay on the session's partition of `agent.sessions` in every layout.
 * - `shared` (default): everything on `agent.sessions`, keyed by session.
 * - `perAgentTopic`: commands, responses, errors and chunks sent to `agent.sessions` for a
 *   declared agent go to that agent's topic, still keyed by session.
 * - `perAgentPartition`: the same records land on the declared agent's partition (a command is
 *   keyed by its addressee, a reply by its requester: both are the target).
 * - `singlePartition`: `bootstrap()` creates one partition per topic.
 */
export type StreamLayout =
  | { readonly kind: 'shared' }
  | { readonly kind: 'perAgentTopic'; readonly topics: ReadonlyMap<string, string> }
  | { readonly kind: 'perAgentPartition'; readonly partitions: ReadonlyMap<string, number> }
  | { readonly kind: 'singlePartition' };

/** The default layout. */
export const SHARED_LAYOUT: StreamLayout = Object.freeze({ kind: 'shared' });

/** Where one record goes. */
export interface RecordRoute {
  /** The topic to append to. */
  readonly topic: string;
  /** Partition routing (keyed by session unless a partition-per-agent rule applies). */
  readonly routing: Routing;
}

const ADDRESSED_KINDS: ReadonlySet<string> = new Set(['command', 'response', 'error', 'chunk']);

/**
 * Checks a layout's declarations. Declared topics are 1..255 bytes and never the lane or the
 * control topic; declared partitions are non-negative integers.
 * @throws InvalidError naming the bad declaration.
 */
export function checkStreamLayout(layout: StreamLayout): StreamLayout {
  if (typeof layout !== 'object' || layout === null) throw new InvalidError('layout must be an object');
  switch (layout.kind) {
    case 'shared':
    case 'singlePartition':
      return layout;
    case 'perAgentTopic':
      for (const [agent, topic] of layout.topics) {
        const bytes = typeof topic === 'string' ? utf8Length(topic) : 0;
        if (bytes < 1 || bytes > 255) throw new InvalidError(`layout topic for \`${agent}\` must be 1..255 bytes`, { context: { agent } });
        if (topic === AgentTopic.Sessions || topic === AgentTopic.Control) {
          throw new InvalidError(`layout topic for \`${agent}\` cannot be \`${topic}\``, { context: { agent, topic } });
        }
      }
      return layout;
    case 'perAgentPartition':
      for (const [agent, partition] of layout.partitions) {
        if (!Number.isSafeInteger(partition) || partition < 0) {
          throw new InvalidError(`layout partition for \`${agent}\` must be a non-negative integer`, { context: { agent } });
        }
      }
      return layout;
    default:
      throw new InvalidError(`unknown layout kind \`${String((layout as { kind: unknown }).kind)}\``);
  }
}

/** A question to the layout: where do records of this conversation (for this agent, of this kind) live? */
export interface LocateQuery {
  /** The topic the sender names (`agent.sessions`, `agent.streams`, ...); the layout may redirect it. */
  readonly topic: string;
  /** The conversation (its Crockford text, the partition key). */
  readonly conversation: string | { toString(): string };
  /** The addressee (for a reply, the requester). Omitted: wherever any agent's records may be. */
  readonly agent?: string | undefined;
  /** The envelope kind (`plain` for an envelope-less record). Omitted: every kind. */
  readonly kind?: AgentKind | 'plain' | undefined;
}

/** Kinds a layout moves off the conversation's own partition, per layout kind. */
function redirects(layout: StreamLayout, kind: AgentKind | 'plain' | undefined): boolean {
  if (kind === undefined) return true;
  if (ADDRESSED_KINDS.has(kind)) return true;
  // plain records follow their target's topic, but a partition per agent keys them by session
  return layout.kind === 'perAgentTopic' && kind === 'plain';
}

/** The declared place of one agent's redirected records, or `undefined` when the agent is not declared. */
function agentRoute(layout: StreamLayout, topic: string, agent: string, key: string): RecordRoute | undefined {
  if (layout.kind === 'perAgentTopic') {
    const declared = layout.topics.get(agent);
    return declared === undefined ? undefined : { topic: declared, routing: { key } };
  }
  if (layout.kind === 'perAgentPartition') {
    const partition = layout.partitions.get(agent);
    return partition === undefined ? undefined : { topic, routing: { partition } };
  }
  return undefined;
}

function sameRoute(a: RecordRoute, b: RecordRoute): boolean {
  if (a.topic !== b.topic) return false;
  const ra = a.routing as { partition?: number; key?: string };
  const rb = b.routing as { partition?: number; key?: string };
  return ra.partition === rb.partition && ra.key === rb.key;
}

/**
 * The one answer to "where does it live" (seed 000 layouts). For a record with a known addressee
 * and kind the answer is exactly one route, the one writers append to; leave `agent` or `kind`
 * out and the answer is every route such records may take, the conversation's own partition
 * first, so a reader that reads them all sees what any writer under this layout wrote.
 * Lifecycle, state and broadcast records and records for undeclared agents stay on the
 * conversation's partition of the named topic in every layout; only records sent to
 * `agent.sessions` are ever redirected.
 * @throws InvalidError for an empty conversation key.
 */
export function locateRecords(layout: StreamLayout, query: LocateQuery): readonly RecordRoute[] {
  const key = String(query.conversation);
  if (key.length === 0) throw new InvalidError('a conversation key must not be empty', { context: { field: 'conversation' } });
  const home: RecordRoute = { topic: query.topic, routing: { key } };
  if (layout.kind === 'shared' || layout.kind === 'singlePartition' || query.topic !== AgentTopic.Sessions || !redirects(layout, query.kind)) return [home];
  const agents = query.agent !== undefined ? [query.agent] : layout.kind === 'perAgentTopic' ? [...layout.topics.keys()] : [...layout.partitions.keys()];
  const routes: RecordRoute[] = query.agent !== undefined && query.kind !== undefined ? [] : [home];
  for (const agent of agents) {
    const route = agentRoute(layout, query.topic, agent, key);
    if (route !== undefined && !routes.some((r) => sameRoute(r, route))) routes.push(route);
  }
  return routes.length === 0 ? [home] : routes;
}

/**
 * The topics records sent to `topic` may land on under `layout`, `topic` first: with a topic per
 * agent, `agent.sessions` fans out to the declared agents' topics. For readers that scan whole
 * topics (partitions there follow from the conversation, the topics do not).
 */
export function layoutTopics(layout: StreamLayout, topic: string): readonly string[] {
  if (layout.kind !== 'perAgentTopic' || topic !== AgentTopic.Sessions) return [topic];
  return [...new Set([topic, ...layout.topics.values()])];
}

/**
 * Routes one record under `layout`: `topic` is the topic the sender named, `kind` the envelope kind
 * (or `plain` for an envelope-less record), `target` the addressee and `conversationKey` the
 * session's Crockford text (the partition key). The single answer of {@link locateRecords}.
 */
export function routeRecord(
  layout: StreamLayout,
  topic: string,
  kind: AgentKind | 'plain',
  target: string | undefined,
  conversationKey: string,
): RecordRoute {
  // Shared and single-partition layouts key every record by its session: no query to build.
  if (target === undefined) return { topic, routing: { key: conversationKey } };
  if (layout.kind === 'shared' || layout.kind === 'singlePartition') {
    if (conversationKey.length === 0) throw new InvalidError('a conversation key must not be empty', { context: { field: 'conversation' } });
    return { topic, routing: { key: conversationKey } };
  }
  return locateRecords(layout, { topic, conversation: conversationKey, agent: target, kind })[0] as RecordRoute;
}

/**
 * The topic an agent consumes when it listens on `topic`: with a topic per agent, a declared
 * agent listening on `agent.sessions` consumes its own topic, where the work addressed to it
 * lands. Every other case consumes `topic` itself (a partition per agent narrows the partitions
 * handled instead: {@link consumedPartitions}).
 */
export function consumedTopic(layout: StreamLayout, topic: string, agent: string): string {
  if (layout.kind !== 'perAgentTopic' || topic !== AgentTopic.Sessions) return topic;
  return layout.topics.get(agent) ?? topic;
}

/**
 * The partitions of its consumed topic an agent handles when it listens on `topic`: with a
 * partition per agent, a declared agent listening on `agent.sessions` handles only its own
 * partition (its consumer group still assigns partitions, so instances share the group and its
 * offsets; the member that owns the agent's partition does the work, the others stand by).
 * `undefined` means every partition the group assigns.
 */
export function consumedPartitions(layout: StreamLayout, topic: string, agent: string): readonly number[] | undefined {
  if (layout.kind !== 'perAgentPartition' || topic !== AgentTopic.Sessions) return undefined;
  const partition = layout.partitions.get(agent);
  return partition === undefined ? undefined : [partition];
}

/**
 * The topic a requester should watch for replies: with a topic per agent, replies sent to
 * `agent.sessions` for a declared requester land on the requester's own topic.
 */
export function replyTopicFor(layout: StreamLayout, replyTopic: string, requester: string | undefined): string {
  if (layout.kind !== 'perAgentTopic' || requester === undefined || replyTopic !== AgentTopic.Sessions) return replyTopic;
  return layout.topics.get(requester) ?? replyTopic;
}
