// The JavaScript XXH3-64 and XXH32 (the package's default hashing, no WebAssembly) held to
// hash-wasm: every length 0..300 (each short class: 0, 1-3, 4-8, 9-16, 17-128, 129-240, and the
// stripe loop above), the block and stripe boundaries of the long path up to 64 KiB and beyond,
// random inputs from a seeded generator in unaligned views, and the streaming form fed in random
// chunkings, which must equal the one-shot hash.
import fc from 'fast-check';
import { createXXHash32 } from 'hash-wasm';
import type { IHasher } from 'hash-wasm';
import { beforeAll, describe, expect, it } from 'vitest';
import { decodeMessageBatch, encodeMessageBatch, partitionForKey, wasmBatchHashingReady, xxh32, xxh3_64, xxh3Stream } from '@agdx/iggy-protocol';
import { expectedXxh3, loadReference, pattern } from './support/xxh3-reference.js';

let reference32: IHasher;

beforeAll(async () => {
  await loadReference();
  reference32 = await createXXHash32(0);
});

/** Fixed-seed fast-check runs (a failure names the same inputs on every machine), unshrunk: shrinking kilobyte inputs through two hashers takes minutes. */
const SEEDED = { seed: 20261202, endOnFailure: true } as const;

/** Lengths around every place the long path changes course: stripes (64), blocks (1,024). */
function boundaryLengths(): number[] {
  const out = new Set<number>();
  for (const base of [1024, 2048, 4096, 16384, 65536]) for (let d = -65; d <= 65; d += 1) out.add(base + d);
  for (const extra of [1024 * 17 + 1, 100_000, 1 << 20]) out.add(extra);
  return [...out].sort((a, b) => a - b);
}

function feed(bytes: Uint8Array, cuts: readonly number[]): bigint {
  const stream = xxh3Stream();
  let at = 0;
  for (const cut of [...cuts].sort((a, b) => a - b)) {
    stream.update(bytes.subarray(at, cut));
    at = cut;
  }
  stream.update(bytes.subarray(at));
  return stream.digest();
}

describe('XXH3-64 in JavaScript', () => {
  it('runs without WebAssembly unless a caller installs it', () => {
    expect(wasmBatchHashingReady()).toBe(false);
  });

  it('equals hash-wasm for every length 0..300 over several contents', () => {
    for (let length = 0; length <= 300; length++) {
      for (const seed of [1, 7, 0xdeadbeef]) {
        const bytes = pattern(length, seed + length);
        expect(xxh3_64(bytes), `length ${length}, seed ${seed}`).toBe(expectedXxh3(bytes));
      }
      for (const fill of [0x00, 0xff]) {
        const bytes = new Uint8Array(length).fill(fill);
        expect(xxh3_64(bytes), `length ${length}, all ${fill}`).toBe(expectedXxh3(bytes));
      }
    }
  });

  it('equals hash-wasm at the stripe and block boundaries of the long path, 1 KiB and 64 KiB included', () => {
    for (const length of boundaryLengths()) {
      const bytes = pattern(length, length);
      expect(xxh3_64(bytes), `length ${length}`).toBe(expectedXxh3(bytes));
    }
  });

  it('equals hash-wasm for seeded random inputs in unaligned views', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 5000, size: 'max' }), fc.nat({ max: 7 }), (bytes, shift) => {
        const host = new Uint8Array(bytes.length + shift + 3).fill(0xa5);
        host.set(bytes, shift);
        expect(xxh3_64(host.subarray(shift, shift + bytes.length))).toBe(expectedXxh3(bytes));
      }),
      { ...SEEDED, numRuns: 400 },
    );
  });

  it('matches the published XXH3-64 of the empty input', () => {
    expect(xxh3_64(new Uint8Array(0))).toBe(0x2d06800538d394c2n);
  });

  it('gives frame checksums a hash-wasm-checked decoder accepts, for payloads around the 240-byte switch', () => {
    // frame bytes 8..end are 40 + payload + headers, so payloads of 180..220 straddle 240.
    const messages = Array.from({ length: 41 }, (_, i) => ({ id: BigInt(i + 1), payload: pattern(180 + i, i), originTimestamp: 1_700_000_000_000_000n }));
    const batch = encodeMessageBatch(messages);
    const decoded = decodeMessageBatch(batch, 0, { verifyChecksums: true });
    let at = 256;
    for (const frame of decoded.frames) {
      const end = at + 48 + frame.payload.length + frame.rawHeaders.length;
      expect(frame.checksum).toBe(expectedXxh3(batch.subarray(at + 8, end)));
      at = end;
    }
  });
});

