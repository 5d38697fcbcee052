/**
 * Network faults, short run: through a fault proxy (delay, silence, cut, half-close, refusal),
 * every call of @agdx/transport-iggy settles within its bound with success or a typed error,
 * the clients recover, and no acknowledged append is missing afterwards. Both wire protocols.
 */
import { describe, expect, it } from 'vitest';
import { runNetworkFaults } from './support/network-scenario.js';
import { replyHubAfterReaderFailure, runRequestFaults } from './support/request-faults.js';

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
    }, 60_000);
  }
});

describe('correlated requests through network faults', () => {
  it('every request settles within its timeout (plus the send bound), answers are right, and requests work again afterwards', async () => {
    // The 600 ms pause before recovery lets the reply hub idle out (see the known bug below).
    const report = await runRequestFaults(0x7e9, 24, 4, 800, 600);
    expect(report.untypedErrors).toEqual([]);
    expect(report.overBound).toBe(0);
    expect(report.wrongAnswers).toBe(0);
    expect(report.answered).toBeGreaterThan(0);
    expect(Object.keys(report.failed).length).toBeGreaterThan(0);
    expect(report.recovered, report.trace.join(' ')).toBe(true);
  }, 90_000);

  // When a reply-hub reader fails (a transport error, here a silent network), the pending waits
  // fail typed and the hub retires its readers, so the next wait starts fresh ones.
  it('a reply hub whose readers failed: the pending wait fails typed', async () => {
    const report = await replyHubAfterReaderFailure();
    expect(report.before).toBe('ok');
    expect(['timeout', 'transport']).toContain(report.during);
  });

  it('a request sent right after the network is back gets its reply', async () => {
    const report = await replyHubAfterReaderFailure();
    expect(report.after).toBe('ok');
  });
});
