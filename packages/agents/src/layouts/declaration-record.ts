import { checkStreamLayout, type StreamLayout } from './stream-layout.js';

/**
 * The one-partition topic where writers declare the stream's layout (an SDK extension, not a seed
 * topic): each record is one declaration. Which record is in force is decided by
 * `declarationInForce` (the newest one that did not lose a race), the same way by every reader.
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

/** A decoded declaration record: its layout, and the offset its writer meant it for (if it said). */
export interface DeclarationRecord {
  /** The declared layout. */
  readonly layout: StreamLayout;
  /**
   * The offset the writer expected the record to land at (the topic's end when it looked).
   * A record elsewhere raced another writer and lost; `undefined` for records written before
   * writers said it, which always count.
   */
  readonly at: bigint | undefined;
}

const VERSION = 1;
const U64_MAX = (1n << 64n) - 1n;
const encoder = new TextEncoder();
// The default decoder drops one leading byte order mark, which JSON lets a parser ignore, so a
// declaration written with one is still read; agent names inside the JSON strings keep theirs.
const decoder = new TextDecoder('utf-8', { fatal: true });

// Entries as [agent, place] pairs sorted by agent: the bytes of one layout are always the same
// (so a writer can tell "already declared"), and no agent name ever becomes an object key.
function sortedEntries<T>(map: ReadonlyMap<string, T>): [string, T][] {
  return [...map].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** The JSON document of `layout`, fields in a fixed order. */
function declarationDocument(layout: StreamLayout): Record<string, unknown> {
  const checked = checkStreamLayout(layout);
  switch (checked.kind) {
    case 'perAgentTopic':
      return { v: VERSION, kind: checked.kind, topics: sortedEntries(checked.topics) };
    case 'perAgentPartition':
      return { v: VERSION, kind: checked.kind, partitions: sortedEntries(checked.partitions) };
    default:
      return { v: VERSION, kind: checked.kind };
  }
}

/** The canonical payload of `layout`: UTF-8 JSON, the same bytes for the same layout. */
export function encodeLayoutDeclaration(layout: StreamLayout): Uint8Array {
  return encoder.encode(JSON.stringify(declarationDocument(layout)));
}

/**
 * The record a writer appends: the canonical document plus `at`, the offset it expects the record
 * to land at, as a decimal string (exact for any 64-bit offset).
 */
export function encodeDeclarationRecord(layout: StreamLayout, at: bigint): Uint8Array {
  return encoder.encode(JSON.stringify({ ...declarationDocument(layout), at: at.toString() }));
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

/** `at` as an offset: absent, or a decimal string of an unsigned 64-bit value; `null` when malformed. */
function offsetField(value: unknown): bigint | undefined | null {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !/^(?:0|[1-9][0-9]{0,19})$/.test(value)) return null;
  const offset = BigInt(value);
  return offset <= U64_MAX ? offset : null;
}

/**
 * Reads a declaration record. Anything but a well-formed declaration of this version (too large,
 * not UTF-8 JSON, an unknown kind or version, a malformed `at`, a layout `checkStreamLayout`
 * refuses) answers `undefined`: an unreadable declaration is ignored, never trusted and never fatal.
 */
export function decodeDeclarationRecord(payload: Uint8Array): DeclarationRecord | undefined {
  if (payload.length === 0 || payload.length > MAX_LAYOUT_DECLARATION_BYTES) return undefined;
  let doc: unknown;
  try {
    doc = JSON.parse(decoder.decode(payload));
  } catch {
    return undefined;
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) return undefined;
  const { v, kind, topics, partitions, at } = doc as Record<string, unknown>;
  if (v !== VERSION) return undefined;
  const offset = offsetField(at);
  if (offset === null) return undefined;
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
    return { layout: checkStreamLayout(layout), at: offset };
  } catch {
    return undefined;
  }
}

/** The layout of a declaration payload, or `undefined` (see {@link decodeDeclarationRecord}). */
export function decodeLayoutDeclaration(payload: Uint8Array): StreamLayout | undefined {
  return decodeDeclarationRecord(payload)?.layout;
}
