import { ManualLogClock, MemoryLog } from '@agdx/transport';
import { IggyTransport } from '@agdx/transport-iggy';
import { describeLogTransportConformance } from '@agdx/transport/testkit';
import { afterAll, beforeAll } from 'vitest';
import { startFakeServer, type FakeServer } from './support/fake-iggy-server.js';

// The fake server runs a MemoryLog on a manual clock, so the expiry test can move time.
const clock = new ManualLogClock();
let server: FakeServer;
beforeAll(async () => {
  server = await startFakeServer({ log: new MemoryLog({ clock }) });
});
afterAll(async () => {
  await server.close();
});

for (const protocol of ['vsr', 'classic'] as const) {
  describeLogTransportConformance(`IggyTransport (${protocol}) over TCP against the fake server`, async () => {
    const connect = (): Promise<IggyTransport> => IggyTransport.connect(server.url, { protocol, requestTimeoutMs: 5000 });
    return { transport: await connect(), reopen: connect, advanceTime: (micros: bigint) => clock.advance(micros) };
  });
}

// Several shared connections (calls spread least-busy first) must not change any semantics.
for (const protocol of ['vsr', 'classic'] as const) {
  describeLogTransportConformance(`IggyTransport (${protocol}, 3 connections) over TCP against the fake server`, async () => {
    const connect = (): Promise<IggyTransport> => IggyTransport.connect(server.url, { protocol, requestTimeoutMs: 5000, connections: 3 });
    return { transport: await connect(), reopen: connect, advanceTime: (micros: bigint) => clock.advance(micros) };
  });
}
