// Hostile bytes into the envelope decoder and the strict CBOR reader: each bug a review found,
// proved through the public API, and a seeded property that splices lengths into valid encodings.
// Work is bounded by counting what a decode builds (string pieces, items), never by a clock.
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest';
import {
  AgdxError,
  applyJsonPatch,
  decodeEnvelope,
  decodeStateDelta,
  decodeStrictCbor,
  encodeEnvelope,
  encodeStateDelta,
  MAX_STATE_DOCUMENT_BYTES,
  StateFold,
  type CborValue,
  type JsonPatchOperation,
} from '@agdx/wire';
import { validEnvelope } from './support/arbitrary.js';
import { fixtureBytes } from './extras-support/fixtures.js';

const SEED = Number(process.env.FUZZ_SEED ?? 20261203);

function hex(text: string): Uint8Array {
  return Uint8Array.from((text.match(/../g) ?? []).map((b) => parseInt(b, 16)));
}

/** A head with a four-byte argument (the shortest form for 65,536 ..= 2^32 − 1). */
function head32(major: number, n: number): number[] {
  return [(major << 5) | 26, (n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff];
}

function concat(...parts: (readonly number[] | Uint8Array)[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** The error a decode threw, checked to be the package's codec error. */
function codecErrorOf(fn: () => unknown): AgdxError {
  try {
    fn();
  } catch (error) {
    expect(AgdxError.is(error, 'codec')).toBe(true);
    return error as AgdxError;
  }
  throw new Error('expected a CodecError');
}

/** `kind`, `conversation` and `source` (all an envelope needs to decode), then `x`: `unknown`. */
function envelopeWithUnknown(unknown: Uint8Array): Uint8Array {
  const text = (s: string): number[] => [0x60 + s.length, ...[...s].map((c) => c.charCodeAt(0))];
  return concat([0xa4], text('kind'), text('event'), text('conversation'), [0x50], new Uint8Array(16).fill(1), text('source'), text('a'), text('x'), unknown);
}

// Calls to String.fromCharCode while a decode runs: how the decoder builds the strings it compares
// map keys by, so their count is the work that compare costs.
let fromCharCode: MockInstance<typeof String.fromCharCode>;
beforeEach(() => {
  fromCharCode = vi.spyOn(String, 'fromCharCode');
});
afterEach(() => {
  fromCharCode.mockRestore();
});

describe('map keys equal as values', () => {
  it.each([
    ['0.0 and -0.0', 'a2f90000f6f98000f6'],
    ['two NaNs with different payloads', 'a2f97e00f6f97e01f6'],
    ['1.0 as half and single float', 'a2f93c00f6fa3f800000f6'],
    ['1.0 as half and double float', 'a2f93c00f6fb3ff0000000000000f6'],
  ])('%s are a duplicate key, not a map that silently lost an entry', (_name, bytes) => {
    const error = codecErrorOf(() => decodeStrictCbor(hex(bytes)));
    expect(String((error.cause as Error).message)).toMatch(/duplicate map key/);
  });

  it('distinct float, integer and null keys all stay', () => {
    const map = decodeStrictCbor(hex('a4f93c00f6f94000f601f6f6f6')) as ReadonlyMap<CborValue, CborValue>;
    expect([...map.keys()]).toEqual([1, 2, 1n, null]);
  });
});

describe('byte strings decoded from a Node Buffer', () => {
  it('are plain copies that do not change when the caller reuses its buffer', () => {
    // A 100-byte string: above the length the reader copies by hand.
    const input = Buffer.from(hex(`a1616258${'64'}${'07'.repeat(100)}`));
    const value = (decodeStrictCbor(input) as ReadonlyMap<CborValue, CborValue>).get('b') as Uint8Array;
    input.fill(0);
    expect(value.constructor).toBe(Uint8Array);
    expect(value).toEqual(new Uint8Array(100).fill(7));
  });
});

describe('large and nested map keys cost work bounded by the record', () => {
  const N = 1 << 20;
  const bigKey = (): Uint8Array => concat(head32(2, N), new Uint8Array(N).fill(0x41));

  it('a 1 MiB byte-string key is compared without a string operation per byte', () => {
    const strict = concat([0xa1], bigKey(), [0x00]);
    expect((decodeStrictCbor(strict) as ReadonlyMap<CborValue, CborValue>).size).toBe(1);
    const envelope = envelopeWithUnknown(concat([0xa1], bigKey(), [0x00]));
    expect(decodeEnvelope(envelope).kind).toBe('event');
    expect(fromCharCode.mock.calls.length).toBeLessThan((strict.length + envelope.length) / 1024);
  });

  it('maps nested as keys around a 1 MiB key are refused once their keys outgrow the record', () => {
    const depth = 60;
    // {{{… {h'…': 0} …: 0}: 0}: 0}: every level a one-entry map whose key is the next level.
    const nested = concat(new Array<number>(depth).fill(0xa1), bigKey(), new Array<number>(depth).fill(0x00));
    const strict = codecErrorOf(() => decodeStrictCbor(nested));
    expect(strict.context).toMatchObject({ limit: 'key-bytes', cap: 2 * nested.length });
    const envelope = envelopeWithUnknown(nested);
    expect(String((codecErrorOf(() => decodeEnvelope(envelope)).cause as Error).message)).toMatch(/bytes of map keys/);
    expect(fromCharCode.mock.calls.length).toBeLessThan((nested.length + envelope.length) / 1024);
  });

  it('one level of nesting stays within the bound and decodes', () => {
    const once = concat([0xa1, 0xa1], bigKey(), [0x00, 0x00]);
    expect((decodeStrictCbor(once) as ReadonlyMap<CborValue, CborValue>).size).toBe(1);
  });
});

describe('a state delta that copies the document into itself', () => {
  const copies = (n: number): JsonPatchOperation[] => Array.from({ length: n }, (_, i) => ({ op: 'copy' as const, from: '', path: `/k${i}` }));

  it('is rejected once the document would pass the snapshot cap, before the copy is made', () => {
    // 24 operations in a record of under 1 KiB, each doubling the document: 2^24 times its size.
    const bytes = encodeStateDelta({ baseRevision: 1n, patch: copies(24), opId: 'grow' });
    expect(bytes.length).toBeLessThan(1024);
    const document = { a: 'x'.repeat(3 * 1024 * 1024) };
    const fold = new StateFold();
    expect(fold.apply({ kind: 'snapshot', snapshot: { baseRevision: 0n, document } })).toBe('applied');
    expect(fold.apply({ kind: 'delta', delta: decodeStateDelta(bytes) })).toBe('rejected');
    expect(fold.document).toEqual(document);
    expect(fold.revision).toBe(1n);
    let error: unknown;
    try {
      applyJsonPatch(document, copies(24));
    } catch (e) {
      error = e;
    }
    // The first copy (6 MiB) fits; the second would make 12 MiB.
    expect(AgdxError.is(error, 'invalid')).toBe(true);
    expect((error as AgdxError).context).toMatchObject({ path: '/k1' });
  });

  it('applies while the document stays within the cap', () => {
    const fold = new StateFold();
    expect(fold.apply({ kind: 'delta', delta: decodeStateDelta(encodeStateDelta({ baseRevision: 0n, patch: copies(10), opId: 'small' })) })).toBe('applied');
    expect(JSON.stringify(fold.document).length).toBeLessThan(MAX_STATE_DOCUMENT_BYTES);
  });

  it('counts what a removal gave back before refusing: a large value replaced near the cap still applies', () => {
    const big = 'x'.repeat(5 * 1024 * 1024);
    const doc = { a: big, s: 'small' };
    // The copy starts the count; counted generously the add then makes 10 MiB, measured 5 MiB.
    const patched = applyJsonPatch(doc, [{ op: 'copy', from: '/s', path: '/t' }, { op: 'remove', path: '/a' }, { op: 'add', path: '/b', value: big }]);
    expect(Object.keys(patched as object)).toEqual(['s', 't', 'b']);
    expect(() => applyJsonPatch(doc, [{ op: 'copy', from: '/a', path: '/b' }])).toThrow(/past 8388608 bytes/);
  });
});

describe('a state delta of many moves', () => {
  it('copies the document once per patch, not once per move', () => {
    const doc = { items: Array.from({ length: 2000 }, (_, i) => ({ id: i, name: `item ${i}` })), a: 1 };
    const patch = Array.from({ length: 256 }, (_, i): JsonPatchOperation => (i % 2 === 0 ? { op: 'move', from: '/a', path: '/b' } : { op: 'move', from: '/b', path: '/a' }));
    const delta = decodeStateDelta(encodeStateDelta({ baseRevision: 0n, patch, opId: 'moves' }));
    // Every whole-document copy goes through structuredClone: count them.
    const clone = vi.spyOn(globalThis, 'structuredClone');
    try {
      expect(applyJsonPatch(doc, delta.patch)).toEqual(doc);
      expect(clone.mock.calls.length).toBeLessThanOrEqual(1);
    } finally {
      clone.mockRestore();
    }
  });

  it('still checks the target of a move in the document as it is after the removal', () => {
    // Removing /list/0 shifts the array: index 2 is then past the end (length 1).
    expect(() => applyJsonPatch({ list: [1, 2] }, [{ op: 'move', from: '/list/0', path: '/list/2' }])).toThrow(/out of bounds/);
    expect(applyJsonPatch({ list: [1, 2] }, [{ op: 'move', from: '/list/0', path: '/list/1' }])).toEqual({ list: [2, 1] });
    expect(applyJsonPatch({ a: { b: 1 }, c: {} }, [{ op: 'move', from: '/a/b', path: '/c/b' }])).toEqual({ a: {}, c: { b: 1 } });
    const original = { a: 1, list: [0] };
    expect(() => applyJsonPatch(original, [{ op: 'move', from: '/a', path: '/missing/x' }])).toThrow(/does not exist/);
    expect(original).toEqual({ a: 1, list: [0] });
  });
});

/** Items in a decoded strict value (each takes at least one input byte). */
function itemCount(value: CborValue): number {
  if (Array.isArray(value)) return 1 + (value as readonly CborValue[]).reduce((n: number, v) => n + itemCount(v), 0);
  if (value instanceof Map) {
    let n = 1;
    for (const [k, v] of value as ReadonlyMap<CborValue, CborValue>) n += itemCount(k) + itemCount(v);
    return n;
  }
  return 1;
}

/** Argument values a spliced head may claim: small, around the input, and past every integer width. */
const CLAIMS = [0n, 1n, 23n, 24n, 64n, 65n, 255n, 0x7fff_ffffn, 0xffff_ffffn, (1n << 53n) + 1n, (1n << 63n) + 5n, (1n << 64n) - 1n];

type Mutation =
  | { readonly op: 'truncate'; readonly at: number }
  | { readonly op: 'flip'; readonly at: number; readonly value: number }
  | { readonly op: 'length'; readonly at: number; readonly wide: boolean; readonly claim: bigint };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ op: fc.constant('truncate' as const), at: fc.nat() }),
  fc.record({ op: fc.constant('flip' as const), at: fc.nat(), value: fc.nat({ max: 255 }) }),
  fc.record({ op: fc.constant('length' as const), at: fc.nat(), wide: fc.boolean(), claim: fc.oneof(fc.constantFrom(...CLAIMS), fc.bigInt({ min: 0n, max: 4096n })) }),
);