describe('streaming XXH3-64', () => {
  it('equals the one-shot hash for seeded random inputs in random chunkings', () => {
    const input = fc.uint8Array({ maxLength: 4500, size: 'max' }).chain((bytes) => fc.tuple(fc.constant(bytes), fc.array(fc.nat({ max: bytes.length }), { maxLength: 40, size: 'max' })));
    fc.assert(
      fc.property(input, ([bytes, cuts]) => {
        expect(feed(bytes, cuts)).toBe(expectedXxh3(bytes));
      }),
      { ...SEEDED, numRuns: 400 },
    );
  });

  it('equals the one-shot hash for every length 0..300 fed byte by byte and in two halves', () => {
    for (let length = 0; length <= 300; length++) {
      const bytes = pattern(length, 3 * length + 1);
      const expected = expectedXxh3(bytes);
      expect(feed(bytes, Array.from({ length }, (_, i) => i)), `length ${length} byte by byte`).toBe(expected);
      expect(feed(bytes, [length >> 1]), `length ${length} in halves`).toBe(expected);
    }
  });

  it('equals the one-shot hash at block boundaries and for 64 KiB in uneven parts', () => {
    for (const length of boundaryLengths()) {
      const bytes = pattern(length, length + 11);
      const cuts = Array.from({ length: Math.floor(length / 977) }, (_, i) => i * 977 + (i % 5) * 64);
      expect(feed(bytes, cuts.filter((c) => c <= length)), `length ${length}`).toBe(expectedXxh3(bytes));
    }
  });

  it('keeps streams independent and can digest, then be fed again', () => {
    const a = pattern(3000, 5), b = pattern(2500, 6);
    const sa = xxh3Stream(), sb = xxh3Stream();
    sa.update(a.subarray(0, 1000));
    sb.update(b.subarray(0, 700));
    expect(sa.digest()).toBe(expectedXxh3(a.subarray(0, 1000)));
    sa.update(a.subarray(1000));
    sb.update(b.subarray(700));
    expect(sa.digest()).toBe(expectedXxh3(a));
    expect(sb.digest()).toBe(expectedXxh3(b));
    expect(xxh3Stream().digest()).toBe(0x2d06800538d394c2n);
  });
});

describe('XXH32 (js-xxhash)', () => {
  const expected32 = (bytes: Uint8Array): number => {
    reference32.init();
    reference32.update(bytes);
    return Number.parseInt(reference32.digest('hex'), 16);
  };

  it('equals hash-wasm for every length 0..300 in unaligned views', () => {
    const backing = pattern(304, 99);
    for (let length = 0; length <= 300; length++) {
      for (let offset = 0; offset < 4; offset++) {
        const view = backing.subarray(offset, offset + length);
        expect(xxh32(view), `length ${length} offset ${offset}`).toBe(expected32(view));
      }
    }
  });

  it('equals hash-wasm for seeded random inputs, and partitions keys by it', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 2048, size: 'max' }), fc.integer({ min: 1, max: 1000 }), (bytes, partitions) => {
        const h = expected32(bytes);
        expect(xxh32(bytes)).toBe(h);
        expect(partitionForKey(bytes, partitions)).toBe(h % partitions);
      }),
      { ...SEEDED, numRuns: 500 },
    );
  });
});
