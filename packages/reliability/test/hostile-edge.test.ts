/**
 * Hostile HTTP input to the A2A, MCP and AG-UI handlers (seeded, short run): every request gets
 * an answer below 500 within the bound (a handler never throws and never leaks an internal
 * error); only an AG-UI follow stream may still be open when the bound runs out.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { edgeHandlers, fuzzEdge, type EdgeHandlers } from './support/edge-handlers.js';

const REQUESTS = 150;
const handlers: EdgeHandlers = await edgeHandlers();
afterAll(() => handlers.client.close());

describe('hostile requests to the edge handlers', () => {
  for (const [index, kind] of (['a2a', 'mcp', 'agui'] as const).entries()) {
    it(`${kind}: ${REQUESTS} seeded requests, no 5xx, no throw, no hang`, async () => {
      const report = await fuzzEdge(handlers, kind, 0xed9e + index, REQUESTS, kind === 'agui' ? 60 : 2_000, 20_000);
      expect(report.failureSamples).toEqual([]);
      expect(report.failures).toBe(0);
      expect(report.requests).toBe(REQUESTS);
      // The refusals dominate, and some requests reach the bridge.
      expect(Object.keys(report.statuses).some((s) => Number(s) >= 400)).toBe(true);
      expect(report.statuses['200'] ?? 0).toBeGreaterThan(0);
    });
  }
});