/**
 * Truncates, overwrites a byte, or splices a length: the head at `at` keeps its major type and gets
 * a four- or eight-byte argument `claim` (low bits kept when it does not fit four), inserted in
 * place of its own additional information.
 */
function mutate(bytes: Uint8Array, m: Mutation): Uint8Array {
  const at = m.at % Math.max(1, bytes.length);
  if (m.op === 'truncate') return bytes.slice(0, at);
  const out = bytes.slice();
  if (m.op === 'flip') {
    out[at] = m.value;
    return out;
  }
  const major = (bytes[at] ?? 0) & 0xe0;
  const width = m.wide ? 8 : 4;
  const arg: number[] = [];
  for (let i = width - 1; i >= 0; i--) arg.push(Number((m.claim >> BigInt(8 * i)) & 0xffn));
  return concat(bytes.subarray(0, at), [major | (m.wide ? 27 : 26)], arg, bytes.subarray(at + 1));
}

const STRICT_SAMPLES = ['agent_body_ref', 'agent_card', 'agent_dead_letter', 'agent_error_body', 'agent_presence', 'fold_snapshot', 'hello_reply_features'].map((n) =>
  fixtureBytes(`upstream/${n}.bin`),
);

describe('property: spliced lengths, truncation and flips only ever produce typed errors', () => {
  it('decodeEnvelope: a typed error or an envelope no larger than its input, with bounded key work', () => {
    fc.assert(
      fc.property(validEnvelope, fc.array(mutation, { minLength: 1, maxLength: 3 }), (env, mutations) => {
        const bytes = mutations.reduce(mutate, encodeEnvelope(env));
        fromCharCode.mockClear();
        try {
          const decoded = decodeEnvelope(bytes);
          expect((decoded.body?.length ?? 0) + (decoded.metadata?.size ?? 0)).toBeLessThanOrEqual(bytes.length);
        } catch (error) {
          if (!AgdxError.is(error, 'codec') && !AgdxError.is(error, 'invalid')) throw error;
        }
        expect(fromCharCode.mock.calls.length).toBeLessThanOrEqual(2 * bytes.length);
      }),
      { seed: SEED, numRuns: 2000 },
    );
  });

  it('decodeStrictCbor: a typed error or a value of at most one item per input byte, with bounded key work', () => {
    fc.assert(
      fc.property(fc.constantFrom(...STRICT_SAMPLES), fc.array(mutation, { minLength: 1, maxLength: 3 }), (sample, mutations) => {
        const bytes = mutations.reduce(mutate, sample);
        fromCharCode.mockClear();
        try {
          expect(itemCount(decodeStrictCbor(bytes))).toBeLessThanOrEqual(bytes.length);
        } catch (error) {
          if (!AgdxError.is(error, 'codec')) throw error;
        }
        expect(fromCharCode.mock.calls.length).toBeLessThanOrEqual(2 * bytes.length);
      }),
      { seed: SEED, numRuns: 2000 },
    );
  });
});
