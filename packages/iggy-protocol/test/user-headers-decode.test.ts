// decodeUserHeaders reads a sound block in one pass (interned keys, values copied into a shared
// area) and hands anything else to the entry-by-entry path. These tests hold it to that path: the
// same headers for every block it accepts, the same error for every block it refuses.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { IggyCodecError, decodeUserHeaderEntries, decodeUserHeaders, encodeUserHeaders, headerKindFromCode, headerValue } from '@agdx/iggy-protocol';
import type { HeaderValue } from '@agdx/iggy-protocol';

const SEED = Number(process.env.FUZZ_SEED ?? 20261202);
const RUNS = Number(process.env.FUZZ_RUNS ?? 400);

const FIXED: Readonly<Record<string, number>> = { bool: 1, int8: 1, int16: 2, int32: 4, int64: 8, int128: 16, uint8: 1, uint16: 2, uint32: 4, uint64: 8, uint128: 16, float32: 4, float64: 8 };

/** The rules written out entry by entry, as the decoder applied them before its one-pass path. */
function reference(block: Uint8Array): Map<string, HeaderValue> {
  const map = new Map<string, HeaderValue>();
  for (const e of decodeUserHeaderEntries(block)) {
    if (e.keyKind !== 2) throw new IggyCodecError(`header key kind ${e.keyKind} is not string`);
    let key: string;
    try {
      key = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(e.key);
    } catch {
      throw new IggyCodecError('header key is not valid UTF-8');
    }
    const kind = headerKindFromCode(e.valueKind);
    if (kind === undefined) throw new IggyCodecError(`header ${JSON.stringify(key)} has unknown kind ${e.valueKind}`);
    const fixed = FIXED[kind];
    if (fixed !== undefined && e.value.length !== fixed) throw new IggyCodecError(`header ${JSON.stringify(key)}: ${kind} value must be ${fixed} bytes, got ${e.value.length}`);
    if (kind === 'bool' && (e.value[0] as number) > 1) throw new IggyCodecError(`header ${JSON.stringify(key)}: bool value must be 0 or 1`);
    if (map.has(key)) throw new IggyCodecError(`duplicate header key ${JSON.stringify(key)}`);
    map.set(key, { kind, value: e.value.slice() });
  }
  return map;
}

function outcome(decode: (b: Uint8Array) => Map<string, HeaderValue>, block: Uint8Array): unknown {
  try {
    return [...decode(block)].map(([k, v]) => [k, v.kind, [...v.value]]);
  } catch (error) {
    expect(error).toBeInstanceOf(IggyCodecError);
    return { error: (error as Error).message };
  }
}

const sample = (): Uint8Array =>
  encodeUserHeaders(
    new Map<string, HeaderValue>([
      ['agdx.av', headerValue.uint32(1)],
      ['agdx.ct', headerValue.uint8(0)],
      ['flag', headerValue.bool(true)],
      ['gen_ai.agent.id', headerValue.string('agent-1')],
      ['gen_ai.conversation.id', headerValue.string('01J00000000000000000000000')],
    ]),
  );

