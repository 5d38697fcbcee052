import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, truncateSync, writeFileSync, appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { initChecksums } from '@agdx/iggy-protocol';
import { DevServerError, describeRecovery, startDevServer } from '@agdx/iggy-dev-server';
import type { DevServerOptions, RecoveryNotice } from '@agdx/iggy-dev-server';
import { RawClient } from './helpers/raw-client.js';
import { createTopic, pollFrom, sendTexts, textsOf } from './helpers/ops.js';

const folders: string[] = [];
afterEach(() => {
  for (const f of folders.splice(0)) rmSync(f, { recursive: true, force: true });
});

function tempFolder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'agdx-iggy-recovery-'));
  folders.push(dir);
  return dir;
}

function segments(data: string, ext: string): string[] {
  const dir = join(data, 'streams', '0', '0', '0');
  return readdirSync(dir).filter((f) => f.endsWith(ext)).sort().map((f) => join(dir, f));
}

/** Starts on `data`, collects the recovery notices, polls partition 0 from offset 0, stops. */
async function reopen(data: string, options: DevServerOptions = {}): Promise<{ notices: RecoveryNotice[]; texts: string[]; offsets: bigint[] }> {
  const notices: RecoveryNotice[] = [];
  await using server = await startDevServer({ port: 0, data, ...options, onRecovery: (n) => notices.push(n) });
  const c = await RawClient.connect(server.port, 'vsr');
  await c.login();
  const polled = await pollFrom(c, 's', 't', 0, 0n);
  c.close();
  return { notices, texts: textsOf(polled), offsets: polled.messages.map((m) => m.offset) };
}

async function fill(data: string, batches: number, options: DevServerOptions = {}): Promise<void> {
  await initChecksums();
  await using server = await startDevServer({ port: 0, data, ...options });
  const c = await RawClient.connect(server.port, 'vsr');
  await c.login();
  await createTopic(c, 's', 't', 1);
  for (let i = 0; i < batches; i++) await sendTexts(c, 's', 't', 0, [`m${i}-${'x'.repeat(900)}`]);
  c.close();
}

describe('recovery says what it dropped', () => {
  it('reports a record torn by a crash, keeps every whole one, and says nothing on a clean start', async () => {
    const data = tempFolder();
    await fill(data, 5);
    expect((await reopen(data)).notices).toEqual([]);
    const [log] = segments(data, '.log');
    const size = statSync(log ?? '').size;
    truncateSync(log ?? '', size - 10);
    const { notices, texts } = await reopen(data);
    expect(texts.map((t) => t.split('-')[0])).toEqual(['m0', 'm1', 'm2', 'm3']);
    expect(notices).toHaveLength(1);
    const n = notices[0] as RecoveryNotice;
    expect(n).toMatchObject({ streamId: 0, topicId: 0, partitionId: 0, segment: '00000000000000000000.log', removedSegments: [], removedBytes: 0, nextOffset: 4n });
    expect(n.keptBytes + n.droppedBytes).toBe(size - 10);
    expect(statSync(log ?? '').size).toBe(n.keptBytes);
    expect(describeRecovery(n)).toContain(`cut ${n.droppedBytes} bytes`);
    // Cut once: the next start finds nothing to drop.
    expect((await reopen(data)).notices).toEqual([]);
  });

  it('names the later segments it removes behind bytes that are not a record', async () => {
    const data = tempFolder();
    await fill(data, 12, { segmentBytes: 4096 });
    const logs = segments(data, '.log');
    expect(logs.length).toBeGreaterThan(2);
    const later = logs.slice(2).map((f) => ({ name: f.slice(-24), size: statSync(f).size }));
    appendFileSync(logs[1] ?? '', new Uint8Array(40).fill(0xab));
    const { notices, offsets } = await reopen(data, { segmentBytes: 4096 });
    expect(notices).toHaveLength(1);
    const n = notices[0] as RecoveryNotice;
    expect(n.segment).toBe(logs[1]?.slice(-24));
    expect(n.droppedBytes).toBe(40);
    expect(n.removedSegments).toEqual(later.map((l) => l.name));
    expect(n.removedBytes).toBe(later.reduce((a, l) => a + l.size, 0));
    expect(offsets.at(-1)).toBe(n.nextOffset - 1n);
  });

  it('rebuilds a truncated or missing index from the log without dropping anything', async () => {
    const data = tempFolder();
    await fill(data, 6);
    const [index] = segments(data, '.index');
    truncateSync(index ?? '', 7);
    const first = await reopen(data);
    expect(first.notices).toEqual([]);
    expect(first.offsets).toEqual([0n, 1n, 2n, 3n, 4n, 5n]);
    expect(statSync(index ?? '').size).toBe(6 * 16);
    rmSync(index ?? '');
    expect((await reopen(data)).offsets).toHaveLength(6);
  });

  it('refuses a folder written by a newer format, naming the version, and leaves every file as it was', async () => {
    const data = tempFolder();
    await fill(data, 3);
    const metadata = join(data, 'metadata.json');
    const newer = { ...JSON.parse(readFileSync(metadata, 'utf8')), version: 2 };
    writeFileSync(metadata, JSON.stringify(newer));
    const [log] = segments(data, '.log');
    const before = readFileSync(log ?? '');
    const error = await startDevServer({ port: 0, data }).then(
      (s) => s.close().then(() => undefined),
      (e: unknown) => e,
    );
    expect(DevServerError.is(error, 'storage')).toBe(true);
    expect((error as Error).message).toMatch(/version 2.*version 1/);
    expect(readFileSync(log ?? '').equals(before)).toBe(true);
    expect(JSON.parse(readFileSync(metadata, 'utf8')).version).toBe(2);
  });
});
