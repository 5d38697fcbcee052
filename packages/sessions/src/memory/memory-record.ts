import { CodecError, decodeStrictCbor, encodeCbor, type CborValue } from '@agdx/wire';
import { MAX_EMBEDDING_DIMENSIONS } from './vector.js';

/** Memory item kinds. */
export type MemoryKind = 'fact' | 'message' | 'summary' | 'entity' | 'feedback' | 'procedure';

/** The kinds in their wire spelling. */
export const MEMORY_KINDS: readonly MemoryKind[] = Object.freeze(['fact', 'message', 'summary', 'entity', 'feedback', 'procedure']);

/**
 * The most item ids a summary record names as covered: what one consolidation looks at
 * (`CONSOLIDATE_SCAN_LIMIT`). A longer list is not read as one (the summary then covers nothing).
 */
export const MAX_SUMMARY_COVERS = 10_000;

/** One memory record body: an item, a forget tombstone, or feedback on an item. */
export type MemoryRecord =
  | {
      readonly kind: 'item';
      readonly id: string;
      readonly itemKind: MemoryKind;
      readonly body: Uint8Array;
      /** The item's vector as little-endian float32 bytes, written by a vector memory handle. */
      readonly embedding?: Uint8Array | undefined;
      /** For a summary written by `consolidate`: the ids of the items it summarises (at most {@link MAX_SUMMARY_COVERS}). */
      readonly covers?: readonly string[] | undefined;
    }
  | { readonly kind: 'forget'; readonly target: string }
  | { readonly kind: 'feedback'; readonly target: string; readonly weight: number };

/**
 * Encodes a memory record as the reference's single-variant CBOR map (`{"Item": {id, kind, body}}`,
 * `{"Forget": {target}}`, `{"Feedback": {target, weight}}`); the item body is an array of byte
 * integers, as the reference writes it. An item's optional vector goes in an `embedding` byte
 * string (the reserved index name), and a summary's covered item ids in a `covers` array of
 * text; readers that do not know them ignore them.
 */
export function encodeMemoryRecord(record: MemoryRecord): Uint8Array {
  let inner: Map<CborValue, CborValue>;
  let tag: string;
  if (record.kind === 'item') {
    tag = 'Item';
    inner = new Map<CborValue, CborValue>([
      ['id', record.id],
      ['kind', record.itemKind],
      ['body', Array.from(record.body)],
    ]);
    if (record.embedding !== undefined) inner.set('embedding', record.embedding);
    if (record.covers !== undefined) inner.set('covers', [...record.covers]);
  } else if (record.kind === 'forget') {
    tag = 'Forget';
    inner = new Map<CborValue, CborValue>([['target', record.target]]);
  } else {
    tag = 'Feedback';
    inner = new Map<CborValue, CborValue>([
      ['target', record.target],
      ['weight', record.weight],
    ]);
  }
  return encodeCbor(new Map<CborValue, CborValue>([[tag, inner]]));
}

function fail(reason: string): never {
  throw new CodecError(`failed to decode memory record: ${reason}`);
}

function text(map: ReadonlyMap<CborValue, CborValue>, key: string): string {
  const v = map.get(key);
  if (typeof v !== 'string') fail(`${key} must be text`);
  return v;
}

/** A summary's covered ids: a non-empty array of at most {@link MAX_SUMMARY_COVERS} non-empty texts, else none (the summary is kept, as an item without them). */
function coveredIds(value: CborValue | undefined): readonly string[] | undefined {
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_SUMMARY_COVERS) return undefined;
  for (const id of value) if (typeof id !== 'string' || id.length === 0) return undefined;
  return value as string[];
}

/** Items a memory record may hold: one per byte of the largest (8 MiB) body, plus its fields. */
const MEMORY_RECORD_MAX_ITEMS = 8 * 1024 * 1024 + 64;

/**
 * Decodes a memory record body.
 * @throws CodecError for anything else.
 */
export function decodeMemoryRecord(bytes: Uint8Array): MemoryRecord {
  // A body may come as an array of byte values (how serde writes Vec<u8>), one item per byte, up to
  // the 8 MiB memory value cap: the item cap follows the input size instead of the generic default.
  const value = decodeStrictCbor(bytes, { surface: 'memory record', maxItems: MEMORY_RECORD_MAX_ITEMS });
  if (!(value instanceof Map) || value.size !== 1) fail('expected a single-variant map');
  const [[tag, inner]] = [...(value as Map<CborValue, CborValue>)] as [[CborValue, CborValue]];
  if (!(inner instanceof Map)) fail('variant body must be a map');
  const map = inner as ReadonlyMap<CborValue, CborValue>;
  if (tag === 'Item') {
    const kind = text(map, 'kind');
    if (!(MEMORY_KINDS as readonly string[]).includes(kind)) fail(`unknown kind ${JSON.stringify(kind)}`);
    const raw = map.get('body');
    let body: Uint8Array;
    if (raw instanceof Uint8Array) body = raw;
    else if (Array.isArray(raw)) {
      body = new Uint8Array(raw.length);
      raw.forEach((b: CborValue, i: number) => {
        const n = typeof b === 'bigint' ? Number(b) : b;
        if (typeof n !== 'number' || !Number.isInteger(n) || n < 0 || n > 255) fail('body must be bytes');
        body[i] = n;
      });
    } else return fail('body must be bytes');
    const id = text(map, 'id');
    const rawEmbedding = map.get('embedding');
    // a malformed vector is dropped, not the item: the vector can be computed again, the item cannot
    const embedding =
      rawEmbedding instanceof Uint8Array && rawEmbedding.length > 0 && rawEmbedding.length % 4 === 0 && rawEmbedding.length <= MAX_EMBEDDING_DIMENSIONS * 4
        ? rawEmbedding
        : undefined;
    const covers = kind === 'summary' ? coveredIds(map.get('covers')) : undefined;
    return {
      kind: 'item',
      id,
      itemKind: kind as MemoryKind,
      body,
      ...(embedding !== undefined ? { embedding } : {}),
      ...(covers !== undefined ? { covers } : {}),
    };
  }
  if (tag === 'Forget') return { kind: 'forget', target: text(map, 'target') };
  if (tag === 'Feedback') {
    const w = map.get('weight');
    const weight = typeof w === 'bigint' ? Number(w) : w;
    if (typeof weight !== 'number' || !Number.isFinite(weight)) fail('weight must be a finite number');
    return { kind: 'feedback', target: text(map, 'target'), weight };
  }
  return fail(`unknown variant ${JSON.stringify(String(tag))}`);
}
