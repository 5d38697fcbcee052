/**
 * Hostile input to the dev server over TCP (seeded, short run): recorded real sessions of both
 * protocols replayed mutated on many short connections. No internal error, no leaked
 * connection, and correct clients are still served afterwards.
 */
import { describe, expect, it } from 'vitest';
import { fuzzDevServer } from './support/server-fuzz.js';

describe('hostile bytes to the dev server', () => {
  it('survives 600 mutated sessions of both protocols', async () => {
    const report = await fuzzDevServer(0x5e7e, 600, 6, 20_000);
    expect(report.internalErrors).toEqual([]);
    expect(report.leakedConnections).toBe(0);
    expect(report.healthy).toBe(true);
    expect(report.connections).toBeGreaterThan(100);
    expect(report.closedByServer).toBeGreaterThan(0);
  });
});
