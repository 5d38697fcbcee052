// The plain-JavaScript XXH3-64 that hashes inputs of up to 240 bytes (every frame of a small
// message) against hash-wasm, the library the rest of the package hashes with: every length from
// 0 to 256 (each of the short paths and the switch to hash-wasm above 240), random contents,
// every byte value at the edges, and unaligned views into a larger buffer.
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { decodeMessageBatch, encodeMessageBatch, initChecksums, xxh3_64 } from '@agdx/iggy-protocol';
import { expectedXxh3, loadReference, pattern } from './support/xxh3-reference.js';

beforeAll(async () => {
  await initChecksums();
  await loadReference();
});

describe('XXH3-64 of short inputs', () => {
  it('equals hash-wasm for every length 0..256 over several contents', () => {
    for (let length = 0; length <= 256; length++) {
      for (const seed of [1, 7, 0xdeadbeef]) {
        const bytes = pattern(length, seed + length);
        expect(xxh3_64(bytes), `length ${length}, seed ${seed}`).toBe(expectedXxh3(bytes));
      }
      expect(xxh3_64(new Uint8Array(length).fill(0xff)), `length ${length}, all ones`).toBe(expectedXxh3(new Uint8Array(length).fill(0xff)));
      expect(xxh3_64(new Uint8Array(length)), `length ${length}, all zeros`).toBe(expectedXxh3(new Uint8Array(length)));
    }
  });

  it('equals hash-wasm for random inputs and unaligned views', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.nat({ max: 7 }), (bytes, shift) => {
        const host = new Uint8Array(bytes.length + shift + 3);
        host.set(bytes, shift);
        const view = host.subarray(shift, shift + bytes.length);
        expect(xxh3_64(view)).toBe(expectedXxh3(bytes));
      }),
      { numRuns: 2000 },
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
