/**
 * Hostile input, short run: seeded random and mutated inputs to every pure decoder. The contract
 * is no untyped throw (only branded AGDX errors) and no input slow enough to look like a hang.
 * The long run (scripts/fuzz.ts) feeds a million inputs through the same targets.
 */
import { describe, expect, it } from 'vitest';
import { decoderTargets, fuzzDecoder } from './support/decoder-targets.js';

const INPUTS_PER_TARGET = 4_000;
const targets = await decoderTargets();

describe('hostile input to the decoders (seeded, short run)', () => {
  for (const [index, target] of targets.entries()) {
    it(`${target.name}: ${INPUTS_PER_TARGET} inputs, typed refusals only, none slow`, () => {
      const report = fuzzDecoder(target, 0x5eed + index, INPUTS_PER_TARGET, 10_000);
      expect(report.outcomes.samples).toEqual([]);
      expect(report.outcomes.untyped).toBe(0);
      expect(report.inputs).toBeGreaterThan(500);
      // Both paths are exercised: some inputs still decode, most are refused.
      expect(report.outcomes.typed).toBeGreaterThan(0);
      expect(report.slowestInputMs).toBeLessThan(2_000);
    });
  }
});
