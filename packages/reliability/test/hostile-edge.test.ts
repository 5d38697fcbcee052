/**
 * Hostile HTTP input to the A2A, MCP and AG-UI handlers (seeded, short run): every request gets
 * an answer below 500 within the bound (a handler never throws and never leaks an internal
 * error); only an AG-UI follow stream may still be open when the bound runs out.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { SeededRandom } from '@agdx/reliability';
import { edgeHandlers, exchange, hostileRequest, type EdgeHandlers } from './support/edge-handlers.js';

const REQUESTS = 150;
const handlers: EdgeHandlers = await edgeHandlers();
afterAll(() => handlers.client.close());

describe('hostile requests to the edge handlers', () => {
  for (const [index, kind] of (['a2a', 'mcp', 'agui'] as const).entries()) {
    it(`${kind}: ${REQUESTS} seeded requests, no 5xx, no throw, no hang`, async () => {
      const random = new SeededRandom(0xed9e + index);
      const statuses = new Map<number, number>();
      let streaming = 0;
      for (let i = 0; i < REQUESTS; i++) {
        const abort = new AbortController();
        const outcome = await exchange(handlers[kind], hostileRequest(random, kind, abort.signal), abort, kind === 'agui' ? 60 : 2_000);
        statuses.set(outcome.status, (statuses.get(outcome.status) ?? 0) + 1);
        if (outcome.streaming) streaming += 1;
        expect(outcome.status, `request #${i}`).toBeGreaterThanOrEqual(200);
        expect(outcome.status, `request #${i}`).toBeLessThan(500);
        if (kind !== 'agui') expect(outcome.streaming, `request #${i} still streaming`).toBe(false);
      }
      // The refusals dominate, and some requests reach the bridge.
      expect([...statuses.keys()].some((s) => s >= 400)).toBe(true);
      expect(statuses.get(200) ?? 0).toBeGreaterThan(0);
      void streaming;
    });
  }
});
