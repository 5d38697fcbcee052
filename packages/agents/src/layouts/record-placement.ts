import type { AgentKind } from '@agdx/wire';
import { LayoutMismatchError } from '../errors.js';
import { routeRecord, type StreamLayout } from './stream-layout.js';

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