describe('decodeUserHeaders', () => {
  it('gives what the entry-by-entry rules give, headers or error, for mutated and random blocks', () => {
    const base = sample();
    fc.assert(
      fc.property(
        fc.oneof(
          fc.array(fc.tuple(fc.nat(base.length - 1), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 4 }).map((edits) => {
            const b = base.slice();
            for (const [at, byte] of edits) b[at] = byte;
            return b;
          }),
          fc.nat(base.length).map((n) => base.slice(0, n)),
          fc.uint8Array({ maxLength: 64 }).map((tail) => Uint8Array.from([...base, ...tail])),
          fc.uint8Array({ maxLength: 96 }),
        ),
        (block) => {
          expect(outcome(decodeUserHeaders, block)).toEqual(outcome(reference, block));
        },
      ),
      { seed: SEED, numRuns: RUNS },
    );
  });

  it('refuses each broken rule with the error of the entry-by-entry rules', () => {
    const entry = (keyKind: number, key: number[], valueKind: number, value: number[], keyLen = key.length, valueLen = value.length): number[] => [
      keyKind, keyLen & 255, (keyLen >> 8) & 255, 0, 0, ...key, valueKind, valueLen & 255, (valueLen >> 8) & 255, 0, 0, ...value,
    ];
    const k = [0x6b];
    const cases: number[][] = [
      [...entry(2, k, 2, [1]), ...entry(2, k, 2, [2])], // duplicate key
      entry(2, k, 11, [1, 0, 0]), // uint32 of 3 bytes
      entry(2, k, 3, [2]), // bool 2
      entry(2, k, 16, [1]), // unknown kind
      entry(2, k, 0, [1]), // value kind 0
      entry(1, k, 2, [1]), // key kind raw
      entry(0, k, 2, [1]), // key kind 0
      entry(2, [], 2, [1]), // empty key
      entry(2, k, 2, [1], 1, 256), // value length 256
      entry(2, [0xff], 2, [1]), // key not UTF-8
      [...entry(1, k, 2, [1]), 2, 9], // a typed failure, then a truncated entry: the structure is reported
      [...entry(2, k, 3, [7]), ...entry(0, k, 2, [1])], // bool 7, then key kind 0
      entry(2, k, 2, [1]).slice(0, 8), // truncated in the value header
    ];
    for (const c of cases) {
      const block = Uint8Array.from(c);
      const want = outcome(reference, block);
      expect(want).toHaveProperty('error');
      expect(outcome(decodeUserHeaders, block)).toEqual(want);
    }
  });

  it('copies values: changing the block afterwards changes no decoded value', () => {
    const block = sample();
    const decoded = decodeUserHeaders(block);
    const before = [...decoded].map(([k, v]) => [k, [...v.value]]);
    block.fill(0x7a);
    expect([...decoded].map(([k, v]) => [k, [...v.value]])).toEqual(before);
    // Typed readers use the view's offset; the view covers exactly the value.
    const av = decoded.get('agdx.av') as HeaderValue;
    expect(av.value.length).toBe(4);
    expect(new DataView(av.value.buffer, av.value.byteOffset, 4).getUint32(0, true)).toBe(1);
  });

  it('copies values and keys out of a Node Buffer too (whose slice() is a view), small block or large', () => {
    const big = encodeUserHeaders(new Map(Array.from({ length: 40 }, (_, i) => [`buffer-big-${i}`, headerValue.string(`v${i}`.repeat(60))] as const)));
    for (const bytes of [sample(), big]) {
      // A pooled Buffer: a view at an offset into shared memory, as a socket read hands over.
      const pooled = Buffer.concat([Buffer.from([9, 9, 9]), Buffer.from(bytes)]).subarray(3);
      const want = outcome(reference, Uint8Array.from(bytes));
      expect(outcome(decodeUserHeaders, pooled)).toEqual(want);
      const decoded = decodeUserHeaders(pooled);
      pooled.fill(0x7a);
      expect([...decoded].map(([k, v]) => [k, v.kind, [...v.value]])).toEqual(want);
      // The remembered keys were copied too: the same block decodes the same after the overwrite.
      expect(outcome(decodeUserHeaders, Uint8Array.from(bytes))).toEqual(want);
    }
  });

  it('decodes ever new keys, keys made to share a cache bucket, and a leading BOM as the entry-by-entry rules do', () => {
    // Same length, first and last byte: one bucket of the key cache, more keys than it holds.
    const colliding = Array.from({ length: 12 }, (_, i) => `a${String.fromCharCode(98 + i)}z`);
    for (let round = 0; round < 3; round++) {
      for (const key of colliding) {
        const block = encodeUserHeaders(new Map([[key, headerValue.string(key)]]));
        expect(outcome(decodeUserHeaders, block)).toEqual(outcome(reference, block));
      }
    }
    for (let i = 0; i < 1_000; i++) {
      const block = encodeUserHeaders(new Map([[`key-${i}`, headerValue.uint16(i)], ['agdx.av', headerValue.uint32(1)]]));
      expect(outcome(decodeUserHeaders, block)).toEqual(outcome(reference, block));
    }
    const bom = Uint8Array.from([2, 4, 0, 0, 0, 0xef, 0xbb, 0xbf, 0x6b, 2, 1, 0, 0, 0, 0x76]);
    expect(outcome(decodeUserHeaders, bom)).toEqual(outcome(reference, bom));
    // A header block larger than the shared area's share is copied on its own.
    const big = encodeUserHeaders(new Map(Array.from({ length: 40 }, (_, i) => [`big-${i}`, headerValue.string('v'.repeat(200))] as const)));
    expect(outcome(decodeUserHeaders, big)).toEqual(outcome(reference, big));
  });
  it('keeps decoding after a caller transfers a decoded value\'s buffer (the shared area is detached)', () => {
    const block = sample();
    const want = outcome(reference, block);
    const value = (decodeUserHeaders(block).get('flag') as HeaderValue).value;
    // What handing a value to a worker does to its memory: the area it is a view of is detached.
    structuredClone(value.buffer, { transfer: [value.buffer] });
    expect(value.length).toBe(0);
    expect(outcome(decodeUserHeaders, block)).toEqual(want);
    expect(outcome(decodeUserHeaders, block)).toEqual(want);
  });

  it('gives what the entry-by-entry rules give for blocks built entry by entry, with lengths off by one or by a high byte', () => {
    const u32le = (n: number): number[] => [n & 255, (n >>> 8) & 255, (n >>> 16) & 255, n >>> 24];
    const entry = fc
      .record({
        keyKind: fc.oneof({ weight: 8, arbitrary: fc.constant(2) }, { weight: 1, arbitrary: fc.integer({ min: 0, max: 255 }) }),
        key: fc.oneof(
          fc.constantFrom('a', 'ab', 'agdx.av', 'agdx.ct', '\u00e9t\u00e9', '\ufeffk').map((k) => [...new TextEncoder().encode(k)]),
          fc.uint8Array({ maxLength: 6 }).map((a) => [...a]),
        ),
        keyLengthOff: fc.oneof({ weight: 12, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.constantFrom(-1, 1, 256, 1 << 16, 1 << 24) }),
        valueKind: fc.oneof({ weight: 6, arbitrary: fc.integer({ min: 1, max: 15 }) }, { weight: 1, arbitrary: fc.integer({ min: 0, max: 255 }) }),
        value: fc.oneof(fc.uint8Array({ maxLength: 20 }), fc.constantFrom(1, 2, 4, 8, 16).map((n) => new Uint8Array(n).fill(1))).map((a) => [...a]),
        valueLengthOff: fc.oneof({ weight: 12, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.constantFrom(-1, 1, 256, 1 << 16, 1 << 24) }),
      })
      .map((e) => [
        e.keyKind, ...u32le(Math.max(0, e.key.length + e.keyLengthOff)), ...e.key,
        e.valueKind, ...u32le(Math.max(0, e.value.length + e.valueLengthOff)), ...e.value,
      ]);
    const blocks = fc
      .tuple(fc.array(entry, { maxLength: 6 }), fc.option(fc.nat(), { freq: 3 }))
      .map(([entries, cut]) => {
        const bytes = entries.flat();
        return Uint8Array.from(cut === null ? bytes : bytes.slice(0, cut % (bytes.length + 1)));
      });
    fc.assert(
      fc.property(blocks, (block) => {
        const want = outcome(reference, block.slice());
        expect(outcome(decodeUserHeaders, block.slice())).toEqual(want);
        // A pooled Buffer and a plain view, both at a non-zero byteOffset.
        expect(outcome(decodeUserHeaders, Buffer.concat([Buffer.from([1, 2, 3]), Buffer.from(block)]).subarray(3))).toEqual(want);
        expect(outcome(decodeUserHeaders, Uint8Array.from([9, ...block, 9]).subarray(1, 1 + block.length))).toEqual(want);
      }),
      { seed: SEED, numRuns: RUNS * 5 },
    );
  });

  it('never changes a decoded value afterwards, however many blocks of whatever size follow (around the shared area\'s size)', () => {
    const raw = (tag: number, size: number): Uint8Array => {
      // Entries with raw values, keys and bytes tagged by the block, filled up to about `size` bytes.
      const entries: [string, HeaderValue][] = [];
      let used = 0;
      for (let i = 0; used + 10 + 12 < size; i++) {
        const key = `k${tag}.${i}`;
        const length = Math.max(1, Math.min(255, size - used - 10 - key.length));
        entries.push([key, headerValue.raw(Uint8Array.from({ length }, (_, j) => (tag * 31 + j) & 255))]);
        used += 10 + key.length + length;
      }
      return encodeUserHeaders(new Map(entries));
    };
    const kept: [Map<string, HeaderValue>, unknown][] = [];
    let tag = 0;
    for (let round = 0; round < 4; round++) {
      for (const size of [40, 4_000, 4_096, 4_097, 8_000, 16_383, 16_384, 16_385, 99_990, 13, 4_096, 4_096, 4_096, 4_096]) {
        const block = raw(tag++, size);
        const decoded = decodeUserHeaders(round % 2 === 0 ? block : Buffer.from(block));
        const snapshot = [...decoded].map(([k, v]) => [k, v.kind, [...v.value]]);
        expect(snapshot).toEqual(outcome(reference, block));
        kept.push([decoded, snapshot]);
      }
    }
    for (const [decoded, snapshot] of kept) expect([...decoded].map(([k, v]) => [k, v.kind, [...v.value]])).toEqual(snapshot);
  });

  it('tells apart long keys that differ only in their middle bytes, beyond a full cache bucket', () => {
    const keys = Array.from({ length: 10 }, (_, i) => `a${'m'.repeat(126)}${String.fromCharCode(0x61 + i)}${'m'.repeat(126)}z`);
    for (let round = 0; round < 3; round++) {
      const block = encodeUserHeaders(new Map(keys.map((k, i) => [k, headerValue.uint8(i)] as const)));
      expect(outcome(decodeUserHeaders, block)).toEqual(outcome(reference, block));
    }
  });
  it('refuses huge declared lengths and oversized blocks with the entry-by-entry error, before reading further', () => {
    const k = [2, 1, 0, 0, 0, 0x6b];
    const cases = [
      Uint8Array.from([2, 0xff, 0xff, 0xff, 0xff, 0x6b]), // key length 2^32 - 1
      Uint8Array.from([...k, 2, 0xff, 0xff, 0xff, 0xff, 0x76]), // value length 2^32 - 1
      Uint8Array.from([...k, 2, 0x00, 0x00, 0x00, 0x80, 0x76]), // value length 2^31
      new Uint8Array(100_001).fill(2), // one byte above the block limit
    ];
    for (const block of cases) {
      const want = outcome(reference, block);
      expect(want).toHaveProperty('error');
      expect(outcome(decodeUserHeaders, block)).toEqual(want);
    }
  });
  it('keeps a leading U+FEFF in a key as it was sent (a key differing only by it is another key), on both paths', () => {
    const sent = new Map<string, HeaderValue>([['\ufeffagdx.av', headerValue.uint32(1)], ['agdx.av', headerValue.uint32(2)], ['\ufeff', headerValue.bool(false)]]);
    const block = encodeUserHeaders(sent);
    expect([...decodeUserHeaders(block)].map(([k, v]) => [k, v.kind, [...v.value]])).toEqual([...sent].map(([k, v]) => [k, v.kind, [...v.value]]));
    // The same key twice: the one-pass path hands the block to the entry-by-entry rules, which name it as sent.
    const broken = Uint8Array.from([...encodeUserHeaders(new Map([['\ufeffk', headerValue.bool(true)]])), 2, 4, 0, 0, 0, 0xef, 0xbb, 0xbf, 0x6b, 3, 1, 0, 0, 0, 0]);
    expect(outcome(decodeUserHeaders, broken)).toEqual({ error: `duplicate header key ${JSON.stringify('\ufeffk')}` });
  });
});
