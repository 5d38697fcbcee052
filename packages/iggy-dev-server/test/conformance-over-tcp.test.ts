/**
 * The acceptance test of issue 6: the LogTransport conformance suite, through the real
 * @agdx/transport-iggy client, against this server over loopback TCP, with both protocol
 * generations, in memory and on disk.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { describeLogTransportConformance } from '@agdx/transport/testkit';
import { IggyTransport } from '@agdx/transport-iggy';
import { startDevServer } from '@agdx/iggy-dev-server';
import type { DevServer } from '@agdx/iggy-dev-server';

let memory: DevServer;
let disk: DevServer;
let folder: string;

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'agdx-iggy-conformance-'));
  memory = await startDevServer({ port: 0 });
  // No record cache: every read but the newest batch's goes through the segment files.
  disk = await startDevServer({ port: 0, data: folder, fsync: 'never', cacheBytesPerPartition: 0 });
});
afterAll(async () => {
  await memory.close();
  await disk.close();
  rmSync(folder, { recursive: true, force: true });
});

for (const storage of ['memory', 'disk'] as const) {
  for (const protocol of ['vsr', 'classic'] as const) {
    describeLogTransportConformance(`IggyTransport (${protocol}) against the dev server (${storage})`, async () => {
      const server = storage === 'memory' ? memory : disk;
      const connect = (): Promise<IggyTransport> => IggyTransport.connect(server.url, { protocol, requestTimeoutMs: 10_000 });
      // On disk the size limit deletes whole segments (64 MiB here), which these small topics
      // never fill; topic-size-limit.test.ts holds the disk storage to it with small segments.
      return { transport: await connect(), reopen: connect, advanceTime: (micros: bigint) => server.advanceTime(micros), trimsTopicSizeAtAppend: storage === 'memory' };
    });
  }
}
