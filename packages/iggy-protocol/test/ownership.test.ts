import { describe, expect, it } from 'vitest';
import { ClassicResponseSplitter, encodeClassicResponse, randomMessageId } from '@agdx/iggy-protocol';

describe('frame splitters own their output', () => {
  it('frames and the kept tail are plain copies, even when fed a Node Buffer', () => {
    const one = encodeClassicResponse(0, new Uint8Array([1, 2, 3, 4]));
    const two = encodeClassicResponse(0, new Uint8Array([5, 6, 7, 8]));
    // A socket hands out Buffers whose memory it may reuse; feed a whole frame plus half of the next.
    const chunk = Buffer.concat([Buffer.from(one), Buffer.from(two.subarray(0, 5))]);
    const splitter = new ClassicResponseSplitter();
    const frames = splitter.push(chunk);
    expect(frames).toHaveLength(1);
    expect(Buffer.isBuffer(frames[0])).toBe(false);
    const before = Array.from(frames[0]!);
    chunk.fill(0xee);
    expect(Array.from(frames[0]!)).toEqual(before);
    const rest = splitter.push(Buffer.from(two.subarray(5)));
    expect(rest.map((f) => Array.from(f))).toEqual([Array.from(two)]);
  });
});

describe('message ids', () => {
  it('are distinct random UUID v4 values across pool refills', () => {
    const seen = new Set<bigint>();
    for (let i = 0; i < 2000; i++) {
      const id = randomMessageId();
      const hex = id.toString(16).padStart(32, '0');
      expect(hex[12]).toBe('4');
      expect('89ab').toContain(hex[16]);
      seen.add(id);
    }
    expect(seen.size).toBe(2000);
  });
});
