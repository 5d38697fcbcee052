import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, truncateSync, appendFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  CommandCode,
  encodeCreateStreamRequest,
  encodeCreateTopicRequest,
  decodeConsumerGroupDetails,
  decodeConsumerOffsetInfo,
  decodeTopicDetails,
  decodeUserHeaders,
  encodeCreateConsumerGroupRequest,
  encodeGetConsumerOffsetRequest,
  encodeGroupTarget,
  encodeStoreConsumerOffsetRequest,
  encodeTopicTarget,
  headerValue,
  initChecksums,
} from '@agdx/iggy-protocol';
import type { HeaderValue } from '@agdx/iggy-protocol';
import { DevServerError, startDevServer } from '@agdx/iggy-dev-server';
import type { DevServerOptions, FsyncPolicy } from '@agdx/iggy-dev-server';
import { RawClient } from './helpers/raw-client.js';
import { createTopic, pollFrom, sendTexts, textsOf } from './helpers/ops.js';

const folders: string[] = [];
afterEach(() => {
  for (const f of folders.splice(0)) rmSync(f, { recursive: true, force: true });
});

function tempFolder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'agdx-iggy-dev-'));
  folders.push(dir);
  return dir;
}

async function withServer<T>(options: DevServerOptions, body: (port: number) => Promise<T>): Promise<T> {
  await initChecksums();
  const server = await startDevServer({ port: 0, ...options });
  try {
    return await body(server.port);
  } finally {
    await server.close();
  }
}

async function login(port: number, protocol: 'vsr' | 'classic' = 'vsr'): Promise<RawClient> {
  const c = await RawClient.connect(port, protocol);
  await c.login();
  return c;
}

function segmentFiles(data: string, ext: string): string[] {
  const dir = join(data, 'streams', '0', '0', '0');
  return readdirSync(dir).filter((f) => f.endsWith(ext)).sort().map((f) => join(dir, f));
}

const headers = new Map<string, HeaderValue>([
  ['agdx.kind', headerValue.string('token')],
  ['n', headerValue.int128(-5n)],
]);

