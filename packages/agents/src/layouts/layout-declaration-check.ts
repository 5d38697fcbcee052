import type { LogTransport } from '@agdx/transport';
import { LayoutMismatchError } from '../errors.js';
import { describeLayout } from './describe-layout.js';
import type { LayoutDeclaration } from './declaration-record.js';
import { describeDeclarationTopic, readDeclarationOf } from './layout-declaration.js';
import { consumedPartitions, consumedTopic, type StreamLayout } from './stream-layout.js';

// Shared and single-partition layouts key every record by its conversation: one reads what the
// other wrote (a single partition is where every key lands), so they never contradict.
const keyed = (layout: StreamLayout): boolean => layout.kind === 'shared' || layout.kind === 'singlePartition';

/** The first agent `declared` places somewhere `reader` does not, with both places. */
function displacedAgent(reader: StreamLayout, declared: StreamLayout): { agent: string; declared: string | number; reader: string | number | undefined } | undefined {
  if (declared.kind === 'perAgentTopic' && reader.kind === 'perAgentTopic') {
    for (const [agent, topic] of declared.topics) if (reader.topics.get(agent) !== topic) return { agent, declared: topic, reader: reader.topics.get(agent) };
  }
  if (declared.kind === 'perAgentPartition' && reader.kind === 'perAgentPartition') {
    for (const [agent, partition] of declared.partitions) {
      if (reader.partitions.get(agent) !== partition) return { agent, declared: partition, reader: reader.partitions.get(agent) };
    }
  }
  return undefined;
}

/**
 * Compares a reader's layout with the one the stream declares. They agree when both key by
 * conversation (shared, single partition), or when both are the same per-agent kind and the
 * reader puts every agent the declaration names where the declaration does (a reader may declare
 * more agents; one that lacks a declared agent would miss that agent's records).
 * @returns the LayoutMismatchError naming both layouts, or `undefined` when they agree.
 */
export function layoutDeclarationMismatch(reader: StreamLayout, declaration: LayoutDeclaration, stream: string): LayoutMismatchError | undefined {
  const declared = declaration.layout;
  if (keyed(reader) && keyed(declared)) return undefined;
  const context = { stream, declaredLayout: declared.kind, readerLayout: reader.kind, declarationOffset: declaration.offset };
  if (reader.kind !== declared.kind) {
    return new LayoutMismatchError(`stream \`${stream}\` declares the ${describeLayout(declared)} layout, but this reader uses the ${describeLayout(reader)} layout: the log was written with another layout`, { context });
  }
  const displaced = displacedAgent(reader, declared);
  if (displaced === undefined) return undefined;
  const where = displaced.reader === undefined ? 'does not declare it' : `puts it on ${String(displaced.reader)}`;
  return new LayoutMismatchError(
    `stream \`${stream}\` declares the ${declared.kind} layout with \`${displaced.agent}\` on ${String(displaced.declared)}, but this reader's ${reader.kind} layout ${where}: the log was written with another layout`,
    { context: { ...context, agent: displaced.agent } },
  );
}

/** Options of {@link checkLayoutDeclaration}. */
export interface LayoutCheckOptions {
  /** Compare only where this agent, listening on `topic`, consumes (see {@link agentPlaceMismatch}). */
  readonly agent?: { readonly name: string; readonly topic: string } | undefined;
  /** Aborts the reads. */
  readonly signal?: AbortSignal | undefined;
}

interface Seen {
  readonly generation: bigint | undefined;
  readonly end: bigint;
  readonly declaration: LayoutDeclaration | undefined;
}

/** Streams whose last declaration a transport's readers remember (oldest forgotten first). */
const MAX_REMEMBERED_STREAMS = 256;
const remembered = new WeakMap<LogTransport, Map<string, Seen>>();

/**
 * The declaration of `stream`, read again only when its topic moved: one `describeTopic` per call,
 * plus a one-record read after a new declaration (or a recreated topic).
 */
async function currentDeclaration(transport: LogTransport, stream: string, signal: AbortSignal | undefined): Promise<LayoutDeclaration | undefined> {
  const topic = await describeDeclarationTopic(transport, stream, signal);
  let streams = remembered.get(transport);
  if (streams === undefined) {
    streams = new Map();
    remembered.set(transport, streams);
  }
  if (topic === undefined) {
    streams.delete(stream);
    return undefined;
  }
  const end = topic.partitions[0]?.nextOffset ?? 0n;
  const seen = streams.get(stream);
  if (seen !== undefined && seen.generation === topic.createdAtMicros && seen.end === end && topic.createdAtMicros !== undefined) return seen.declaration;
  const declaration = await readDeclarationOf(transport, stream, topic, signal);
  streams.delete(stream);
  streams.set(stream, { generation: topic.createdAtMicros, end, declaration });
  if (streams.size > MAX_REMEMBERED_STREAMS) {
    const oldest = streams.keys().next().value;
    if (oldest !== undefined) streams.delete(oldest);
  }
  return declaration;
}

/**
 * Compares where one agent listening on `topic` consumes under the reader's layout and under the
 * declared one: only that agent's place matters to its consumer, so an agent the declaration does
 * not name (its work stays on the lane in every layout) never trips it.
 * @returns the LayoutMismatchError naming both places, or `undefined` when they agree.
 */
export function agentPlaceMismatch(reader: StreamLayout, declaration: LayoutDeclaration, stream: string, topic: string, agent: string): LayoutMismatchError | undefined {
  const declared = declaration.layout;
  const place = (layout: StreamLayout): string => `${consumedTopic(layout, topic, agent)}${(consumedPartitions(layout, topic, agent) ?? []).map((p) => ` partition ${p}`).join('')}`;
  const ours = place(reader);
  const theirs = place(declared);
  if (ours === theirs) return undefined;
  return new LayoutMismatchError(
    `stream \`${stream}\` declares the ${describeLayout(declared)} layout, which puts \`${agent}\`'s work on ${theirs}, but this ${describeLayout(reader)} layout consumes ${ours}: the log was written with another layout`,
    { context: { stream, agent, declaredLayout: declared.kind, readerLayout: reader.kind, declarationOffset: declaration.offset } },
  );
}

/**
 * Refuses a read whose layout contradicts the one `stream` declares (see
 * {@link layoutDeclarationMismatch}). A stream without a readable declaration passes: logs written
 * before declarations existed, or by writers that never bootstrapped, read as before. The cost is
 * one `describeTopic` (and a one-record read when the declaration changed), whatever the log's size.
 * @throws LayoutMismatchError naming both layouts; the transport's errors other than `not-found`.
 */
export async function checkLayoutDeclaration(transport: LogTransport, stream: string, layout: StreamLayout, options: LayoutCheckOptions = {}): Promise<void> {
  const declaration = await currentDeclaration(transport, stream, options.signal);
  if (declaration === undefined) return;
  const mismatch =
    options.agent === undefined ? layoutDeclarationMismatch(layout, declaration, stream) : agentPlaceMismatch(layout, declaration, stream, options.agent.topic, options.agent.name);
  if (mismatch !== undefined) throw mismatch;
}
