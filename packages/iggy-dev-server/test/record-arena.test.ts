import { describe, expect, it } from 'vitest';
import { FIRST_SLAB_BYTES, IN_PLACE_BYTES, MAX_SLAB_BYTES, RecordArena } from '../src/log/record-arena.js';

function record(length: number, fill: number): Uint8Array {
  return new Uint8Array(length).fill(fill);
}

describe('RecordArena', () => {
  it('keeps a private copy of a small record: the caller may reuse its buffer', () => {
    const arena = new RecordArena();
    const source = record(300, 7);
    const kept = arena.keep(source);
    source.fill(0);
    expect(kept).toEqual(record(300, 7));
    expect(kept.buffer).not.toBe(source.buffer);
  });

  it('packs consecutive small records into one slab without overlap, each 8-byte aligned', () => {
    const arena = new RecordArena();
    const kept = Array.from({ length: 10 }, (_, i) => arena.keep(record(101 + i, i + 1)));
    for (const k of kept) expect(k.buffer).toBe((kept[0] as Uint8Array).buffer);
    // Writing one record (as stamping does) leaves every other one unchanged.
    (kept[3] as Uint8Array).fill(0xff);
    kept.forEach((k, i) => {
      expect(k.byteOffset % 8).toBe(0);
      expect(k.length).toBe(101 + i);
      if (i !== 3) expect(k.every((b) => b === i + 1)).toBe(true);
    });
  });

  it('keeps a record of IN_PLACE_BYTES or more as handed over', () => {
    const arena = new RecordArena();
    const large = record(IN_PLACE_BYTES, 3);
    expect(arena.keep(large)).toBe(large);
    const small = record(IN_PLACE_BYTES - 1, 4);
    expect(arena.keep(small)).not.toBe(small);
  });

  it('starts a new slab when a record does not fit, doubling up to the largest slab', () => {
    const arena = new RecordArena();
    const sizes = new Set<number>();
    let previous: ArrayBufferLike | undefined;
    let slabs = 0;
    const all: Uint8Array[] = [];
    for (let i = 0; i < 2000; i++) {
      const k = arena.keep(record(IN_PLACE_BYTES - 1, i & 0xff));
      all.push(k);
      if (k.buffer !== previous) {
        slabs++;
        sizes.add(k.buffer.byteLength);
        previous = k.buffer;
      }
    }
    expect(Math.min(...sizes)).toBe(FIRST_SLAB_BYTES);
    expect(Math.max(...sizes)).toBe(MAX_SLAB_BYTES);
    // 2,000 records of about 4 KB (8 MB) in slabs of up to 1 MiB: a few slabs, not one buffer per record.
    expect(slabs).toBeLessThan(20);
    all.forEach((k, i) => expect(k[0] === (i & 0xff) && k[k.length - 1] === (i & 0xff)).toBe(true));
  });

  it('starts over with a small slab after reset', () => {
    const arena = new RecordArena();
    for (let i = 0; i < 100; i++) arena.keep(record(2000, 1));
    const before = arena.keep(record(10, 2));
    arena.reset();
    const after = arena.keep(record(10, 3));
    expect(after.buffer).not.toBe(before.buffer);
    expect(after.buffer.byteLength).toBe(FIRST_SLAB_BYTES);
    expect(before[0]).toBe(2);
  });

  it('keeps an empty record', () => {
    expect(new RecordArena().keep(new Uint8Array(0)).length).toBe(0);
  });
});
