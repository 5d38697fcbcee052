import {
  defaultSessionStart,
  LIFECYCLE_CONTENT_TYPE,
  sessionStartEnvelope,
  SESSIONS_TOPIC,
  type AgdxClient,
  type AgentIdLike,
} from '@agdx/agents';
import { AgentId, enterBridge, InvalidError, TaskState, type ConversationId } from '@agdx/wire';

/**
 * The plumbing every bridge carries: its agent id, its topics, the hop path it stamps on what it
 * publishes, and the child-session start it writes before a call that runs under a parent.
 * Kept here so the A2A and MCP bridges check and build these the same way.
 */

/** The bridge's agent id from text or an {@link AgentId}. @throws InvalidError for an invalid id. */
export function bridgeAgentId(id: AgentIdLike): AgentId {
  return typeof id === 'string' ? AgentId.new(id) : id;
}

/** A topic (or another name) that must be a non-empty string. @throws InvalidError naming `field`. */
export function nonEmptyName(value: unknown, field: string): string {
  if (typeof value !== 'string' || value.length === 0) throw new InvalidError(`${field} must be a non-empty string`, { context: { field } });
  return value;
}

/**
 * The hop path of a bridge that continues `previous` (the path a call already took through other
 * bridges); with no `previous`, the path that starts at this bridge.
 * @throws InvalidError for a path that is not a list of bridge ids, or one that already holds this
 * bridge (a loop): nothing may be published then.
 */
export function bridgeHopsAfter(bridge: AgentId, previous?: unknown): readonly string[] {
  if (previous === undefined) return enterBridge(bridge.value);
  if (!Array.isArray(previous) || !previous.every((hop) => typeof hop === 'string' && hop.length > 0)) {
    throw new InvalidError('bridge hops must be a list of bridge ids', { context: { field: 'bridge_hops' } });
  }
  return enterBridge(bridge.value, previous as readonly string[]);
}

/** Where a child session sits in its tree. */
export interface ChildAncestry {
  /** The parent session. */
  readonly parent: ConversationId;
  /** The root of the tree. */
  readonly root: ConversationId;
}

/**
 * Writes the Submitted start of a child session on `agent.sessions` (seed 004): the record a
 * bridge publishes before the command of a call that runs under `ancestry`.
 * @throws the publish errors of `@agdx/agents`.
 */
export async function startChildSession(client: AgdxClient, child: ConversationId, bridge: AgentId, ancestry: ChildAncestry, signal?: AbortSignal): Promise<void> {
  const start = sessionStartEnvelope(child, bridge, defaultSessionStart(bridge, ancestry), TaskState.Submitted);
  await client.publish(SESSIONS_TOPIC, start, LIFECYCLE_CONTENT_TYPE, { signal });
}
