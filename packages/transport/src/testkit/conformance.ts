/**
 * The transport conformance suite: the definition of a correct {@link LogTransport}. It
 * registers vitest tests against whatever the factory returns, using only the public interface,
 * unique stream names (so a shared server is fine) and no tight wall-clock assertions (so a
 * network transport can pass it too).
 */

import { afterEach, describe, expect, it, type TestContext } from 'vitest';
import { HEADER_KINDS, headerValue, readHeaderValue, type HeaderValue, type RecordHeaders } from '../headers.js';
import { xxh32 } from '../key-routing.js';
import { sealHeaders } from '../sealed-headers.js';
import type { LogRecord, LogTransport } from '../log-transport.js';
import { describeEdgeCases } from './conformance-edges.js';
import { describeSizeRetention } from './conformance-retention.js';
import {
  cpuMicros,
  eventually,
  expectExactCover,
  expectKind,
  freshTopic,
  settledAssignments,
  sleep,
  text,
  untext,
} from './helpers.js';

/** What the factory hands the suite for one test. */
export interface ConformanceSubject {
  /** A connected transport on an empty or shared log. */
  readonly transport: LogTransport;
  /**
   * Opens a new connection to the same log. The suite calls it after closing `transport` (offsets
   * must survive reconnection) and while `transport` is still open (a second client whose group
   * members stay when the first disconnects). When absent, those tests are skipped.
   */
  readonly reopen?: (() => Promise<LogTransport>) | undefined;
  /**
   * Moves the log's clock forward (broker timestamps and expiry). When absent, the expiry test
   * is skipped: a real server expires whole segments on a timer, which no test should wait for.
   */
  readonly advanceTime?: ((micros: bigint) => Promise<void> | void) | undefined;
  /**
   * `false` when the log records a topic's `maxTopicBytes` but does not trim to it at each
   * append: Iggy's segment cleaner runs on a timer (every minute by default) and deletes whole
   * segments, which no test should wait for. The size-limit cases then only check that the
   * limit is validated and reported. Default `true`.
   */
  readonly trimsTopicSizeAtAppend?: boolean | undefined;
  /** Releases whatever the factory created (called after every test, even a failed one). */
  readonly cleanup?: (() => Promise<void> | void) | undefined;
}

/** Creates a fresh subject for one test. */
export type ConformanceFactory = () => Promise<ConformanceSubject>;

/** The values written for each header kind, extremes included. */
const HEADER_SAMPLES: ReadonlyArray<readonly [string, HeaderValue, unknown]> = [
  ['raw', headerValue.raw(Uint8Array.of(0, 1, 254, 255)), Uint8Array.of(0, 1, 254, 255)],
  ['string', headerValue.string('héllo ✓ 🚀'), 'héllo ✓ 🚀'],
  // A leading U+FEFF is text like any other: a decoder must not drop it from a value or a key.
  ['string-bom', headerValue.string('\ufeffhéllo'), '\ufeffhéllo'],
  ['\ufeffstring', headerValue.string('\ufeff'), '\ufeff'],
  ['bool-true', headerValue.bool(true), true],
  ['bool-false', headerValue.bool(false), false],
  ['int8-min', headerValue.int8(-128), -128],
  ['int8-max', headerValue.int8(127), 127],
  ['int16-min', headerValue.int16(-32768), -32768],
  ['int16-max', headerValue.int16(32767), 32767],
  ['int32-min', headerValue.int32(-2147483648), -2147483648],
  ['int32-max', headerValue.int32(2147483647), 2147483647],
  ['int64-min', headerValue.int64(-(2n ** 63n)), -(2n ** 63n)],
  ['int64-max', headerValue.int64(2n ** 63n - 1n), 2n ** 63n - 1n],
  ['int128-min', headerValue.int128(-(2n ** 127n)), -(2n ** 127n)],
  ['int128-max', headerValue.int128(2n ** 127n - 1n), 2n ** 127n - 1n],
  ['int128-minus-five', headerValue.int128(-5n), -5n],
  ['uint8-max', headerValue.uint8(255), 255],
  ['uint16-max', headerValue.uint16(65535), 65535],
  ['uint32-max', headerValue.uint32(4294967295), 4294967295],
  ['uint64-max', headerValue.uint64(2n ** 64n - 1n), 2n ** 64n - 1n],
  ['uint128-max', headerValue.uint128(2n ** 128n - 1n), 2n ** 128n - 1n],
  ['uint128-zero', headerValue.uint128(0n), 0n],
  ['float32', headerValue.float32(1.5), 1.5],
  ['float32-neg', headerValue.float32(-3.25e10), Math.fround(-3.25e10)],
  ['float64', headerValue.float64(Math.PI), Math.PI],
  ['float64-tiny', headerValue.float64(-Number.MIN_VALUE), -Number.MIN_VALUE],
];

