/**
 * Conformance cases for a topic's size limit (`maxTopicBytes`, Iggy's `max_topic_size`): the
 * setting is validated, reported and part of the topic's identity on every log, and a log that
 * trims at append time keeps exactly each partition's share, newest records first.
 */

import { describe, expect, it, type TestContext } from 'vitest';
import { headerBlockBytes, headerValue, type RecordHeaders } from '../headers.js';
import type { LogRecord, LogTransport } from '../log-transport.js';
import { retainedRecordBytes } from '../retention.js';
import { expectKind, text, uniqueName } from './helpers.js';

/** What the retention cases need from the suite that registers them. */
export interface RetentionHooks {
  /** A fresh transport for one test (closed by the suite), and whether it trims at append. */
  readonly subject: () => Promise<{ readonly transport: LogTransport; readonly trimsAtAppend: boolean }>;
}

/** A fresh stream holding one topic `events` with the given size limit. */
async function sizedTopic(t: LogTransport, partitions: number, maxTopicBytes: bigint | undefined): Promise<{ stream: string; topic: string }> {
  const stream = uniqueName('size');
  const topic = 'events';
  await t.ensureStream(stream);
  await t.ensureTopic({ stream, topic }, { partitions, maxTopicBytes });
  return { stream, topic };
}

/** A payload of `length` bytes whose first bytes name `label` (so records can be told apart). */
function labelled(label: string, length: number): Uint8Array {
  const bytes = new Uint8Array(length).fill(0x2e);
  bytes.set(text(label).subarray(0, length));
  return bytes;
}

function offsets(records: readonly LogRecord[]): bigint[] {
  return records.map((r) => r.offset);
}

function range(from: number, to: number): bigint[] {
  return Array.from({ length: to - from }, (_, i) => BigInt(from + i));
}

