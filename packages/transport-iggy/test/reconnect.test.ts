import { afterAll, beforeAll, describe, it } from 'vitest';
import { runDropScenario } from './support/drop-scenario.js';
import { startFakeServer, type FakeServer } from './support/fake-iggy-server.js';

let server: FakeServer;
beforeAll(async () => {
  server = await startFakeServer();
});
afterAll(async () => {
  await server.close();
});

describe('a connection dropped mid-stream (fake server)', () => {
  for (const protocol of ['vsr', 'classic'] as const) {
    it(`${protocol}: the member reconnects, re-joins and continues from the committed offset`, async () => {
      await runDropScenario(server.port, protocol);
    });
  }
});
