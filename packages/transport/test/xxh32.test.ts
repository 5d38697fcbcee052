import fc from 'fast-check';
import { createXXHash32 } from 'hash-wasm';
import { describe, expect, it } from 'vitest';
import { partitionForKey, xxh32 } from '@agdx/transport';
import { IGGY_XXH32_VECTORS } from '../../../test/vectors/xxh32-iggy.js';
import { xxh32Bytes } from '../src/xxh32.js';

const text = new TextEncoder();

describe('XXH32 in plain TypeScript', () => {
  it('matches the Iggy vectors', async () => {
    for (const [input, expected] of IGGY_XXH32_VECTORS) {
      const bytes = typeof input === 'string' ? text.encode(input) : input;
      expect(xxh32Bytes(bytes)).toBe(expected);
      expect(await xxh32(input)).toBe(expected);
    }
  });

  it('matches hash-wasm for every length 0..300, unaligned views and several seeds', async () => {
    const seeds = [0, 1, 0x9e3779b1, 0xffffffff];
    const hashers = await Promise.all(seeds.map((seed) => createXXHash32(seed)));
    const backing = Uint8Array.from({ length: 304 }, (_, i) => (i * 131 + 7) & 0xff);
    for (let length = 0; length <= 300; length += 1) {
      for (let offset = 0; offset < 4; offset += 1) {
        const view = backing.subarray(offset, offset + length);
        seeds.forEach((seed, s) => {
          const h = hashers[s]!;
          h.init();
          h.update(view);
          expect(xxh32Bytes(view, seed), `length ${length} offset ${offset} seed ${seed}`).toBe(Number.parseInt(h.digest('hex'), 16));
        });
      }
    }
  });

  it('matches hash-wasm on random inputs', async () => {
    const hasher = await createXXHash32(0);
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 2048 }), (bytes) => {
        hasher.init();
        hasher.update(bytes);
        return xxh32Bytes(bytes) === Number.parseInt(hasher.digest('hex'), 16);
      }),
      { numRuns: 500 },
    );
  });

  it('routes keys without any asynchronous start-up', async () => {
    expect(await partitionForKey('user-123', 7)).toBe(0x0cc9ec8c % 7);
  });
});
