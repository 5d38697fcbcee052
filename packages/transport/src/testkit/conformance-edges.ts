/**
 * Conformance cases at the contract's edges: the order in which arguments and targets are
 * checked, batch size limits, concurrent appends under every routing, many waiters, and leaving
 * a group with a fired signal. Each one is a place where MemoryLog and a network transport once
 * answered differently, so a user met the difference only in production.
 */

import { describe, expect, it } from 'vitest';
import { MAX_BATCH_BYTES, RECORD_FRAMING_BYTES } from '../batch-limit.js';
import { headerBlockBytes, headerValue, type RecordHeaders } from '../headers.js';
import type { AppendResult, LogRecord, LogTransport, Routing } from '../log-transport.js';
import { expectExactCover, expectKind, freshTopic, settledAssignments, text, untext } from './helpers.js';

/** What the edge cases need from the suite that registers them. */
export interface EdgeCaseHooks {
  /** A fresh transport for one test, closed by the suite afterwards. */
  readonly transport: () => Promise<LogTransport>;
}

/** Registers the edge cases inside the current `describe`. */
export function describeEdgeCases(hooks: EdgeCaseHooks): void {
  describe('arguments are checked before their target is looked up', () => {
    it('a bad argument is invalid whether or not the stream, topic or partition exists', async () => {
      const t = await hooks.transport();
      const { stream, topic } = await freshTopic(t, 1);
      const x = [{ payload: text('x') }];
      for (const at of [{ stream: `${stream}-missing`, topic }, { stream, topic: 'missing' }]) {
        const part = { ...at, partition: 0 };
        const consumer = { kind: 'consumer', name: 'c' } as const;
        await expectKind('invalid', () => t.append({ ...at, records: [] }));
        await expectKind('invalid', () => t.append({ ...at, records: [{ payload: new Uint8Array(0) }] }));
        await expectKind('invalid', () => t.append({ ...at, records: [{ payload: text('x'), headers: new Map([['', headerValue.bool(true)]]) }] }));
        await expectKind('invalid', () => t.append({ ...at, routing: { key: '' }, records: x }));
        await expectKind('invalid', () => t.append({ ...at, routing: { partition: -1 }, records: x }));
        await expectKind('invalid', () => t.read({ ...part, offset: -1n }));
        await expectKind('invalid', () => t.read({ ...part, partition: 1.5, offset: 0n }));
        await expectKind('invalid', () => t.read({ ...part, offset: 0n, maxCount: -1 }));
        await expectKind('invalid', () => t.readFromTimestamp({ ...part, timestampMicros: -1n }));
        await expectKind('invalid', () => t.waitFor({ ...part, offset: 0n, timeoutMs: -1 }));
        await expectKind('invalid', () => t.storeOffset({ ...part, consumer, offset: -1n }));
        await expectKind('invalid', () => t.storeOffset({ ...part, consumer: { kind: 'nobody' } as never, offset: 0n }));
        await expectKind('invalid', () => t.getOffset({ ...part, consumer: { kind: 'consumer', name: '' } }));
        await expectKind('invalid', () => t.deleteOffset({ ...part, partition: -1, consumer }));
        await expectKind('invalid', () => t.joinGroup({ ...at, group: '' }));
        await expectKind('invalid', () => t.ensureTopic(at, { partitions: 0 }));
      }
      // With every argument good, the missing target is what is reported.
      await expectKind('not-found', () => t.read({ stream, topic: 'missing', partition: 0, offset: 0n }));
      await expectKind('not-found', () => t.read({ stream, topic, partition: 1, offset: 0n }));
    });

    it('a routing that is not an object is invalid, and null is not "balanced"', async () => {
      const t = await hooks.transport();
      const { stream, topic } = await freshTopic(t, 2);
      for (const routing of ['balanced', 7, null, {}, { balanced: false }]) {
        await expectKind('invalid', () => t.append({ stream, topic, routing: routing as unknown as Routing, records: [{ payload: text('x') }] }));
      }
      const described = await t.describeTopic({ stream, topic });
      expect(described.partitions.map((p) => p.nextOffset)).toEqual([0n, 0n]);
    });

    it('a record whose fields throw when read is invalid, not an untyped error, and stores nothing', async () => {
      const t = await hooks.transport();
      const { stream, topic } = await freshTopic(t, 1);
      const hostile = [
        {
          get payload(): Uint8Array {
            throw new Error('a getter that throws');
          },
        },
        { payload: text('x'), headers: new Proxy(new Map(), { get: () => { throw new Error('a map that throws'); } }) as RecordHeaders },
      ];
      for (const record of hostile) {
        await expectKind('invalid', () => t.append({ stream, topic, routing: { partition: 0 }, records: [{ payload: text('ok') }, record] }));
      }
      expect((await t.describeTopic({ stream, topic })).partitions[0]?.nextOffset).toBe(0n);
    });

    it('a timestamp beyond the u64 range is invalid, like an offset', async () => {
      const t = await hooks.transport();
      const { stream, topic } = await freshTopic(t, 1);
      await expectKind('invalid', () => t.readFromTimestamp({ stream, topic, partition: 0, timestampMicros: 2n ** 64n }));
      await expectKind('invalid', () => t.readFromTimestamp({ stream, topic, partition: 0, timestampMicros: 0 as unknown as bigint }));
      expect(await t.readFromTimestamp({ stream, topic, partition: 0, timestampMicros: 2n ** 64n - 1n })).toEqual([]);
    });
  });

  describe('batch size', () => {
    it('a batch at the size limit is stored; one byte more is refused before it is sent', async () => {
      const t = await hooks.transport();
      const { stream, topic } = await freshTopic(t, 1);
      // Views of one buffer, promised immutable, so the test holds one copy of the bytes.
      const bytes = new Uint8Array(MAX_BATCH_BYTES);
      const headers: RecordHeaders = new Map([['kind', headerValue.string('chunk')], ['seq', headerValue.uint32(7)]]);
      const first = 64_000_000;
      const second = MAX_BATCH_BYTES - first - headerBlockBytes(headers) - 2 * RECORD_FRAMING_BYTES;
      const batch = (extra: number) => [
        { headers, payload: bytes.subarray(0, first) },
        { payload: bytes.subarray(first, first + second + extra) },
      ];
      await expectKind('invalid', () => t.append({ stream, topic, routing: { partition: 0 }, records: batch(1), payloadsImmutable: true }));
      // The refused batch reached nothing: the connection still works and the partition is empty.
      expect((await t.describeTopic({ stream, topic })).partitions[0]?.nextOffset).toBe(0n);
      const stored = await t.append({ stream, topic, routing: { partition: 0 }, records: batch(0), payloadsImmutable: true });
      expect(stored).toEqual({ partition: 0, baseOffset: 0n, count: 2 });
      const [tail] = await t.read({ stream, topic, partition: 0, offset: 1n, maxCount: 1 });
      expect(tail?.payload.length).toBe(second);
    });

    it('many small records count their framing: a batch of them over the limit is refused', async () => {
      const t = await hooks.transport();
      const { stream, topic } = await freshTopic(t, 1);
      const payload = text('x');
      const count = Math.floor(MAX_BATCH_BYTES / (1 + RECORD_FRAMING_BYTES)) + 1;
      const records = Array.from({ length: count }, () => ({ payload }));
      await expectKind('invalid', () => t.append({ stream, topic, routing: { partition: 0 }, records }));
      expect((await t.describeTopic({ stream, topic })).partitions[0]?.nextOffset).toBe(0n);
    });
  });

  describe('concurrent appends report where each batch landed', () => {
    async function concurrentBatches(t: LogTransport, partitions: number, routingOf: (writer: number) => Routing | undefined): Promise<void> {
      const { stream, topic } = await freshTopic(t, partitions);
      const writers = 24;
      const size = (w: number): number => 1 + (w % 3);
      const results: AppendResult[] = await Promise.all(
        Array.from({ length: writers }, (_, w) =>
          t.append({ stream, topic, routing: routingOf(w), records: Array.from({ length: size(w) }, (_, i) => ({ payload: text(`${w}:${i}`) })) }),
        ),
      );
      const byPartition = new Map<number, readonly LogRecord[]>();
      for (let p = 0; p < partitions; p++) byPartition.set(p, await t.read({ stream, topic, partition: p, offset: 0n, maxCount: 1000 }));
      let total = 0;
      for (const [w, result] of results.entries()) {
        expect(result.count).toBe(size(w));
        const stored = (byPartition.get(result.partition) ?? []).slice(Number(result.baseOffset), Number(result.baseOffset) + result.count);
        // The reported position holds exactly this writer's batch, in order.
        expect(stored.map((r) => untext(r.payload)), `writer ${w}`).toEqual(Array.from({ length: size(w) }, (_, i) => `${w}:${i}`));
        total += result.count;
      }
      const stored = [...byPartition.values()];
      expect(stored.reduce((n, records) => n + records.length, 0)).toBe(total);
      for (const records of stored) expect(records.map((r) => r.offset)).toEqual(records.map((_, i) => BigInt(i)));
    }

    it('under key routing: one key, one partition, the positions exact', async () => {
      const t = await hooks.transport();
      await concurrentBatches(t, 3, () => ({ key: 'one-conversation' }));
    });

    it('under mixed keys and partition ids that meet in one partition', async () => {
      const t = await hooks.transport();
      await concurrentBatches(t, 2, (w) => (w % 3 === 0 ? { key: `k${w}` } : w % 3 === 1 ? { partition: 0 } : { key: text(`b${w}`) }));
    });

    it('under balanced routing', async () => {
      const t = await hooks.transport();
      await concurrentBatches(t, 3, (w) => (w % 2 === 0 ? undefined : { balanced: true }));
    });
  });

  describe('many waiters', () => {
    it('one append wakes every waiter it satisfies, and only those', async () => {
      const t = await hooks.transport();
      const { stream, topic } = await freshTopic(t, 1);
      const at = { stream, topic, partition: 0 };
      const woken = Array.from({ length: 40 }, () => t.waitFor({ ...at, offset: 0n, timeoutMs: 20_000 }));
      const later = Array.from({ length: 5 }, () => t.waitFor({ ...at, offset: 1n, timeoutMs: 300 }));
      await t.append({ ...at, records: [{ payload: text('one') }] });
      expect(await Promise.all(woken)).toEqual(woken.map(() => true));
      expect(await Promise.all(later)).toEqual(later.map(() => false));
    });

    it('closing the transport ends every pending wait, a group member waiting included', async () => {
      const t = await hooks.transport();
      const { stream, topic } = await freshTopic(t, 1);
      const member = await t.joinGroup({ stream, topic, group: 'g' });
      expectExactCover(await settledAssignments([member], 1), 1);
      const waits = Array.from({ length: 10 }, (_, i) => t.waitFor({ stream, topic, partition: 0, offset: BigInt(i), timeoutMs: 20_000 }));
      const memberWait = member.waitFor(20_000);
      await t.close();
      for (const wait of waits) await expectKind('closed', () => wait);
      await expectKind('closed', () => memberWait);
    });
  });

  describe('group membership', () => {
    it('leave with a fired signal still leaves, so the partitions go to the others', async () => {
      const t = await hooks.transport();
      const { stream, topic } = await freshTopic(t, 4);
      const a = await t.joinGroup({ stream, topic, group: 'g' });
      const b = await t.joinGroup({ stream, topic, group: 'g' });
      expectExactCover(await settledAssignments([a, b], 4), 4);
      const aborted = new AbortController();
      aborted.abort(new Error('the work was cancelled'));
      await a.leave({ signal: aborted.signal });
      expectExactCover(await settledAssignments([b], 4), 4);
      await expectKind('closed', () => a.assignment());
    });

    it('a commit to a partition the topic lacks is a conflict: the member does not own it', async () => {
      const t = await hooks.transport();
      const { stream, topic } = await freshTopic(t, 2);
      const member = await t.joinGroup({ stream, topic, group: 'g' });
      expectExactCover(await settledAssignments([member], 2), 2);
      await expectKind('conflict', () => member.commit(5, 0n));
      await expectKind('invalid', () => member.commit(-1, 0n));
      await expectKind('invalid', () => member.commit(0, -1n));
    });
  });
}
