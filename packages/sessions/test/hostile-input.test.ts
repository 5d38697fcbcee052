import { describe, expect, it } from 'vitest';
import { AgdxError } from '@agdx/wire';
import { Checkpoint, decodeMemoryRecord } from '@agdx/sessions';

// A small deterministic generator, so a failure reproduces.
function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const ALPHABET = '{}[]":,0123456789-+.eE truefalsnul\\"per_topic\u0000\u00ff';

describe('hostile input never escapes as an untyped throw', () => {
  it('Checkpoint.fromJSON on 3,000 mutated texts throws only InvalidError', () => {
    const rand = lcg(7);
    const seedText = '{"per_topic":{"agent.commands":{"0":12,"1":18446744073709551615}}}';
    for (let n = 0; n < 3000; n++) {
      const chars = [...seedText];
      const edits = 1 + Math.floor(rand() * 4);
      for (let e = 0; e < edits; e++) {
        const at = Math.floor(rand() * (chars.length + 1));
        const c = ALPHABET[Math.floor(rand() * ALPHABET.length)] as string;
        const op = rand();
        if (op < 0.33) chars.splice(at, 1);
        else if (op < 0.66) chars.splice(at, 0, c);
        else chars[at] = c;
      }
      const text = chars.join('');
      try {
        Checkpoint.fromJSON(text);
      } catch (error) {
        expect(AgdxError.is(error, 'invalid'), `${text}: ${String(error)}`).toBe(true);
      }
    }
  });

  it('decodeMemoryRecord on 3,000 random byte strings throws only CodecError', () => {
    const rand = lcg(11);
    for (let n = 0; n < 3000; n++) {
      const bytes = new Uint8Array(Math.floor(rand() * 40));
      for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(rand() * 256);
      if (rand() < 0.5 && bytes.length > 0) bytes[0] = 0xa1;
      try {
        decodeMemoryRecord(bytes);
      } catch (error) {
        expect(AgdxError.is(error, 'codec'), String(error)).toBe(true);
      }
    }
  });
});
