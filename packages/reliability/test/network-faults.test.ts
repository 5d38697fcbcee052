/**
 * Network faults, short run: through a fault proxy (delay, silence, cut, half-close, refusal),
 * every call of @agdx/transport-iggy settles within its bound with success or a typed error,
 * the clients recover, and no acknowledged append is missing afterwards. Both wire protocols.
 */
import { describe, expect, it } from 'vitest';
import { runNetworkFaults } from './support/network-scenario.js';

describe('network faults between client and dev server', () => {
  for (const [index, protocol] of (['vsr', 'classic'] as const).entries()) {
    it(`${protocol}: no hang, no untyped error, no acknowledged append lost`, async () => {
      const report = await runNetworkFaults({ seed: 0xfa17 + index, protocol, calls: 150, maxMs: 6_000, clients: 3, requestTimeoutMs: 300, callsPerPhase: 15 });
      expect(report.untypedErrors).toEqual([]);
      expect(report.overBound).toBe(0);
      expect(report.acknowledgedMissing).toBe(0);
      expect(report.recovered).toBe(true);
      expect(report.acknowledged).toBeGreaterThan(20);
      // The schedule really injected faults and the clients really reconnected.
      expect(Object.values(report.failed).reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
      expect(report.reconnects).toBeGreaterThan(0);
    });
  }
});
