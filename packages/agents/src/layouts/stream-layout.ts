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

/**
 * Routes one record under `layout`: `topic` is the topic the sender named, `kind` the envelope kind
 * (or `plain` for an envelope-less record), `target` the addressee and `conversationKey` the
 * session's Crockford text (the partition key).
 */
export function routeRecord(
  layout: StreamLayout,
  topic: string,
  kind: AgentKind | 'plain',
  target: string | undefined,
  conversationKey: string,
): RecordRoute {
  if (layout.kind === 'shared' || layout.kind === 'singlePartition' || target === undefined || topic !== AgentTopic.Sessions) {
    return { topic, routing: { key: conversationKey } };
  }
  if (layout.kind === 'perAgentTopic') {
    const declared = layout.topics.get(target);
    if (declared !== undefined && (ADDRESSED_KINDS.has(kind) || kind === 'plain')) return { topic: declared, routing: { key: conversationKey } };
    return { topic, routing: { key: conversationKey } };
  }
  const partition = layout.partitions.get(target);
  if (partition !== undefined && ADDRESSED_KINDS.has(kind)) return { topic, routing: { partition } };
  return { topic, routing: { key: conversationKey } };
}

/**
 * The topic a requester should watch for replies: with a topic per agent, replies sent to
 * `agent.sessions` for a declared requester land on the requester's own topic.
 */
export function replyTopicFor(layout: StreamLayout, replyTopic: string, requester: string | undefined): string {
  if (layout.kind !== 'perAgentTopic' || requester === undefined || replyTopic !== AgentTopic.Sessions) return replyTopic;
  return layout.topics.get(requester) ?? replyTopic;
}
