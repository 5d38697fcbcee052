import { partitionForKey } from '@agdx/transport';
import { BROADCAST_ADDRESSEE, ConversationId, HeaderName, type AgentKind, type RecordHeaders } from '@agdx/wire';
import { AgentTopic } from '../client/agent-topic.js';
import { LayoutMismatchError } from '../errors.js';
import { routeRecord, type StreamLayout } from './stream-layout.js';
import { headerText } from '../message/header-text.js';

/** Where a reader found a record, and what the record says about itself. */
export interface FoundRecord {
  /** The stream it was read from. */
  readonly stream: string;
  /** The topic it was read from. */
  readonly topic: string;
  /** The partition it was read from. */
  readonly partition: number;
  /** Its offset there. */
  readonly offset: bigint;
  /** The envelope kind (`plain` for an envelope-less record). */
  readonly kind: AgentKind | 'plain';
  /** The addressee, when the record names one. */
  readonly target?: string | undefined;
}

/**
 * Checks a record read at a conversation's own partition (`home`) of the topic its writer named
 * (`namedTopic`) against the layout: a record this layout routes to another topic or partition
 * (a command, reply or chunk for a declared agent) can only have been written under another
 * layout, so agents on this layout never consume it and per-agent readers miss its kin.
 * @returns the LayoutMismatchError naming the record, or `undefined` when it is where this layout puts it.
 */
export function recordPlacementMismatch(layout: StreamLayout, namedTopic: string, home: number, found: FoundRecord): LayoutMismatchError | undefined {
  if (found.topic !== namedTopic || found.partition !== home) return undefined;
  const route = routeRecord(layout, namedTopic, found.kind, found.target, 'placement');
  const routing = route.routing as { readonly partition?: number };
  const partition = routing.partition ?? home;
  if (route.topic === found.topic && partition === found.partition) return undefined;
  const where = route.topic !== found.topic ? `topic \`${route.topic}\`` : `partition ${partition}`;
  return new LayoutMismatchError(
    `a \`${found.kind}\` record for \`${found.target ?? ''}\` is on \`${found.topic}\` partition ${found.partition}, but the ${layout.kind} layout puts it on ${where}: the log was written with another layout`,
    { context: { stream: found.stream, topic: found.topic, partition: found.partition, offset: found.offset, agent: found.target, expectedTopic: route.topic, expectedPartition: routing.partition } },
  );
}

/** A record as a reader read it, with the partition count of the topic it came from. */
export interface KeyedRecord {
  /** The stream it was read from. */
  readonly stream: string;
  /** The topic it was read from. */
  readonly topic: string;
  /** The partition it was read from. */
  readonly partition: number;
  /** The topic's partition count when it was read. */
  readonly partitionCount: number;
  /** Its offset there. */
  readonly offset: bigint;
  /** Its headers (only the addressee and conversation headers are looked at). */
  readonly headers: RecordHeaders;
}

const BROADCAST = new TextEncoder().encode(BROADCAST_ADDRESSEE);

function isBroadcast(bytes: Uint8Array): boolean {
  return bytes.length === BROADCAST.length && bytes.every((b, i) => b === BROADCAST[i]);
}

/**
 * Checks a record read from `agent.sessions` by a reader whose layout keys every record by its
 * conversation (shared, single partition). Writers under those layouts append each record to its
 * conversation's partition, whatever its kind; a record addressed to an agent (`agdx.to`) on
 * another partition was routed there by a partition-per-agent layout, so this log's commands and
 * replies sit on partitions such a reader never reads for a conversation. Only the headers are
 * looked at (no decode), and only the text conversation header current writers use; any other
 * layout, topic or header shape answers `undefined`.
 * @returns the LayoutMismatchError naming the record, or `undefined` when its place is consistent with this layout.
 */
export async function keyedPlacementMismatch(layout: StreamLayout, record: KeyedRecord): Promise<LayoutMismatchError | undefined> {
  if ((layout.kind !== 'shared' && layout.kind !== 'singlePartition') || record.topic !== AgentTopic.Sessions || record.partitionCount < 2) return undefined;
  const to = record.headers.get(HeaderName.To);
  const conversation = record.headers.get(HeaderName.ConversationId);
  if (to?.kind !== 'string' || conversation?.kind !== 'string' || to.value.length === 0 || isBroadcast(to.value)) return undefined;
  if (conversation.value.length !== 26 || ConversationId.tryParse(headerText(conversation.value)) === undefined) return undefined;
  const home = await partitionForKey(conversation.value, record.partitionCount);
  if (home === record.partition) return undefined;
  return new LayoutMismatchError(
    `an addressed record on \`${record.topic}\` partition ${record.partition} belongs to partition ${home} of its conversation, which the ${layout.kind} layout always writes to: the log was written with a partition-per-agent layout (or the topic has had another partition count)`,
    { context: { stream: record.stream, topic: record.topic, partition: record.partition, offset: record.offset, expectedPartition: home } },
  );
}
