/**
 * A client that checks (short run, seeded): through a tampering proxy in front of the dev
 * server, every poll reply with a bit flipped inside a payload is refused with
 * ChecksumMismatchError and no corrupted record reaches the caller, on both protocols; a
 * duplicated reply never answers the next call; on VSR a renumbered reply is refused, reads
 * still answer correctly and an append is stored exactly once. Long run: scripts/integrity.ts.
 */
import { describe, expect, it } from 'vitest';
import { runIntegrity } from './support/integrity-scenario.js';

describe('a client that checks', () => {
  for (const [i, protocol] of (['vsr', 'classic'] as const).entries()) {
    it(`${protocol}: detects every corrupted payload, never takes a duplicated or renumbered reply`, async () => {
      const report = await runIntegrity({ seed: 0x1c0 + i, protocol, corruptions: 60, duplicates: 20, renumbers: 10 });
      expect(report.untypedErrors).toEqual([]);
      expect(report.corrupted).toBe(60);
      expect(report.detected).toBe(report.corrupted);
      expect(report.otherTyped).toBe(0);
      expect(report.corruptedDelivered).toBe(0);
      expect(report.duplicated).toBe(20);
      expect(report.duplicateWrongAnswers).toBe(0);
      if (protocol === 'vsr') {
        expect(report.renumbered).toBe(10);
        expect(report.renumberWrongAnswers).toBe(0);
        expect(report.renumberedAppendsNotOnce).toBe(0);
      }
    }, 60_000);
  }
});
