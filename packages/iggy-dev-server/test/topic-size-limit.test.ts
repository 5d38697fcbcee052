// `max_topic_size` on the dev server's disk storage: past a partition's share, the oldest sealed
// segments go, files and all, never the active one; what is left survives a restart. (In memory
// the shared LogTransport conformance suite holds the server to it, batch by batch.)

import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CommandCode, decodeTopicDetails, encodeTopicTarget, encodeUpdateTopicRequest, initChecksums } from '@agdx/iggy-protocol';
import { retainedRecordBytes } from '@agdx/transport';
import { IggyTransport } from '@agdx/transport-iggy';
import { startDevServer } from '@agdx/iggy-dev-server';
import type { DevServer } from '@agdx/iggy-dev-server';
import { RawClient } from './helpers/raw-client.js';
import { createTopic, pollFrom, sendTexts, textsOf } from './helpers/ops.js';

const folders: string[] = [];
const servers: DevServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
  for (const f of folders.splice(0)) rmSync(f, { recursive: true, force: true });
});

async function start(data: string): Promise<DevServer> {
  // The smallest segments the server takes, so a few records seal one.
  const server = await startDevServer({ port: 0, data, fsync: 'never', segmentBytes: 4096 });
  servers.push(server);
  return server;
}

/** Base offsets of the partition's segment files, ascending. */
function segmentBases(data: string, partition: number): bigint[] {
  const dir = join(data, 'streams', '0', '0', String(partition));
  return readdirSync(dir)
    .filter((f) => f.endsWith('.log'))
    .map((f) => BigInt(f.slice(0, -4)))
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

const at = { stream: 'sized', topic: 'events' } as const;
const RECORD = retainedRecordBytes(1000, 0);
const SHARE = 12 * RECORD;

describe('max_topic_size on disk', () => {
  it('deletes the oldest sealed segments past each partition share, files included, and keeps the rest across a restart', async () => {
    const data = mkdtempSync(join(tmpdir(), 'agdx-topic-size-'));
    folders.push(data);
    let server = await start(data);
    let t = await IggyTransport.connect(server.url, { requestTimeoutMs: 10_000 });
    await t.ensureStream(at.stream);
    await t.ensureTopic(at, { partitions: 2, maxTopicBytes: BigInt(2 * SHARE) });
    for (let i = 0; i < 40; i++) await t.append({ ...at, routing: { partition: 0 }, records: [{ payload: new Uint8Array(1000).fill(i) }] });
    await t.append({ ...at, routing: { partition: 1 }, records: [{ payload: new Uint8Array(1000) }] });

    const kept = (await t.read({ ...at, partition: 0, offset: 0n, maxCount: 1000 })).map((r) => r.offset);
    const first = kept[0] as bigint;
    expect(first > 0n).toBe(true);
    expect(kept).toEqual(Array.from({ length: 40 - Number(first) }, (_, i) => first + BigInt(i)));
    // Within the share, and no segment more deleted than needed.
    expect(kept.length * RECORD).toBeLessThanOrEqual(SHARE);
    const bases = segmentBases(data, 0);
    expect(bases[0]).toBe(first);
    expect(bases.length).toBeGreaterThan(1);
    const oldestSegmentRecords = Number((bases[1] as bigint) - first);
    expect((kept.length + oldestSegmentRecords) * RECORD).toBeGreaterThan(SHARE);
    // Index files go with their logs.
    const dir = join(data, 'streams', '0', '0', '0');
    expect(readdirSync(dir).filter((f) => f.endsWith('.index')).length).toBe(bases.length);
    // The other partition is untouched.
    expect(segmentBases(data, 1)).toEqual([0n]);
    expect((await t.read({ ...at, partition: 1, offset: 0n })).map((r) => r.offset)).toEqual([0n]);
    await t.close();

    await server.close();
    servers.splice(servers.indexOf(server), 1);
    server = await start(data);
    t = await IggyTransport.connect(server.url, { requestTimeoutMs: 10_000 });
    const described = await t.ensureTopic(at, { partitions: 2, maxTopicBytes: BigInt(2 * SHARE) });
    expect(described.maxTopicBytes).toBe(BigInt(2 * SHARE));
    expect(described.partitions[0]?.nextOffset).toBe(40n);
    expect((await t.read({ ...at, partition: 0, offset: 0n, maxCount: 1000 })).map((r) => r.offset)).toEqual(kept);
    await t.close();
  });

  it('never deletes the active segment, however far past the share it is', async () => {
    const data = mkdtempSync(join(tmpdir(), 'agdx-topic-size-'));
    folders.push(data);
    const server = await start(data);
    const t = await IggyTransport.connect(server.url, { requestTimeoutMs: 10_000 });
    await t.ensureStream(at.stream);
    await t.ensureTopic(at, { partitions: 1, maxTopicBytes: 100n });
    // One batch larger than a segment and the share: it is the active segment, so it stays.
    await t.append({ ...at, routing: { partition: 0 }, records: Array.from({ length: 8 }, () => ({ payload: new Uint8Array(1000) })) });
    expect(await t.read({ ...at, partition: 0, offset: 0n })).toHaveLength(8);
    // The next append seals it and starts another: now the sealed one goes.
    await t.append({ ...at, routing: { partition: 0 }, records: [{ payload: new Uint8Array(10) }] });
    expect((await t.read({ ...at, partition: 0, offset: 0n })).map((r) => r.offset)).toEqual([8n]);
    expect(segmentBases(data, 0)).toEqual([8n]);
    await t.close();
  });
});

describe('max_topic_size in memory', () => {
  for (const protocol of ['vsr', 'classic'] as const) {
    it(`a limit lowered by UpdateTopic applies at the next append, and size_bytes follows (${protocol})`, async () => {
      await initChecksums();
      const server = await startDevServer({ port: 0 });
      servers.push(server);
      const c = await RawClient.connect(server.port, protocol);
      try {
        await c.login();
        await createTopic(c, 's', 't', 1);
        for (let i = 0; i < 10; i++) await sendTexts(c, 's', 't', 0, [`m${i}`]);
        // Each message: a 48-byte frame header and a 2-byte payload.
        const details = async () => decodeTopicDetails(await c.ok(CommandCode.GetTopic, encodeTopicTarget({ stream: 's', topic: 't' })), protocol);
        expect((await details())?.sizeBytes).toBe(500n);
        await c.ok(CommandCode.UpdateTopic, encodeUpdateTopicRequest({ stream: 's', topic: 't', name: 't', maxTopicSize: 150n }, protocol));
        expect((await details())?.maxTopicSize).toBe(150n);
        expect(textsOf(await pollFrom(c, 's', 't', 0, 0n))).toHaveLength(10);
        await sendTexts(c, 's', 't', 0, ['mA']);
        expect(textsOf(await pollFrom(c, 's', 't', 0, 0n))).toEqual(['m8', 'm9', 'mA']);
        const after = await details();
        expect(after?.sizeBytes).toBe(150n);
        expect(after?.messagesCount).toBe(3n);
      } finally {
        c.close();
      }
    });
  }
});
