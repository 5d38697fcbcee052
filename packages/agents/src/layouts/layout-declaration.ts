import type { LogRecord, LogTransport, TopicDescription } from '@agdx/transport';
import { AgdxError } from '@agdx/wire';
import { LayoutMismatchError } from '../errors.js';
import { describeLayout } from './describe-layout.js';
import { checkStreamLayout, type StreamLayout } from './stream-layout.js';

/**
 * The one-partition topic where writers declare the stream's layout (an SDK extension, not a seed
 * topic): each record is one declaration, the last one counts. Readers read only that record, so
 * telling the layout costs the same on a log of any size. A writer replaces a different
 * declaration only when told to ({@link DeclareLayoutOptions.replaceLayout}).
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

/** Options of {@link declareLayout}. */
export interface DeclareLayoutOptions {
  /**
   * Replace a different layout the stream already declares: a deliberate migration, after which
   * readers and agents still given the old layout fail with LayoutMismatchError. Default `false`:
   * a different declaration is refused.
   */
  readonly replaceLayout?: boolean | undefined;
  /** Aborts the reads and the append. */
  readonly signal?: AbortSignal | undefined;
}

/**
 * Why declaring `layout` (encoded as `payload`) over the stream's `last` declaration record is
 * refused: a readable declaration of another layout. No record, the same bytes, or a record that
 * does not decode (corrupt, or of an unknown version) may be declared over.
 */
function replacementRefusal(stream: string, layout: StreamLayout, payload: Uint8Array, last: LogRecord | undefined): LayoutMismatchError | undefined {
  if (last === undefined || sameBytes(last.payload, payload)) return undefined;
  const declared = decodeLayoutDeclaration(last.payload);
  if (declared === undefined) return undefined;
  return new LayoutMismatchError(
    `stream \`${stream}\` already declares the ${describeLayout(declared)} layout; declaring the ${describeLayout(layout)} layout instead would make the readers and agents of the declared one fail: pass \`replaceLayout: true\` to replace it on purpose`,
    { context: { stream, declaredLayout: declared.kind, requestedLayout: layout.kind, declarationOffset: last.offset } },
  );
}

/**
 * Refuses, before anything is created, a declaration of `layout` that would replace another
 * layout `stream` declares (what {@link declareLayout} refuses without `replaceLayout`): one
 * `describeTopic`, plus a one-record read when the stream has a declaration topic.
 * @throws LayoutMismatchError naming both layouts; InvalidError for a bad layout; the transport's
 * errors other than `not-found`.
 */
export async function checkLayoutReplacement(transport: LogTransport, stream: string, layout: StreamLayout, signal?: AbortSignal): Promise<void> {
  const payload = encodeLayoutDeclaration(layout);
  const topic = await describeDeclarationTopic(transport, stream, signal);
  if (topic === undefined) return;
  const refusal = replacementRefusal(stream, layout, payload, await lastDeclarationRecord(transport, stream, topic, signal));
  if (refusal !== undefined) throw refusal;
}

// The fourth argument was a bare signal before it became an options object; both are accepted.
function declareOptions(options: DeclareLayoutOptions | AbortSignal | undefined): DeclareLayoutOptions {
  if (options === undefined) return {};
  return typeof AbortSignal !== 'undefined' && options instanceof AbortSignal ? { signal: options } : (options as DeclareLayoutOptions);
}

/**
 * Declares `layout` for `stream` (the stream must exist): creates the one-partition declaration
 * topic when missing and appends a declaration unless the last one already has these bytes, so
 * repeating it writes nothing. A different readable declaration is refused unless
 * `replaceLayout` is set; a last record that does not decode is declared over. Two writers
 * declaring different layouts at the same moment are not serialised (the log has no
 * compare-and-append): the later append counts.
 * @param options the options, or (as before they existed) a bare abort signal.
 * @returns whether a record was appended.
 * @throws LayoutMismatchError when the stream declares another layout and `replaceLayout` is not
 * set; InvalidError for a bad layout; the transport's errors.
 */
export async function declareLayout(transport: LogTransport, stream: string, layout: StreamLayout, options?: DeclareLayoutOptions | AbortSignal): Promise<boolean> {
  const { signal, replaceLayout = false } = declareOptions(options);
  const payload = encodeLayoutDeclaration(layout);
  const topic = await transport.ensureTopic({ stream, topic: LAYOUT_DECLARATION_TOPIC }, { partitions: 1 }, { signal });
  const last = await lastDeclarationRecord(transport, stream, topic, signal);
  if (last !== undefined && sameBytes(last.payload, payload)) return false;
  if (replaceLayout !== true) {
    const refusal = replacementRefusal(stream, layout, payload, last);
    if (refusal !== undefined) throw refusal;
  }
  await transport.append({ stream, topic: LAYOUT_DECLARATION_TOPIC, records: [{ payload }], routing: { partition: 0 }, signal });
  return true;
}
