import type { LogTransport, TopicDescription } from '@agdx/transport';
import { AgdxError } from '@agdx/wire';
import { checkStreamLayout, type StreamLayout } from './stream-layout.js';

/**
 * The one-partition topic where writers declare the stream's layout (an SDK extension, not a seed
 * topic): each record is one declaration, the last one counts. Readers read only that record, so
 * telling the layout costs the same on a log of any size.
 */
export const LAYOUT_DECLARATION_TOPIC = 'agdx.layout';

/** Declarations larger than this are not read (no layout a reader can use needs more). */
export const MAX_LAYOUT_DECLARATION_BYTES: number = 64 * 1024;

/** The layout a stream's writers declared, and where the declaration sits. */
export interface LayoutDeclaration {
  /** The declared layout. */
  readonly layout: StreamLayout;
  /** The declaration's offset on partition 0 of {@link LAYOUT_DECLARATION_TOPIC}. */
  readonly offset: bigint;
}

const VERSION = 1;
const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

// Entries as [agent, place] pairs sorted by agent: the bytes of one layout are always the same
// (so a writer can tell "already declared"), and no agent name ever becomes an object key.
function sortedEntries<T>(map: ReadonlyMap<string, T>): [string, T][] {
  return [...map].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** The declaration record's payload for `layout`: UTF-8 JSON, the same bytes for the same layout. */
export function encodeLayoutDeclaration(layout: StreamLayout): Uint8Array {
  const checked = checkStreamLayout(layout);
  switch (checked.kind) {
    case 'perAgentTopic':
      return encoder.encode(JSON.stringify({ v: VERSION, kind: checked.kind, topics: sortedEntries(checked.topics) }));
    case 'perAgentPartition':
      return encoder.encode(JSON.stringify({ v: VERSION, kind: checked.kind, partitions: sortedEntries(checked.partitions) }));
    default:
      return encoder.encode(JSON.stringify({ v: VERSION, kind: checked.kind }));
  }
}

function entries<T>(value: unknown, isPlace: (v: unknown) => v is T): Map<string, T> | undefined {
  if (!Array.isArray(value)) return undefined;
  const out = new Map<string, T>();
  for (const entry of value as unknown[]) {
    if (!Array.isArray(entry) || entry.length !== 2) return undefined;
    const [agent, place] = entry as [unknown, unknown];
    if (typeof agent !== 'string' || agent.length === 0 || out.has(agent) || !isPlace(place)) return undefined;
    out.set(agent, place);
  }
  return out;
}

const isString = (v: unknown): v is string => typeof v === 'string';
const isNumber = (v: unknown): v is number => typeof v === 'number';

/**
 * Reads a declaration payload. Anything but a well-formed declaration of this version (too large,
 * not UTF-8 JSON, an unknown kind or version, a layout `checkStreamLayout` refuses) answers
 * `undefined`: an unreadable declaration is ignored, never trusted and never fatal.
 */
export function decodeLayoutDeclaration(payload: Uint8Array): StreamLayout | undefined {
  if (payload.length === 0 || payload.length > MAX_LAYOUT_DECLARATION_BYTES) return undefined;
  let doc: unknown;
  try {
    doc = JSON.parse(decoder.decode(payload));
  } catch {
    return undefined;
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) return undefined;
  const { v, kind, topics, partitions } = doc as Record<string, unknown>;
  if (v !== VERSION) return undefined;
  let layout: StreamLayout | undefined;
  if (kind === 'shared' || kind === 'singlePartition') layout = { kind };
  else if (kind === 'perAgentTopic') {
    const map = entries(topics, isString);
    layout = map === undefined ? undefined : { kind, topics: map };
  } else if (kind === 'perAgentPartition') {
    const map = entries(partitions, isNumber);
    layout = map === undefined ? undefined : { kind, partitions: map };
  }
  if (layout === undefined) return undefined;
  try {
    return checkStreamLayout(layout);
  } catch {
    return undefined;
  }
}

/** The declaration topic's description, `undefined` when the stream has none (or no such stream). */
export async function describeDeclarationTopic(transport: LogTransport, stream: string, signal?: AbortSignal): Promise<TopicDescription | undefined> {
  try {
    return await transport.describeTopic({ stream, topic: LAYOUT_DECLARATION_TOPIC }, { signal });
  } catch (error) {
    if (AgdxError.is(error, 'not-found')) return undefined;
    throw error;
  }
}

/** The last record of the declaration topic described as `topic`, `undefined` when there is none. */
async function lastDeclarationRecord(transport: LogTransport, stream: string, topic: TopicDescription, signal?: AbortSignal) {
  const end = topic.partitions[0]?.nextOffset ?? 0n;
  if (end === 0n) return undefined;
  const [record] = await transport.read({ stream, topic: LAYOUT_DECLARATION_TOPIC, partition: 0, offset: end - 1n, maxCount: 1, signal });
  return record;
}

/**
 * The layout `stream` declares: its last declaration record, read with one `describeTopic` and one
 * one-record read whatever the log's size. `undefined` when the stream declares none (no
 * declaration topic, an empty one, or a last record that does not decode, which is ignored).
 * @throws the transport's errors other than `not-found`.
 */
export async function readLayoutDeclaration(transport: LogTransport, stream: string, signal?: AbortSignal): Promise<LayoutDeclaration | undefined> {
  const topic = await describeDeclarationTopic(transport, stream, signal);
  if (topic === undefined) return undefined;
  return readDeclarationOf(transport, stream, topic, signal);
}

/** {@link readLayoutDeclaration} for an already described declaration topic. */
export async function readDeclarationOf(transport: LogTransport, stream: string, topic: TopicDescription, signal?: AbortSignal): Promise<LayoutDeclaration | undefined> {
  const record = await lastDeclarationRecord(transport, stream, topic, signal);
  if (record === undefined) return undefined;
  const layout = decodeLayoutDeclaration(record.payload);
  return layout === undefined ? undefined : { layout, offset: record.offset };
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/**
 * Declares `layout` for `stream` (the stream must exist): creates the one-partition declaration
 * topic when missing and appends a declaration unless the last one already has these bytes, so
 * repeating it writes nothing. A different layout replaces the declaration (the last one counts).
 * @returns whether a record was appended.
 * @throws InvalidError for a bad layout; the transport's errors.
 */
export async function declareLayout(transport: LogTransport, stream: string, layout: StreamLayout, signal?: AbortSignal): Promise<boolean> {
  const payload = encodeLayoutDeclaration(layout);
  const topic = await transport.ensureTopic({ stream, topic: LAYOUT_DECLARATION_TOPIC }, { partitions: 1 }, { signal });
  const last = await lastDeclarationRecord(transport, stream, topic, signal);
  if (last !== undefined && sameBytes(last.payload, payload)) return false;
  await transport.append({ stream, topic: LAYOUT_DECLARATION_TOPIC, records: [{ payload }], routing: { partition: 0 }, signal });
  return true;
}
