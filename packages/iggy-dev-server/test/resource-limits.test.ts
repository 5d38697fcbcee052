import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  CommandCode,
  decodeTopicDetails,
  encodeCreateConsumerGroupRequest,
  encodeCreateStreamRequest,
  encodeCreateTopicRequest,
  encodePartitionsRequest,
  encodeStreamTarget,
  encodeTopicTarget,
  initChecksums,
} from '@agdx/iggy-protocol';
import { startDevServer } from '@agdx/iggy-dev-server';
import { RawClient } from './helpers/raw-client.js';

const folders: string[] = [];
afterEach(() => {
  for (const f of folders.splice(0)) rmSync(f, { recursive: true, force: true });
});

/** The server's documented caps (README, "Limits and bad input"). */
const MAX_STREAMS = 10_000;
const MAX_TOPICS = 10_000;
const MAX_PARTITIONS = 10_000;
const MAX_GROUPS = 10_000;

async function loggedIn(port: number, protocol: 'vsr' | 'classic'): Promise<RawClient> {
  const c = await RawClient.connect(port, protocol);
  await c.login();
  return c;
}

/** The topic's partition count, or undefined when it does not exist (classic answers empty, VSR 2010). */
async function partitionsOf(c: RawClient, stream: string | number, topic: string): Promise<number | undefined> {
  const r = await c.call(CommandCode.GetTopic, encodeTopicTarget({ stream, topic }));
  if (!r.ok) {
    expect(r.code).toBe(2010);
    return undefined;
  }
  return decodeTopicDetails(r.payload, c.protocol)?.partitions.length;
}

describe('resource caps, checked before anything is made', () => {
  it('refuses the stream past the cap with 1020 and takes one again once one is deleted', async () => {
    await initChecksums();
    await using server = await startDevServer({ port: 0 });
    const c = await loggedIn(server.port, 'classic');
    for (let i = 0; i < MAX_STREAMS; i++) await c.ok(CommandCode.CreateStream, encodeCreateStreamRequest({ name: `s${i}` }, 'classic'));
    expect(await c.refused(CommandCode.CreateStream, encodeCreateStreamRequest({ name: 'one-too-many' }, 'classic'))).toBe(1020);
    await c.ok(CommandCode.DeleteStream, encodeStreamTarget({ stream: 's5' }));
    await c.ok(CommandCode.CreateStream, encodeCreateStreamRequest({ name: 'again' }, 'classic'));
    c.close();
  }, 180_000);

  it('refuses topics past the cap over every stream with 2021 (VSR: in the result section)', async () => {
    await initChecksums();
    await using server = await startDevServer({ port: 0 });
    const c = await loggedIn(server.port, 'vsr');
    await c.ok(CommandCode.CreateStream, encodeCreateStreamRequest({ name: 'a' }, 'vsr'));
    await c.ok(CommandCode.CreateStream, encodeCreateStreamRequest({ name: 'b' }, 'vsr'));
    for (let i = 0; i < MAX_TOPICS; i++) await c.ok(CommandCode.CreateTopic, encodeCreateTopicRequest({ stream: i % 2 === 0 ? 'a' : 'b', name: `t${i}`, partitionsCount: 0 }, 'vsr'));
    expect(await c.refused(CommandCode.CreateTopic, encodeCreateTopicRequest({ stream: 'a', name: 'one-too-many', partitionsCount: 0 }, 'vsr'))).toBe(2021);
    c.close();
  }, 180_000);

  it('refuses partitions past the total with 2015, on CreateTopic and CreatePartitions, leaving nothing behind', async () => {
    await initChecksums();
    await using server = await startDevServer({ port: 0 });
    for (const protocol of ['classic', 'vsr'] as const) {
      const c = await loggedIn(server.port, protocol);
      const stream = `p-${protocol}`;
      await c.ok(CommandCode.CreateStream, encodeCreateStreamRequest({ name: stream }, protocol));
      // Half the total per protocol: five topics of 1000 each.
      for (let i = 0; i < MAX_PARTITIONS / 2000; i++) await c.ok(CommandCode.CreateTopic, encodeCreateTopicRequest({ stream, name: `full${i}`, partitionsCount: 1000 }, protocol));
      c.close();
    }
    const c = await loggedIn(server.port, 'classic');
    expect(await c.refused(CommandCode.CreateTopic, encodeCreateTopicRequest({ stream: 'p-vsr', name: 'extra', partitionsCount: 1 }, 'classic'))).toBe(2015);
    expect(await partitionsOf(c, 'p-vsr', 'extra')).toBeUndefined();
    expect(await c.refused(CommandCode.CreatePartitions, encodePartitionsRequest({ stream: 'p-vsr', topic: 'full0', partitionsCount: 1 }))).toBe(2015);
    await c.ok(CommandCode.DeletePartitions, encodePartitionsRequest({ stream: 'p-vsr', topic: 'full0', partitionsCount: 3 }));
    await c.ok(CommandCode.CreatePartitions, encodePartitionsRequest({ stream: 'p-vsr', topic: 'full0', partitionsCount: 3 }));
    expect(await c.refused(CommandCode.CreatePartitions, encodePartitionsRequest({ stream: 'p-vsr', topic: 'full0', partitionsCount: 1 }))).toBe(2015);
    c.close();
  }, 180_000);

  it('refuses consumer groups past the cap over every topic with 1', async () => {
    await initChecksums();
    await using server = await startDevServer({ port: 0 });
    const c = await loggedIn(server.port, 'classic');
    await c.ok(CommandCode.CreateStream, encodeCreateStreamRequest({ name: 'g' }, 'classic'));
    await c.ok(CommandCode.CreateTopic, encodeCreateTopicRequest({ stream: 'g', name: 't1', partitionsCount: 1 }, 'classic'));
    await c.ok(CommandCode.CreateTopic, encodeCreateTopicRequest({ stream: 'g', name: 't2', partitionsCount: 1 }, 'classic'));
    for (let i = 0; i < MAX_GROUPS; i++) await c.ok(CommandCode.CreateConsumerGroup, encodeCreateConsumerGroupRequest({ stream: 'g', topic: i % 2 === 0 ? 't1' : 't2', name: `g${i}` }));
    expect(await c.refused(CommandCode.CreateConsumerGroup, encodeCreateConsumerGroupRequest({ stream: 'g', topic: 't1', name: 'one-too-many' }))).toBe(1);
    c.close();
  }, 180_000);
});