function payloads(records: readonly LogRecord[]): string[] {
  return records.map((r) => untext(r.payload));
}

/**
 * Registers the conformance suite under `describe(name)`. Every test calls `factory` for a fresh
 * subject and releases it afterwards.
 *
 * ```ts
 * describeLogTransportConformance('MemoryLog', async () => {
 *   const log = new MemoryLog();
 *   return { transport: log, reopen: async () => log.connect() };
 * });
 * ```
 */
export function describeLogTransportConformance(name: string, factory: ConformanceFactory): void {
  describe(`LogTransport conformance: ${name}`, () => {
    const opened: LogTransport[] = [];
    const cleanups: Array<() => Promise<void> | void> = [];

    afterEach(async () => {
      for (const transport of opened.splice(0)) await transport.close().catch(() => undefined);
      for (const cleanup of cleanups.splice(0)) await cleanup();
    });

    async function subject(): Promise<ConformanceSubject> {
      const created = await factory();
      opened.push(created.transport);
      if (created.cleanup !== undefined) cleanups.push(created.cleanup);
      return created;
    }

    async function reopened(s: ConformanceSubject, ctx: TestContext): Promise<LogTransport> {
      if (s.reopen === undefined) return ctx.skip('the factory gives no reopen()');
      await s.transport.close();
      const again = await s.reopen();
      opened.push(again);
      return again;
    }

    describe('streams and topics', () => {
      it('ensureStream and ensureTopic are idempotent and describeTopic reports the shape', async () => {
        const { transport: t } = await subject();
        const { stream, topic } = await freshTopic(t, 3);
        await t.ensureStream(stream);
        const again = await t.ensureTopic({ stream, topic }, { partitions: 3 });
        expect(again.partitionCount).toBe(3);
        const described = await t.describeTopic({ stream, topic });
        expect(described.stream).toBe(stream);
        expect(described.topic).toBe(topic);
        expect(described.partitionCount).toBe(3);
        expect(described.messageExpiryMicros).toBeUndefined();
        expect(described.partitions.map((p) => [p.partition, p.nextOffset])).toEqual([
          [0, 0n],
          [1, 0n],
          [2, 0n],
        ]);
        // the creation time (generation), when reported, is the same for every look at one topic
        if (described.createdAtMicros !== undefined) expect(again.createdAtMicros).toBe(described.createdAtMicros);
      });

      it('a topic re-ensured with other settings is a conflict', async () => {
        const { transport: t } = await subject();
        const { stream, topic } = await freshTopic(t, 2);
        await expectKind('conflict', () => t.ensureTopic({ stream, topic }, { partitions: 3 }));
      });

      it('message expiry is recorded on the topic', async () => {
        const { transport: t } = await subject();
        const { stream, topic } = await freshTopic(t, 1, 60_000_000n);
        expect((await t.describeTopic({ stream, topic })).messageExpiryMicros).toBe(60_000_000n);
      });
    });

    describe('append and read', () => {
      it('keeps per-partition order with contiguous offsets from 0', async () => {
        const { transport: t } = await subject();
        const { stream, topic } = await freshTopic(t, 3);
        const first = await t.append({ stream, topic, routing: { partition: 1 }, records: [{ payload: text('a') }, { payload: text('b') }] });
        const second = await t.append({ stream, topic, routing: { partition: 1 }, records: [{ payload: text('c') }] });
        const other = await t.append({ stream, topic, routing: { partition: 2 }, records: [{ payload: text('x') }] });
        expect(first).toEqual({ partition: 1, baseOffset: 0n, count: 2 });
        expect(second).toEqual({ partition: 1, baseOffset: 2n, count: 1 });
        expect(other).toEqual({ partition: 2, baseOffset: 0n, count: 1 });
        const records = await t.read({ stream, topic, partition: 1, offset: 0n });
        expect(payloads(records)).toEqual(['a', 'b', 'c']);
        expect(records.map((r) => r.offset)).toEqual([0n, 1n, 2n]);
        expect(records.every((r) => r.partition === 1)).toBe(true);
        expect(payloads(await t.read({ stream, topic, partition: 1, offset: 1n, maxCount: 1 }))).toEqual(['b']);
        expect(await t.read({ stream, topic, partition: 1, offset: 3n })).toEqual([]);
        expect(await t.read({ stream, topic, partition: 1, offset: 0n, maxCount: 0 })).toEqual([]);
        expect(await t.read({ stream, topic, partition: 0, offset: 0n })).toEqual([]);
        const described = await t.describeTopic({ stream, topic });
        expect(described.partitions.map((p) => p.nextOffset)).toEqual([0n, 3n, 1n]);
      });

      it('concurrent appends from many writers stay contiguous and all-or-nothing per batch', async () => {
        const { transport: t } = await subject();
        const { stream, topic } = await freshTopic(t, 1);
        const writers = 20;
        const results = await Promise.all(
          Array.from({ length: writers }, (_, w) =>
            t.append({
              stream,
              topic,
              routing: { partition: 0 },
              records: Array.from({ length: 5 }, (_, i) => ({ payload: text(`${w}:${i}`) })),
            }),
          ),
        );
        const bases = results.map((r) => r.baseOffset).sort((a, b) => (a < b ? -1 : 1));
        expect(bases).toEqual(Array.from({ length: writers }, (_, i) => BigInt(i * 5)));
        const records = await t.read({ stream, topic, partition: 0, offset: 0n, maxCount: 1000 });
        expect(records.map((r) => r.offset)).toEqual(Array.from({ length: writers * 5 }, (_, i) => BigInt(i)));
        for (const result of results) {
          const batch = records.slice(Number(result.baseOffset), Number(result.baseOffset) + 5).map((r) => untext(r.payload));
          const writer = batch[0]?.split(':')[0];
          expect(batch).toEqual(Array.from({ length: 5 }, (_, i) => `${writer}:${i}`));
        }
      });

      it('broker timestamps are assigned by the log, in microseconds, non-decreasing per partition', async () => {
        const { transport: t } = await subject();
        const { stream, topic } = await freshTopic(t, 1);
        for (let i = 0; i < 5; i++) {
          await t.append({ stream, topic, routing: { partition: 0 }, records: [{ payload: text(`r${i}`) }, { payload: text(`s${i}`) }] });
          await sleep(2);
        }
        const records = await t.read({ stream, topic, partition: 0, offset: 0n });
        expect(records).toHaveLength(10);
        const nowMicros = BigInt(Date.now()) * 1000n;
        const day = 86_400_000_000n;
        for (let i = 0; i < records.length; i++) {
          const ts = (records[i] as LogRecord).timestampMicros;
          expect(typeof ts).toBe('bigint');
          // Microseconds since the epoch (a day of slack for clock skew), never milliseconds.
          expect(ts > nowMicros - day && ts < nowMicros + day).toBe(true);
          if (i > 0) expect(ts >= (records[i - 1] as LogRecord).timestampMicros).toBe(true);
        }
      });

      it('reads from a broker timestamp', async () => {
        const s = await subject();
        const t = s.transport;
        const { stream, topic } = await freshTopic(t, 1);
        for (let i = 0; i < 4; i++) {
          await t.append({ stream, topic, routing: { partition: 0 }, records: [{ payload: text(`b${i}`) }] });
          if (s.advanceTime !== undefined) await s.advanceTime(1000n);
          else await sleep(3);
        }
        const all = await t.read({ stream, topic, partition: 0, offset: 0n });
        const pivot = (all[2] as LogRecord).timestampMicros;
        const expected = all.filter((r) => r.timestampMicros >= pivot);
        const fromPivot = await t.readFromTimestamp({ stream, topic, partition: 0, timestampMicros: pivot });
        expect(fromPivot.map((r) => r.offset)).toEqual(expected.map((r) => r.offset));
        expect(fromPivot[0]?.offset).toBe(all.find((r) => r.timestampMicros >= pivot)?.offset);
        const limited = await t.readFromTimestamp({ stream, topic, partition: 0, timestampMicros: 0n, maxCount: 2 });
        expect(payloads(limited)).toEqual(['b0', 'b1']);
        const last = (all[3] as LogRecord).timestampMicros;
        expect(await t.readFromTimestamp({ stream, topic, partition: 0, timestampMicros: last + 3_600_000_000n })).toEqual([]);
      });

      it('round-trips headers of every kind, extremes included, and payload bytes exactly', async () => {
        const { transport: t } = await subject();
        const { stream, topic } = await freshTopic(t, 1);
        const headers: RecordHeaders = new Map(HEADER_SAMPLES.map(([key, value]) => [key, value]));
        const kinds = new Set(HEADER_SAMPLES.map(([, value]) => value.kind));
        expect([...kinds].sort()).toEqual([...HEADER_KINDS].sort());
        const binary = Uint8Array.from({ length: 256 }, (_, i) => i);
        await t.append({ stream, topic, routing: { partition: 0 }, records: [{ headers, payload: binary }, { payload: text('\ufeffplain') }] });
        const [withHeaders, without] = await t.read({ stream, topic, partition: 0, offset: 0n });
        expect(withHeaders?.payload).toEqual(binary);
        expect(withHeaders?.headers.size).toBe(HEADER_SAMPLES.length);
        for (const [key, written, value] of HEADER_SAMPLES) {
          const read = withHeaders?.headers.get(key);
          expect(read?.kind, key).toBe(written.kind);
          expect(read?.value, key).toEqual(written.value);
          expect(read === undefined ? undefined : readHeaderValue(read), key).toEqual(value);
        }
        expect(without?.headers.size).toBe(0);
        expect(payloads(without === undefined ? [] : [without])).toEqual(['\ufeffplain']);
      });

      it('keeps its own copy of written bytes', async () => {
        const { transport: t } = await subject();
        const { stream, topic } = await freshTopic(t, 1);
        const payload = text('original');
        const header = headerValue.string('before');
        const headers = new Map([['k', header]]);
        await t.append({ stream, topic, routing: { partition: 0 }, records: [{ headers, payload }] });
        payload.fill(0);
        (header.value as Uint8Array).fill(0x41);
        headers.set('extra', headerValue.bool(true));
        const [record] = await t.read({ stream, topic, partition: 0, offset: 0n });
        expect(untext(record?.payload ?? new Uint8Array())).toBe('original');
        expect([...(record?.headers.keys() ?? [])]).toEqual(['k']);
        expect(readHeaderValue(record?.headers.get('k') as HeaderValue)).toBe('before');
      });

      it('stores sealed header maps and immutable payloads exactly, repeated across a batch', async () => {
        const { transport: t } = await subject();
        const { stream, topic } = await freshTopic(t, 1);
        const sealed = sealHeaders(new Map(HEADER_SAMPLES.map(([key, value]) => [key, value])));
        const records = ['a', 'b', 'c'].map((s) => ({ headers: sealed, payload: text(s) }));
        await t.append({ stream, topic, routing: { partition: 0 }, payloadsImmutable: true, records });
        const read = await t.read({ stream, topic, partition: 0, offset: 0n });
        expect(payloads(read)).toEqual(['a', 'b', 'c']);
        for (const record of read) {
          expect(record.headers.size).toBe(HEADER_SAMPLES.length);
          for (const [key, , value] of HEADER_SAMPLES) expect(readHeaderValue(record.headers.get(key) as HeaderValue), key).toEqual(value);
        }
      });
    });

    describe('routing', () => {
      it('hashes keys with XXH32 seed 0 (the reference vectors)', async () => {
        expect(await xxh32('')).toBe(0x02cc5d05);
        expect(await xxh32('abc')).toBe(0x32d153ff);
        expect(await xxh32('01J0Y1ZAG00000000000000002')).toBe(0xb6bd3909);
      });

      it('routes a key to xxh32(key) mod partition count, the same way every time', async () => {
        const { transport: t } = await subject();
        const eight = await freshTopic(t, 8);
        const known = await t.append({ ...eight, routing: { key: '01J0Y1ZAG00000000000000002' }, records: [{ payload: text('k') }] });
        expect(known.partition).toBe(1);
        const abc = await t.append({ ...eight, routing: { key: 'abc' }, records: [{ payload: text('k') }] });
        expect(abc.partition).toBe(0x32d153ff % 8);
        const bytes = await t.append({ ...eight, routing: { key: text('abc') }, records: [{ payload: text('k') }] });
        expect(bytes.partition).toBe(abc.partition);
        const three = await freshTopic(t, 3);
        for (const key of ['session-1', 'session-2', 'agent.alpha', 'ü-key']) {
          const expected = (await xxh32(key)) % 3;
          const a = await t.append({ ...three, routing: { key }, records: [{ payload: text(key) }] });
          const b = await t.append({ ...three, routing: { key }, records: [{ payload: text(key) }, { payload: text(key) }] });
          expect(a.partition, key).toBe(expected);
          expect(b.partition, key).toBe(expected);
        }
      });

      it('balanced routing deals batches round-robin over the partitions', async () => {
        const { transport: t } = await subject();
        const { stream, topic } = await freshTopic(t, 4);
        const seen: number[] = [];
        for (let i = 0; i < 8; i++) {
          const routing = i % 2 === 0 ? ({ balanced: true } as const) : undefined;
          const result = await t.append({ stream, topic, routing, records: [{ payload: text(`m${i}`) }, { payload: text(`n${i}`) }] });
          seen.push(result.partition);
        }
        for (let i = 1; i < seen.length; i++) expect(seen[i]).toBe(((seen[i - 1] as number) + 1) % 4);
        const described = await t.describeTopic({ stream, topic });
        expect(described.partitions.map((p) => p.nextOffset)).toEqual([4n, 4n, 4n, 4n]);
      });
    });

    describe('consumer offsets', () => {
      it('stores, gets and deletes a named consumer offset', async () => {
        const { transport: t } = await subject();
        const { stream, topic } = await freshTopic(t, 2);
        await t.append({ stream, topic, routing: { partition: 1 }, records: [{ payload: text('a') }, { payload: text('b') }] });
        const at = { stream, topic, partition: 1, consumer: { kind: 'consumer', name: 'reader-1' } } as const;
        expect(await t.getOffset(at)).toBeUndefined();
        await t.storeOffset({ ...at, offset: 0n });
        expect(await t.getOffset(at)).toBe(0n);
        await t.storeOffset({ ...at, offset: 1n });
        expect(await t.getOffset(at)).toBe(1n);
        expect(await t.getOffset({ ...at, partition: 0 })).toBeUndefined();
        expect(await t.getOffset({ ...at, consumer: { kind: 'consumer', name: 'reader-2' } })).toBeUndefined();
        await expectKind('invalid', () => t.storeOffset({ ...at, offset: 2n }));
        await expectKind('invalid', () => t.storeOffset({ ...at, partition: 0, offset: 0n }));
        expect(await t.deleteOffset(at)).toBe(true);
        expect(await t.getOffset(at)).toBeUndefined();
        expect(await t.deleteOffset(at)).toBe(false);
      });

      it('consumer offsets survive reconnection', async (ctx) => {
        const s = await subject();
        const { stream, topic } = await freshTopic(s.transport, 1);
        await s.transport.append({ stream, topic, routing: { partition: 0 }, records: [{ payload: text('a') }, { payload: text('b') }] });
        const at = { stream, topic, partition: 0, consumer: { kind: 'consumer', name: 'durable' } } as const;
        await s.transport.storeOffset({ ...at, offset: 1n });
        const t = await reopened(s, ctx);
        expect(await t.getOffset(at)).toBe(1n);
        expect(payloads(await t.read({ stream, topic, partition: 0, offset: 0n }))).toEqual(['a', 'b']);
      });

      it('group offsets survive the members and reconnection', async (ctx) => {
        const s = await subject();
        const { stream, topic } = await freshTopic(s.transport, 2);
        await s.transport.append({ stream, topic, routing: { partition: 0 }, records: [{ payload: text('a') }, { payload: text('b') }] });
        const member = await s.transport.joinGroup({ stream, topic, group: 'workers' });
        await member.commit(0, 1n);
        const at = { stream, topic, partition: 0, consumer: { kind: 'group', name: 'workers' } } as const;
        expect(await s.transport.getOffset(at)).toBe(1n);
        await member.leave();
        const t = await reopened(s, ctx);
        expect(await t.getOffset(at)).toBe(1n);
        const again = await t.joinGroup({ stream, topic, group: 'workers' });
        expect((await again.poll()).records).toEqual([]);
      });
    });

    describe('consumer groups', () => {
      it('assigns every partition to exactly one member and rebalances on join and leave', async () => {
        const { transport: t } = await subject();
        const { stream, topic } = await freshTopic(t, 6);
        const a = await t.joinGroup({ stream, topic, group: 'g' });
        expectExactCover(await settledAssignments([a], 6), 6);
        const b = await t.joinGroup({ stream, topic, group: 'g' });
        const c = await t.joinGroup({ stream, topic, group: 'g' });
        expect(new Set([a.memberId, b.memberId, c.memberId]).size).toBe(3);
        const three = await settledAssignments([a, b, c], 6);
        expectExactCover(three, 6);
        for (const share of three) expect(share.length).toBe(2);
        await b.leave();
        await b.leave();
        const two = await settledAssignments([a, c], 6);
        expectExactCover(two, 6);
        for (const share of two) expect(share.length).toBe(3);
        await expectKind('closed', () => b.assignment());
      });

      it('members of a closed connection leave their groups', async (ctx) => {
        const s = await subject();
        if (s.reopen === undefined) return ctx.skip('the factory gives no reopen()');
        const { stream, topic } = await freshTopic(s.transport, 4);
        const other = await s.reopen();
        opened.push(other);
        const stays = await other.joinGroup({ stream, topic, group: 'g' });
        await s.transport.joinGroup({ stream, topic, group: 'g' });
        expect(await eventually(async () => (await stays.assignment()).length === 2)).toBe(true);
        await s.transport.close();
        expectExactCover(await settledAssignments([stays], 4), 4);
      });

      it('members poll their partitions; with commits every record is delivered exactly once', async () => {
        const { transport: t } = await subject();
        const { stream, topic } = await freshTopic(t, 5);
        for (let p = 0; p < 5; p++) {
          await t.append({ stream, topic, routing: { partition: p }, records: Array.from({ length: 7 }, (_, i) => ({ payload: text(`${p}/${i}`) })) });
        }
        const members = [
          await t.joinGroup({ stream, topic, group: 'workers' }),
          await t.joinGroup({ stream, topic, group: 'workers' }),
        ];
        const owned = await settledAssignments(members, 5);
        expectExactCover(owned, 5);
        const delivered: string[] = [];
        for (let round = 0; round < 50; round++) {
          let any = false;
          for (const [index, member] of members.entries()) {
            const result = await member.poll({ maxCount: 3, autoCommit: true });
            if (result.records.length === 0) continue;
            any = true;
            expect(owned[index]).toContain(result.partition);
            for (const record of result.records) {
              expect(record.partition).toBe(result.partition);
              delivered.push(untext(record.payload));
            }
          }
          if (!any) break;
        }
        expect(delivered.sort()).toEqual(
          Array.from({ length: 5 }, (_, p) => Array.from({ length: 7 }, (_, i) => `${p}/${i}`)).flat().sort(),
        );
        for (let p = 0; p < 5; p++) {
          expect(await t.getOffset({ stream, topic, partition: p, consumer: { kind: 'group', name: 'workers' } })).toBe(6n);
        }
      });

      it('without a commit the same records come again (at-least-once)', async () => {
        const { transport: t } = await subject();
        const { stream, topic } = await freshTopic(t, 1);
        await t.append({ stream, topic, routing: { partition: 0 }, records: [{ payload: text('a') }, { payload: text('b') }] });
        const member = await t.joinGroup({ stream, topic, group: 'g' });
        const first = await member.poll({ maxCount: 10 });
        const second = await member.poll({ maxCount: 10 });
        expect(payloads(first.records)).toEqual(['a', 'b']);
        expect(payloads(second.records)).toEqual(['a', 'b']);
        await member.commit(0, 0n);
        expect(payloads((await member.poll()).records)).toEqual(['b']);
      });

      it('a member may only commit partitions it owns', async () => {
        const { transport: t } = await subject();
        const { stream, topic } = await freshTopic(t, 2);
        await t.append({ stream, topic, routing: { partition: 0 }, records: [{ payload: text('a') }] });
        await t.append({ stream, topic, routing: { partition: 1 }, records: [{ payload: text('b') }] });
        const a = await t.joinGroup({ stream, topic, group: 'g' });
        const b = await t.joinGroup({ stream, topic, group: 'g' });
        const [ownedA] = await settledAssignments([a, b], 2);
        const foreign = (ownedA ?? []).includes(0) ? 1 : 0;
        await expectKind('conflict', () => a.commit(foreign, 0n));
      });
    });

    describe('waiting', () => {
      it('resolves at once when the record already exists and false on timeout', async () => {
        const { transport: t } = await subject();
        const { stream, topic } = await freshTopic(t, 1);
        await t.append({ stream, topic, routing: { partition: 0 }, records: [{ payload: text('a') }] });
        expect(await t.waitFor({ stream, topic, partition: 0, offset: 0n, timeoutMs: 10_000 })).toBe(true);
        expect(await t.waitFor({ stream, topic, partition: 0, offset: 1n, timeoutMs: 30 })).toBe(false);
      });

      it('a waiting reader wakes when a record is appended', async () => {
        const { transport: t } = await subject();
        const { stream, topic } = await freshTopic(t, 2);
        const started = Date.now();
        const waiting = t.waitFor({ stream, topic, partition: 1, offset: 0n, timeoutMs: 20_000 });
        await sleep(20);
        await t.append({ stream, topic, routing: { partition: 0 }, records: [{ payload: text('elsewhere') }] });
        await t.append({ stream, topic, routing: { partition: 1 }, records: [{ payload: text('here') }] });
        expect(await waiting).toBe(true);
        expect(Date.now() - started).toBeLessThan(15_000);
      });

      it('a waiting group member wakes when an owned partition gets a record', async () => {
        const { transport: t } = await subject();
        const { stream, topic } = await freshTopic(t, 2);
        const member = await t.joinGroup({ stream, topic, group: 'g' });
        expectExactCover(await settledAssignments([member], 2), 2);
        const started = Date.now();
        const waiting = member.waitFor(20_000);
        await sleep(20);
        await t.append({ stream, topic, routing: { partition: 1 }, records: [{ payload: text('work') }] });
        expect(await waiting).toBe(true);
        expect(Date.now() - started).toBeLessThan(15_000);
        expect(payloads((await member.poll()).records)).toEqual(['work']);
      });

      it('a waiting reader stops on abort with a cancelled error', async () => {
        const { transport: t } = await subject();
        const { stream, topic } = await freshTopic(t, 1);
        const controller = new AbortController();
        const started = Date.now();
        const waiting = t.waitFor({ stream, topic, partition: 0, offset: 0n, timeoutMs: 20_000, signal: controller.signal });
        setTimeout(() => controller.abort(), 20);
        await expectKind('cancelled', () => waiting);
        expect(Date.now() - started).toBeLessThan(15_000);
        await expectKind('cancelled', () => t.waitFor({ stream, topic, partition: 0, offset: 0n, timeoutMs: 1000, signal: controller.signal }));
      });

      it('a blocked waiter does not spin', async (ctx) => {
        const { transport: t } = await subject();
        const { stream, topic } = await freshTopic(t, 1);
        const before = cpuMicros();
        if (before === undefined) return ctx.skip('this runtime cannot measure CPU time');
        const started = performance.now();
        let ticks = 0;
        const ticker = setInterval(() => ticks++, 10);
        const result = await t.waitFor({ stream, topic, partition: 0, offset: 0n, timeoutMs: 400 });
        clearInterval(ticker);
        const wallMicros = (performance.now() - started) * 1000;
        const used = (cpuMicros() ?? 0) - before;
        expect(result).toBe(false);
        // The event loop stayed free (timers ran) and the process mostly slept.
        expect(ticks).toBeGreaterThan(5);
        expect(used / wallMicros).toBeLessThan(0.5);
      });
    });

    describe('close', () => {
      it('rejects later calls and pending waits with a closed error', async () => {
        const { transport: t } = await subject();
        const { stream, topic } = await freshTopic(t, 1);
        const member = await t.joinGroup({ stream, topic, group: 'g' });
        const pending = t.waitFor({ stream, topic, partition: 0, offset: 0n, timeoutMs: 20_000 });
        await t.close();
        await t.close();
        await expectKind('closed', () => pending);
        const part = { stream, topic, partition: 0 };
        await expectKind('closed', () => t.ensureStream(stream));
        await expectKind('closed', () => t.ensureTopic({ stream, topic }, { partitions: 1 }));
        await expectKind('closed', () => t.describeTopic({ stream, topic }));
        await expectKind('closed', () => t.append({ stream, topic, records: [{ payload: text('x') }] }));
        await expectKind('closed', () => t.read({ ...part, offset: 0n }));
        await expectKind('closed', () => t.readFromTimestamp({ ...part, timestampMicros: 0n }));
        await expectKind('closed', () => t.waitFor({ ...part, offset: 0n, timeoutMs: 10 }));
        const consumer = { kind: 'consumer', name: 'c' } as const;
        await expectKind('closed', () => t.storeOffset({ ...part, consumer, offset: 0n }));
        await expectKind('closed', () => t.getOffset({ ...part, consumer }));
        await expectKind('closed', () => t.deleteOffset({ ...part, consumer }));
        await expectKind('closed', () => t.joinGroup({ stream, topic, group: 'g' }));
        await expectKind('closed', () => member.poll());
        await expectKind('closed', () => member.assignment());
      });
    });

    describe('bad input', () => {
      it('gives typed errors for bad names, unknown targets and bad values', async () => {
        const { transport: t } = await subject();
        const { stream, topic } = await freshTopic(t, 2);
        const long = 'x'.repeat(256);
        await expectKind('invalid', () => t.ensureStream(''));
        await expectKind('invalid', () => t.ensureStream(long));
        await expectKind('invalid', () => t.ensureTopic({ stream, topic: '' }, { partitions: 1 }));
        await expectKind('invalid', () => t.ensureTopic({ stream, topic: 'zero' }, { partitions: 0 }));
        await expectKind('invalid', () => t.ensureTopic({ stream, topic: 'many' }, { partitions: 1001 }));
        await expectKind('invalid', () => t.ensureTopic({ stream, topic: 'frac' }, { partitions: 1.5 }));
        await expectKind('invalid', () => t.ensureTopic({ stream, topic: 'exp' }, { partitions: 1, messageExpiryMicros: 0n }));
        await expectKind('not-found', () => t.ensureTopic({ stream: `${stream}-missing`, topic }, { partitions: 1 }));
        await expectKind('not-found', () => t.describeTopic({ stream: `${stream}-missing`, topic }));
        await expectKind('not-found', () => t.describeTopic({ stream, topic: 'missing' }));
        await expectKind('not-found', () => t.read({ stream, topic, partition: 2, offset: 0n }));
        await expectKind('not-found', () => t.append({ stream, topic, routing: { partition: 7 }, records: [{ payload: text('x') }] }));
        await expectKind('invalid', () => t.read({ stream, topic, partition: -1, offset: 0n }));
        await expectKind('invalid', () => t.read({ stream, topic, partition: 0, offset: -1n }));
        await expectKind('invalid', () => t.read({ stream, topic, partition: 0, offset: 0n, maxCount: -1 }));
        await expectKind('invalid', () => t.waitFor({ stream, topic, partition: 0, offset: 0n, timeoutMs: -5 }));
        await expectKind('invalid', () => t.append({ stream, topic, records: [] }));
        await expectKind('invalid', () => t.append({ stream, topic, records: [{ payload: new Uint8Array(0) }] }));
        await expectKind('invalid', () => t.append({ stream, topic, routing: { key: '' }, records: [{ payload: text('x') }] }));
        await expectKind('invalid', () => t.append({ stream, topic, routing: { key: long }, records: [{ payload: text('x') }] }));
        const badHeaders: ReadonlyArray<RecordHeaders> = [
          new Map([['k', { kind: 'string', value: new Uint8Array(256) }]]),
          new Map([['k', { kind: 'raw', value: new Uint8Array(0) }]]),
          new Map([['k', { kind: 'int32', value: new Uint8Array(3) }]]),
          new Map([['k', { kind: 'bool', value: Uint8Array.of(2) }]]),
          new Map([['k', { kind: 'nope' as 'raw', value: Uint8Array.of(1) }]]),
          new Map([['', headerValue.bool(true)]]),
          new Map([[long, headerValue.bool(true)]]),
        ];
        for (const headers of badHeaders) {
          await expectKind('invalid', () =>
            t.append({ stream, topic, routing: { partition: 0 }, records: [{ payload: text('ok') }, { headers, payload: text('bad') }] }),
          );
        }
        // A rejected batch leaves nothing behind.
        expect((await t.describeTopic({ stream, topic })).partitions[0]?.nextOffset).toBe(0n);
        await expectKind('invalid', () => t.joinGroup({ stream, topic, group: '' }));
        await expectKind('invalid', () => t.getOffset({ stream, topic, partition: 0, consumer: { kind: 'consumer', name: '' } }));
        await expectKind('not-found', () => t.getOffset({ stream, topic, partition: 0, consumer: { kind: 'group', name: 'no-such-group' } }));
      });

      it('header builders reject out-of-range values with typed errors', async () => {
        await expectKind('invalid', () => headerValue.uint8(256));
        await expectKind('invalid', () => headerValue.int8(-129));
        await expectKind('invalid', () => headerValue.int32(1.5));
        await expectKind('invalid', () => headerValue.uint64(-1n));
        await expectKind('invalid', () => headerValue.int128(2n ** 127n));
        await expectKind('invalid', () => headerValue.uint128(2n ** 128n));
        await expectKind('invalid', () => headerValue.string(''));
        await expectKind('invalid', () => headerValue.string('é'.repeat(128)));
        await expectKind('invalid', () => headerValue.raw(new Uint8Array(256)));
      });
    });

    describeEdgeCases({ transport: async () => (await subject()).transport });
    describeSizeRetention({
      subject: async () => {
        const s = await subject();
        return { transport: s.transport, trimsAtAppend: s.trimsTopicSizeAtAppend !== false };
      },
    });

    describe('message expiry', () => {
      it('records older than the expiry are no longer returned', async (ctx) => {
        const s = await subject();
        if (s.advanceTime === undefined) return ctx.skip('the factory gives no advanceTime()');
        const t = s.transport;
        const { stream, topic } = await freshTopic(t, 1, 1_000_000n);
        await t.append({ stream, topic, routing: { partition: 0 }, records: [{ payload: text('old') }] });
        expect(payloads(await t.read({ stream, topic, partition: 0, offset: 0n }))).toEqual(['old']);
        await s.advanceTime(2_000_000n);
        expect(await t.read({ stream, topic, partition: 0, offset: 0n })).toEqual([]);
        expect(await t.readFromTimestamp({ stream, topic, partition: 0, timestampMicros: 0n })).toEqual([]);
        await t.append({ stream, topic, routing: { partition: 0 }, records: [{ payload: text('new') }] });
        const fresh = await t.read({ stream, topic, partition: 0, offset: 0n });
        expect(payloads(fresh)).toEqual(['new']);
        expect(fresh[0]?.offset).toBe(1n);
        expect((await t.describeTopic({ stream, topic })).partitions[0]?.nextOffset).toBe(2n);
      });
    });
  });
}
