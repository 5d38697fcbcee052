/**
 * Hostile replies: random bytes in place of a reply frame, or as a reply payload, must end the
 * call with a typed error (or a result), never an untyped throw, a crash or a hang, and the
 * transport must keep working afterwards.
 */

import { CommandCode } from '@agdx/iggy-protocol';
import { IggyTransport } from '@agdx/transport-iggy';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeAction } from './support/fake-iggy-server.js';
import { startFakeServer, type FakeServer } from './support/fake-iggy-server.js';

const BRAND = Symbol.for('agdx.error');
const KINDS = new Set(['transport', 'timeout', 'not-found', 'invalid', 'conflict']);

let server: FakeServer;
let fault: FakeAction | undefined;
beforeAll(async () => {
  server = await startFakeServer({ intercept: (r) => (r.code === CommandCode.GetTopic ? fault : undefined) });
});
afterAll(async () => {
  await server.close();
});

for (const protocol of ['vsr', 'classic'] as const) {
  describe(`hostile replies (${protocol})`, () => {
    it('random frames and payloads give typed errors, and the next call works', async () => {
      const t = await IggyTransport.connect(server.url, { protocol, requestTimeoutMs: 150, heartbeatIntervalMs: 0, reconnect: { maxAttempts: 5, initialDelayMs: 1 } });
      try {
        const stream = `hostile-${protocol}`;
        await t.ensureStream(stream);
        await t.ensureTopic({ stream, topic: 't' }, { partitions: 1 });
        await fc.assert(
          fc.asyncProperty(fc.boolean(), fc.uint8Array({ maxLength: 600 }), async (asFrame, bytes) => {
            fault = asFrame ? { raw: bytes } : { payload: bytes };
            try {
              await t.describeTopic({ stream, topic: 't' });
            } catch (error) {
              expect((error as Record<symbol, unknown>)[BRAND]).toBe(true);
              expect(KINDS.has((error as { kind: string }).kind)).toBe(true);
            }
            fault = undefined;
            expect((await t.describeTopic({ stream, topic: 't' })).partitionCount).toBe(1);
          }),
          { numRuns: 40, seed: 20261130 },
        );
      } finally {
        fault = undefined;
        await t.close();
      }
    }, 60_000);
  });
}