describe('a partition that storage cannot open', () => {
  it('is refused with status 1, leaves no half-made topic and keeps the connection', async () => {
    await initChecksums();
    const data = mkdtempSync(join(tmpdir(), 'agdx-iggy-limits-'));
    folders.push(data);
    await using server = await startDevServer({ port: 0, data, fsync: 'never' });
    for (const protocol of ['classic', 'vsr'] as const) {
      const c = await loggedIn(server.port, protocol);
      await c.ok(CommandCode.CreateStream, encodeCreateStreamRequest({ name: `s-${protocol}` }, protocol));
      const streamId = protocol === 'classic' ? 0 : 1;
      // A file where topic 0's folder goes: storage cannot make any of its partition folders.
      mkdirSync(join(data, 'streams', String(streamId)), { recursive: true });
      writeFileSync(join(data, 'streams', String(streamId), '0'), 'not a folder');
      expect(await c.refused(CommandCode.CreateTopic, encodeCreateTopicRequest({ stream: streamId, name: 't', partitionsCount: 3 }, protocol))).toBe(1);
      expect(await partitionsOf(c, streamId, 't')).toBeUndefined();
      await c.ok(CommandCode.Ping);
      rmSync(join(data, 'streams', String(streamId), '0'));
      const details = decodeTopicDetails(await c.ok(CommandCode.CreateTopic, encodeCreateTopicRequest({ stream: streamId, name: 't', partitionsCount: 3 }, protocol)), protocol);
      expect(details?.partitions.length).toBe(3);
      // CreatePartitions fails the same way once the topic's folder is a file; the open
      // partitions keep their files, the new ones are refused as a whole.
      rmSync(join(data, 'streams', String(streamId), '0'), { recursive: true });
      writeFileSync(join(data, 'streams', String(streamId), '0'), 'not a folder');
      expect(await c.refused(CommandCode.CreatePartitions, encodePartitionsRequest({ stream: streamId, topic: 't', partitionsCount: 3 }))).toBe(1);
      expect(await partitionsOf(c, streamId, 't')).toBe(3);
      c.close();
    }
  });
});
