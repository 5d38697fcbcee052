import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CommandCode, encodeCreateTopicRequest, encodeCreateStreamRequest, initChecksums } from '@agdx/iggy-protocol';
import { startDevServer } from '@agdx/iggy-dev-server';
import { RawClient } from './helpers/raw-client.js';
import { pollFrom, sendTexts } from './helpers/ops.js';

const folders: string[] = [];
afterEach(() => {
  for (const f of folders.splice(0)) rmSync(f, { recursive: true, force: true });
});

/** Descriptors this process holds open (Linux). */
function openDescriptors(): number {
  return readdirSync('/proc/self/fd').length;
}

/** The most partitions whose segment files stay open for appending at once (README). */
const OPEN_PARTITIONS = 1024;

describe.runIf(process.platform === 'linux')('file descriptors on disk', () => {
  it('stay bounded however many partitions are created, written and read cold', async () => {
    await initChecksums();
    const data = mkdtempSync(join(tmpdir(), 'agdx-iggy-fds-'));
    folders.push(data);
    await using server = await startDevServer({ port: 0, data, fsync: 'never', segmentBytes: 4096, cacheBytesPerPartition: 4096 });
    const c = await RawClient.connect(server.port, 'vsr');
    await c.login();
    const before = openDescriptors();
    await c.ok(CommandCode.CreateStream, encodeCreateStreamRequest({ name: 's' }, 'vsr'));
    // Two topics of 1000 partitions: four thousand segment files, with a file descriptor each
    // if every partition kept its files open; 1100 of them written.
    await c.ok(CommandCode.CreateTopic, encodeCreateTopicRequest({ stream: 's', name: 't', partitionsCount: 1000 }, 'vsr'));
    await c.ok(CommandCode.CreateTopic, encodeCreateTopicRequest({ stream: 's', name: 'u', partitionsCount: 1000 }, 'vsr'));
    expect(openDescriptors() - before).toBeLessThan(2 * OPEN_PARTITIONS + 64);
    for (let p = 0; p < 1000; p++) await sendTexts(c, 's', 't', p, ['x']);
    for (let p = 0; p < 100; p++) await sendTexts(c, 's', 'u', 1 + p, ['x']);
    expect(openDescriptors() - before).toBeLessThan(2 * OPEN_PARTITIONS + 64);
    // Many sealed segments in one partition, each read back from disk once.
    const big = 'y'.repeat(1500);
    for (let i = 0; i < 300; i++) await sendTexts(c, 's', 'u', 0, [`${i}:${big}`]);
    expect(readdirSync(join(data, 'streams', '0', '1', '0')).length).toBeGreaterThan(100);
    for (let offset = 0n; offset < 300n; offset += 2n) expect((await pollFrom(c, 's', 'u', 0, offset, 1)).messages[0]?.offset).toBe(offset);
    expect(openDescriptors() - before).toBeLessThan(2 * OPEN_PARTITIONS + 64);
    // Every partition still appends and reads after its files were closed for others.
    await sendTexts(c, 's', 't', 0, ['again']);
    expect((await pollFrom(c, 's', 't', 0, 0n)).messages.map((m) => m.offset)).toEqual([0n, 1n]);
    c.close();
  }, 120_000);
});
