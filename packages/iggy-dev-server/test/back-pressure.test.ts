import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CommandCode,
  encodePollMessagesRequest,
  encodeSendMessagesRequest,
  initChecksums,
  partitioning,
} from '@agdx/iggy-protocol';
import { startDevServer } from '@agdx/iggy-dev-server';
import type { DevServer } from '@agdx/iggy-dev-server';
import { RawClient } from './helpers/raw-client.js';
import { createTopic } from './helpers/ops.js';

let server: DevServer;

beforeAll(async () => {
  await initChecksums();
  server = await startDevServer({ port: 0, maxPendingBytes: 1024 * 1024, maxInFlight: 16 });
});
afterAll(async () => {
  await server.close();
});

describe('back-pressure', () => {
  it('stops reading a client that does not read its replies, and keeps serving the others', async () => {
    const writer = await RawClient.connect(server.port, 'classic');
    await writer.login();
    await createTopic(writer, 'bp', 't', 1);
    const messages = Array.from({ length: 1000 }, () => ({ payload: new Uint8Array(1000).fill(7) }));
    await writer.ok(CommandCode.SendMessages, encodeSendMessagesRequest({ stream: 'bp', topic: 't', partitioning: partitioning.partitionId(0), messages }, 'classic'));

    const flooder = await RawClient.connect(server.port, 'classic');
    await flooder.login();
    flooder.socket.pause(); // never read: every reply is about 1 MB
    const poll = flooder.classic.command(CommandCode.PollMessages, encodePollMessagesRequest({ consumer: { kind: 'consumer', id: 1 }, stream: 'bp', topic: 't', partitionId: 0, strategy: { kind: 'first' }, count: 1000, autoCommit: false })).frame;
    const before = process.memoryUsage().rss;
    let peak = before;
    for (let i = 0; i < 1000; i++) {
      flooder.socket.write(poll);
      if (i % 50 === 0) {
        await new Promise((r) => setTimeout(r, 5));
        peak = Math.max(peak, process.memoryUsage().rss);
        // Another client is served while the flooder is stalled.
        await writer.ok(CommandCode.Ping);
      }
    }
    await new Promise((r) => setTimeout(r, 200));
    peak = Math.max(peak, process.memoryUsage().rss);
    // A gigabyte of replies was asked for; the server holds about maxPendingBytes of them.
    expect(peak - before).toBeLessThan(256 * 1024 * 1024);
    await writer.ok(CommandCode.Ping);
    flooder.close();
    writer.close();
    await expect.poll(() => server.connectionCount(), { timeout: 5000 }).toBe(0);
  }, 60_000);
});