/** Registers the size-limit cases inside the current `describe`. */
export function describeSizeRetention(hooks: RetentionHooks): void {
  describe('topic size limit', () => {
    it('is validated, reported by describeTopic and part of the topic identity', async () => {
      const { transport: t } = await hooks.subject();
      const { stream, topic } = await sizedTopic(t, 2, 1_000_000n);
      expect((await t.describeTopic({ stream, topic })).maxTopicBytes).toBe(1_000_000n);
      const again = await t.ensureTopic({ stream, topic }, { partitions: 2, maxTopicBytes: 1_000_000n });
      expect(again.maxTopicBytes).toBe(1_000_000n);
      await expectKind('conflict', () => t.ensureTopic({ stream, topic }, { partitions: 2, maxTopicBytes: 2_000_000n }));
      await expectKind('conflict', () => t.ensureTopic({ stream, topic }, { partitions: 2 }));

      const unlimited = await sizedTopic(t, 1, undefined);
      expect((await t.describeTopic(unlimited)).maxTopicBytes).toBeUndefined();
      await expectKind('conflict', () => t.ensureTopic(unlimited, { partitions: 1, maxTopicBytes: 1_000_000n }));

      // The largest limit below Iggy's "unlimited" sentinel (u64::MAX) round-trips.
      const largest = await sizedTopic(t, 1, 2n ** 64n - 2n);
      expect((await t.describeTopic(largest)).maxTopicBytes).toBe(2n ** 64n - 2n);

      const bad: unknown[] = [0n, -1n, 2n ** 64n - 1n, 2n ** 64n, 1000, 1.5, '1000', null];
      for (const maxTopicBytes of bad) {
        await expectKind('invalid', () => t.ensureTopic({ stream, topic: 'bad' }, { partitions: 1, maxTopicBytes: maxTopicBytes as bigint }));
        // Checked before the stream is looked up, like every other argument.
        await expectKind('invalid', () => t.ensureTopic({ stream: `${stream}-missing`, topic }, { partitions: 1, maxTopicBytes: maxTopicBytes as bigint }));
      }
      await expectKind('not-found', () => t.describeTopic({ stream, topic: 'bad' }));
    });

    it('past its share a partition drops its oldest records, keeps its newest, and reads skip past them', async (ctx: TestContext) => {
      const { transport: t, trimsAtAppend } = await hooks.subject();
      if (!trimsAtAppend) return ctx.skip('this log trims on a timer or by whole segments, not at each append');
      const record = retainedRecordBytes(1000, 0);
      const perPartition = 20;
      const { stream, topic } = await sizedTopic(t, 2, BigInt(2 * perPartition * record));
      for (let i = 0; i < 3 * perPartition; i++) {
        await t.append({ stream, topic, routing: { partition: 0 }, records: [{ payload: labelled(`p0-${i}`, 1000) }] });
      }
      for (let i = 0; i < 2; i++) await t.append({ stream, topic, routing: { partition: 1 }, records: [{ payload: labelled(`p1-${i}`, 1000) }] });

      // Exactly the share is kept: the newest 20 records of partition 0, oldest first.
      const first = 2 * perPartition;
      const kept = await t.read({ stream, topic, partition: 0, offset: 0n, maxCount: 1000 });
      expect(offsets(kept)).toEqual(range(first, 3 * perPartition));
      expect(kept[0]?.payload).toEqual(labelled(`p0-${first}`, 1000));
      // Below the first retained offset a read starts there, as after expiry.
      expect(offsets(await t.read({ stream, topic, partition: 0, offset: 5n, maxCount: 2 }))).toEqual(range(first, first + 2));
      expect((await t.readFromTimestamp({ stream, topic, partition: 0, timestampMicros: 0n, maxCount: 1 }))[0]?.offset).toBe(BigInt(first));
      // Offsets never restart, and the other partition keeps its own share untouched.
      const described = await t.describeTopic({ stream, topic });
      expect(described.partitions.map((p) => p.nextOffset)).toEqual([BigInt(3 * perPartition), 2n]);
      expect(offsets(await t.read({ stream, topic, partition: 1, offset: 0n }))).toEqual([0n, 1n]);

      // A record larger than the whole share is kept while it is the newest...
      const big = labelled('big', perPartition * record + 1);
      await t.append({ stream, topic, routing: { partition: 0 }, records: [{ payload: big }] });
      const onlyBig = await t.read({ stream, topic, partition: 0, offset: 0n, maxCount: 1000 });
      expect(offsets(onlyBig)).toEqual([BigInt(3 * perPartition)]);
      expect(onlyBig[0]?.payload).toEqual(big);
      // ...and goes as soon as a newer record takes its place.
      await t.append({ stream, topic, routing: { partition: 0 }, records: [{ payload: labelled('after', 1000) }] });
      expect(offsets(await t.read({ stream, topic, partition: 0, offset: 0n, maxCount: 1000 }))).toEqual([BigInt(3 * perPartition + 1)]);
    });

    it('counts each record\'s header block towards the limit', async (ctx: TestContext) => {
      const { transport: t, trimsAtAppend } = await hooks.subject();
      if (!trimsAtAppend) return ctx.skip('this log trims on a timer or by whole segments, not at each append');
      const headers: RecordHeaders = new Map([['trace', headerValue.raw(new Uint8Array(200).fill(7))]]);
      const withHeaders = retainedRecordBytes(100, headerBlockBytes(headers));
      // Room for six such records, not seven (without their headers twelve would fit).
      const { stream, topic } = await sizedTopic(t, 1, BigInt(6 * withHeaders + withHeaders - 1));
      for (let b = 0; b < 4; b++) {
        await t.append({ stream, topic, routing: { partition: 0 }, records: Array.from({ length: 3 }, (_, i) => ({ headers, payload: labelled(`b${b}-${i}`, 100) })) });
      }
      const kept = await t.read({ stream, topic, partition: 0, offset: 0n });
      expect(offsets(kept)).toEqual(range(6, 12));
      expect(kept[0]?.headers.get('trace')?.value).toEqual(new Uint8Array(200).fill(7));
    });
  });
}
