import { IggyTransport } from '@agdx/transport-iggy';
import { describeLogTransportConformance } from '@agdx/transport/testkit';
import { afterAll, beforeAll } from 'vitest';
import { startFakeServer, type FakeServer } from './support/fake-iggy-server.js';

let server: FakeServer;
beforeAll(async () => {
  server = await startFakeServer();
});
afterAll(async () => {
  await server.close();
});

for (const protocol of ['vsr', 'classic'] as const) {
  describeLogTransportConformance(`IggyTransport (${protocol}) over TCP against the fake server`, async () => {
    const connect = (): Promise<IggyTransport> => IggyTransport.connect(server.url, { protocol, requestTimeoutMs: 5000 });
    return { transport: await connect(), reopen: connect };
  });
}