describe('disk storage', () => {
  it('restarts on the same folder with topics, messages, headers, consumer and group offsets', async () => {
    const data = tempFolder();
    await withServer({ data, cacheBytesPerPartition: 0 }, async (port) => {
      const c = await login(port);
      await createTopic(c, 'orders', 'events', 2);
      await sendTexts(c, 'orders', 'events', 0, ['a', 'b'], headers);
      const classic = await login(port, 'classic');
      await sendTexts(classic, 'orders', 'events', 1, ['c']);
      await c.ok(CommandCode.StoreConsumerOffset, encodeStoreConsumerOffsetRequest({ consumer: { kind: 'consumer', id: 'r' }, stream: 'orders', topic: 'events', partitionId: 0, offset: 1n }, 'vsr'));
      await c.ok(CommandCode.CreateConsumerGroup, encodeCreateConsumerGroupRequest({ stream: 'orders', topic: 'events', name: 'g' }));
      await c.ok(CommandCode.JoinConsumerGroup, encodeGroupTarget({ stream: 'orders', topic: 'events', group: 'g' }));
      await c.ok(CommandCode.StoreConsumerOffset, encodeStoreConsumerOffsetRequest({ consumer: { kind: 'group', id: 'g' }, stream: 'orders', topic: 'events', partitionId: 1, offset: 0n }, 'vsr'));
      c.close();
      classic.close();
    });
    await withServer({ data, cacheBytesPerPartition: 0 }, async (port) => {
      const c = await login(port);
      const p0 = await pollFrom(c, 'orders', 'events', 0, 0n);
      expect(textsOf(p0)).toEqual(['a', 'b']);
      expect(p0.messages.map((m) => m.offset)).toEqual([0n, 1n]);
      expect(decodeUserHeaders(p0.messages[0]?.rawHeaders ?? new Uint8Array(0))).toEqual(headers);
      expect(textsOf(await pollFrom(c, 'orders', 'events', 1, 0n))).toEqual(['c']);
      const stored = decodeConsumerOffsetInfo(await c.ok(CommandCode.GetConsumerOffset, encodeGetConsumerOffsetRequest({ consumer: { kind: 'consumer', id: 'r' }, stream: 'orders', topic: 'events', partitionId: 0 })));
      expect(stored?.storedOffset).toBe(1n);
      const group = decodeConsumerOffsetInfo(await c.ok(CommandCode.GetConsumerOffset, encodeGetConsumerOffsetRequest({ consumer: { kind: 'group', id: 'g' }, stream: 'orders', topic: 'events', partitionId: 1 })));
      expect(group?.storedOffset).toBe(0n);
      // Members are connections: none survive a restart, the group does.
      expect(decodeConsumerGroupDetails(await c.ok(CommandCode.GetConsumerGroup, encodeGroupTarget({ stream: 'orders', topic: 'events', group: 'g' })))?.members).toEqual([]);
      await sendTexts(c, 'orders', 'events', 0, ['d']);
      expect((await pollFrom(c, 'orders', 'events', 0, 2n)).messages[0]?.offset).toBe(2n);
      c.close();
    });
  });

  it('discards a torn tail: a last segment cut mid-record, or garbage after the last record', async () => {
    const data = tempFolder();
    await withServer({ data }, async (port) => {
      const c = await login(port);
      await createTopic(c, 's', 't', 1);
      for (let i = 0; i < 5; i++) await sendTexts(c, 's', 't', 0, [`batch-${i}-a`, `batch-${i}-b`]);
      c.close();
    });
    const [log] = segmentFiles(data, '.log');
    if (log === undefined) throw new Error('no segment');
    truncateSync(log, statSync(log).size - 10);
    await withServer({ data }, async (port) => {
      const c = await login(port, 'classic');
      const all = await pollFrom(c, 's', 't', 0, 0n);
      expect(all.messages.map((m) => m.offset)).toEqual([0n, 1n, 2n, 3n, 4n, 5n, 6n, 7n]);
      expect(all.currentOffset).toBe(7n);
      await sendTexts(c, 's', 't', 0, ['after']);
      const next = await pollFrom(c, 's', 't', 0, 8n);
      expect(textsOf(next)).toEqual(['after']);
      expect(next.messages[0]?.offset).toBe(8n);
      c.close();
    });
    appendFileSync(log, Uint8Array.from({ length: 37 }, (_, i) => (i * 31) & 0xff));
    await withServer({ data }, async (port) => {
      const c = await login(port);
      const all = await pollFrom(c, 's', 't', 0, 0n);
      expect(all.messages).toHaveLength(9);
      const topic = decodeTopicDetails(await c.ok(CommandCode.GetTopic, encodeTopicTarget({ stream: 's', topic: 't' })), 'vsr');
      expect(topic?.partitions[0]?.messagesCount).toBe(9n);
      c.close();
    });
    // The index is rebuilt from the log: one 16-byte entry per surviving or later batch (4 kept + 1 appended).
    const [index] = segmentFiles(data, '.index');
    expect(statSync(index ?? '').size).toBe(5 * 16);
  });

  it.each<FsyncPolicy>(['always', 'interval', 'never'])('keeps acknowledged appends with fsync %s across a clean restart', async (fsync) => {
    const data = tempFolder();
    await withServer({ data, fsync, fsyncIntervalMs: 10 }, async (port) => {
      const c = await login(port);
      await createTopic(c, 's', 't', 1);
      await sendTexts(c, 's', 't', 0, ['x', 'y']);
      c.close();
    });
    await withServer({ data, fsync }, async (port) => {
      const c = await login(port);
      expect(textsOf(await pollFrom(c, 's', 't', 0, 0n))).toEqual(['x', 'y']);
      c.close();
    });
  });

  it('rolls segments at the size limit and reads them all back', async () => {
    const data = tempFolder();
    const payload = 'p'.repeat(1000);
    await withServer({ data, segmentBytes: 4096 }, async (port) => {
      const c = await login(port);
      await createTopic(c, 's', 't', 1);
      for (let i = 0; i < 12; i++) await sendTexts(c, 's', 't', 0, [`${i}:${payload}`]);
      c.close();
    });
    expect(segmentFiles(data, '.log').length).toBeGreaterThan(2);
    await withServer({ data, segmentBytes: 4096, cacheBytesPerPartition: 2048 }, async (port) => {
      const c = await login(port, 'classic');
      const all = await pollFrom(c, 's', 't', 0, 0n);
      expect(all.messages.map((m) => m.offset)).toEqual(Array.from({ length: 12 }, (_, i) => BigInt(i)));
      expect(textsOf(all).map((t) => t.split(':')[0])).toEqual(Array.from({ length: 12 }, (_, i) => String(i)));
      c.close();
    });
  });

  it('deletes sealed segments once everything in them expired, and never restarts offsets', async () => {
    const data = tempFolder();
    const payload = 'e'.repeat(1000);
    await initChecksums();
    const first = await startDevServer({ port: 0, data, segmentBytes: 4096 });
    const c = await login(first.port, 'classic');
    await c.ok(CommandCode.CreateStream, encodeCreateStreamRequest({ name: 's' }, 'classic'));
    await c.ok(CommandCode.CreateTopic, encodeCreateTopicRequest({ stream: 's', name: 't', partitionsCount: 1, messageExpiry: 1_000_000n }, 'classic'));
    for (let i = 0; i < 12; i++) await sendTexts(c, 's', 't', 0, [`${i}:${payload}`]);
    const before = segmentFiles(data, '.log').length;
    expect(before).toBeGreaterThan(2);
    first.advanceTime(2_000_000n);
    expect((await pollFrom(c, 's', 't', 0, 0n)).messages).toEqual([]);
    expect(segmentFiles(data, '.log')).toHaveLength(1);
    c.close();
    await first.close();

    const second = await startDevServer({ port: 0, data, segmentBytes: 4096 });
    second.advanceTime(2_000_000n);
    const again = await login(second.port, 'vsr');
    expect((await pollFrom(again, 's', 't', 0, 0n)).messages).toEqual([]);
    await sendTexts(again, 's', 't', 0, ['fresh']);
    const fresh = await pollFrom(again, 's', 't', 0, 0n);
    expect(textsOf(fresh)).toEqual(['fresh']);
    expect(fresh.messages[0]?.offset).toBe(12n);
    again.close();
    await second.close();
  });

  it('reports a failed metadata write as status 1 and keeps serving', async () => {
    const data = tempFolder();
    await withServer({ data }, async (port) => {
      const c = await login(port, 'classic');
      mkdirSync(join(data, 'metadata.json.tmp'));
      expect(await c.refused(CommandCode.CreateStream, encodeCreateStreamRequest({ name: 'blocked' }, 'classic'))).toBe(1);
      rmSync(join(data, 'metadata.json.tmp'), { recursive: true });
      await createTopic(c, 'fine', 't', 1);
      c.close();
    });
  });

  it('refuses, at once, a data folder that cannot be made, where Node 20\'s recursive mkdir never returns', async () => {
    // procfs answers "no such entry" to every create: Node 20's recursive mkdir loops on it forever.
    const underProc = existsSync('/proc/self') ? [join('/proc', `agdx-${process.pid}`, 'data')] : [];
    const underFile = join(tempFolder(), 'a-file');
    writeFileSync(underFile, 'x');
    for (const data of [...underProc, join(underFile, 'data')]) {
      await expect(startDevServer({ port: 0, data })).rejects.toSatisfy((e: unknown) => DevServerError.is(e, 'storage'));
    }
    // Missing parents are still made, however deep.
    const deep = join(tempFolder(), 'a', 'b', 'c');
    const server = await startDevServer({ port: 0, data: deep });
    await server.close();
    expect(statSync(join(deep, 'streams')).isDirectory()).toBe(true);
  });

  it('refuses a data folder another live server holds, and takes over the lock of a dead one', async () => {
    const data = tempFolder();
    const first = await startDevServer({ port: 0, data });
    await expect(startDevServer({ port: 0, data })).rejects.toSatisfy((e: unknown) => DevServerError.is(e, 'storage'));
    await first.close();
    // A crashed owner leaves its lock behind: pid 2^22 + 1 is above Linux's default pid_max.
    writeFileSync(join(data, 'server.lock'), String(2 ** 22 + 1));
    const second = await startDevServer({ port: 0, data });
    await second.close();
  });

  it('deletes a topic\'s files with the topic, and refuses an unreadable metadata file', async () => {
    const data = tempFolder();
    await withServer({ data }, async (port) => {
      const c = await login(port);
      await createTopic(c, 's', 't', 1);
      await sendTexts(c, 's', 't', 0, ['x']);
      await c.ok(CommandCode.DeleteTopic, encodeTopicTarget({ stream: 's', topic: 't' }));
      expect(readdirSync(join(data, 'streams', '0'))).toEqual([]);
      c.close();
    });
    writeFileSync(join(data, 'metadata.json'), '{not json');
    await expect(startDevServer({ port: 0, data })).rejects.toSatisfy((e: unknown) => DevServerError.is(e, 'storage'));
  });
});
