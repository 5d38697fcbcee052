import { describe, expect, it } from 'vitest';
import { ByteSlab, TransportError } from '@agdx/transport';

describe('ByteSlab', () => {
  it('hands out zero-filled views that never overlap, in slabs of the given size', () => {
    const slab = new ByteSlab(64, 16);
    const views = Array.from({ length: 20 }, (_, i) => slab.take(1 + (i % 16)));
    views.forEach((view, i) => {
      expect(view.length).toBe(1 + (i % 16));
      expect(view.every((b) => b === 0)).toBe(true);
      view.fill(i + 1);
    });
    // Writing every view left each one holding only its own mark.
    views.forEach((view, i) => expect(view.every((b) => b === i + 1)).toBe(true));
    expect(views.every((view) => view.buffer.byteLength === 64)).toBe(true);
    expect(new Set(views.map((v) => v.buffer)).size).toBeGreaterThan(1);
  });

  it('gives a request above the carve limit its own buffer, and starts a new slab when one was detached', () => {
    const slab = new ByteSlab(64, 16);
    const big = slab.take(17);
    expect(big.byteOffset).toBe(0);
    expect(big.buffer.byteLength).toBe(17);
    const first = slab.take(8);
    structuredClone(first.buffer, { transfer: [first.buffer] });
    const next = slab.take(8);
    expect(next.length).toBe(8);
    expect(next.buffer).not.toBe(first.buffer);
  });

  it('rejects sizes that cannot work with a typed error', () => {
    for (const [slabBytes, limit] of [[0, 1], [64, 0], [64, 65], [1.5, 1], [64, Number.NaN]] as const) {
      let error: unknown;
      try {
        new ByteSlab(slabBytes, limit);
      } catch (e) {
        error = e;
      }
      expect(TransportError.is(error, 'invalid')).toBe(true);
    }
  });
});
