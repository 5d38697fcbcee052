import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  follow,
  followGroup,
  isSealedHeaders,
  ManualLogClock,
  MemoryLog,
  partitionForKey,
  sealHeaders,
  TransportError,
  xxh32,
  type LogClock,
  type LogRecord,
} from '@agdx/transport';

const enc = new TextEncoder();
const payload = (s: string): Uint8Array => enc.encode(s);

async function topicOf(log: MemoryLog, partitions: number, messageExpiryMicros?: bigint) {
  await log.ensureStream('s');
  await log.ensureTopic({ stream: 's', topic: 't' }, { partitions, messageExpiryMicros });
  return { stream: 's', topic: 't' } as const;
}

async function kindOf(action: () => Promise<unknown>): Promise<string> {
  try {
    await action();
  } catch (error) {
    if (!TransportError.is(error)) throw error;
    return error.kind;
  }
  return 'ok';
}

describe('MemoryLog connections', () => {
  it('connect() shares the data; closing one connection leaves the others open', async () => {
    const log = new MemoryLog();
    const at = await topicOf(log, 1);
    const other = log.connect();
    await other.append({ ...at, records: [{ payload: payload('a') }] });
    await log.close();
    expect(log.closed).toBe(true);
    expect(other.closed).toBe(false);
    expect((await other.read({ ...at, partition: 0, offset: 0n })).map((r) => r.offset)).toEqual([0n]);
  });
});

describe('MemoryLog copies', () => {
  it('copies Buffer payloads and header bytes (Buffer#slice would share memory)', async () => {
    const log = new MemoryLog();
    const at = await topicOf(log, 1);
    const body = Buffer.from('original');
    const raw = Buffer.from([1, 2, 3]);
    await log.append({ ...at, records: [{ payload: body, headers: new Map([['r', { kind: 'raw', value: raw }]]) }] });
    body.fill(0);
    raw.fill(0);
    const [record] = await log.read({ ...at, partition: 0, offset: 0n });
    expect(record?.payload.constructor).toBe(Uint8Array);
    expect(new TextDecoder().decode(record?.payload)).toBe('original');
    expect([...(record?.headers.get('r')?.value ?? [])]).toEqual([1, 2, 3]);
  });

  it('a batch that repeats one header map and payload stores independent copies of each record', async () => {
    const log = new MemoryLog();
    const at = await topicOf(log, 1);
    const shared = new Map([['h', { kind: 'string' as const, value: payload('one') }]]);
    const body = payload('same');
    const other = new Map([['h', { kind: 'string' as const, value: payload('two') }]]);
    await log.append({
      ...at,
      records: [
        { payload: body, headers: shared },
        { payload: body, headers: shared },
        { payload: payload('x'), headers: other },
        { payload: body, headers: shared },
      ],
    });
    shared.set('h', { kind: 'string', value: payload('changed') });
    body.fill(0);
    // A second append of the now-changed map must see the change: no copy outlives its batch.
    await log.append({ ...at, records: [{ payload: body, headers: shared }] });
    const records = await log.read({ ...at, partition: 0, offset: 0n });
    const decode = (bytes: Uint8Array | undefined): string => new TextDecoder().decode(bytes);
    expect(records.map((r) => decode(r.headers.get('h')?.value))).toEqual(['one', 'one', 'two', 'one', 'changed']);
    expect(records.slice(0, 4).map((r) => decode(r.payload))).toEqual(['same', 'same', 'x', 'same']);
    expect([...(records[4]?.payload ?? [])]).toEqual([0, 0, 0, 0]);
    // Writing through one returned payload view never reaches its neighbours in the batch.
    expect(records[0]?.payload.byteLength).toBe(4);
    expect(records[1]?.payload.byteLength).toBe(4);
  });

  it('a batch whose second record is invalid stores nothing', async () => {
    const log = new MemoryLog();
    const at = await topicOf(log, 1);
    const bad = { payload: payload('a'), headers: new Map([['', { kind: 'string' as const, value: payload('v') }]]) };
    expect(await kindOf(() => log.append({ ...at, records: [{ payload: payload('ok') }, bad] }))).toBe('invalid');
    expect(await log.read({ ...at, partition: 0, offset: 0n })).toEqual([]);
    const next = await log.append({ ...at, records: [{ payload: payload('b') }] });
    expect(next.baseOffset).toBe(0n);
  });
});

describe('MemoryLog routing', () => {
  it('balanced routing starts at partition 0 and a failed batch does not advance it', async () => {
    const log = new MemoryLog();
    const at = await topicOf(log, 3);
    expect((await log.append({ ...at, records: [{ payload: payload('a') }] })).partition).toBe(0);
    expect(await kindOf(() => log.append({ ...at, records: [{ payload: new Uint8Array(0) }] }))).toBe('invalid');
    expect((await log.append({ ...at, records: [{ payload: payload('b') }] })).partition).toBe(1);
  });

  it('keyed routing matches partitionForKey and the reference vector', async () => {
    expect(await partitionForKey('01J0Y1ZAG00000000000000002', 8)).toBe(1);
    expect(await xxh32(new Uint8Array(0))).toBe(0x02cc5d05);
    expect(await kindOf(() => partitionForKey('k', 0))).toBe('invalid');
    expect(await kindOf(() => partitionForKey('', 3))).toBe('invalid');
  });
});

describe('MemoryLog timestamps and expiry', () => {
  it('keeps broker timestamps non-decreasing even when the clock steps back', async () => {
    let now = 5_000_000n;
    const clock: LogClock = { nowMicros: () => now };
    const log = new MemoryLog({ clock });
    const at = await topicOf(log, 1);
    await log.append({ ...at, records: [{ payload: payload('a') }] });
    now = 1_000_000n;
    await log.append({ ...at, records: [{ payload: payload('b') }] });
    const records = await log.read({ ...at, partition: 0, offset: 0n });
    expect(records.map((r) => r.timestampMicros)).toEqual([5_000_000n, 5_000_000n]);
  });

  it('drops expired records from memory and keeps offsets stable', async () => {
    const clock = new ManualLogClock(1_000_000_000n);
    const log = new MemoryLog({ clock });
    const at = await topicOf(log, 1, 1000n);
    for (let i = 0; i < 3000; i++) await log.append({ ...at, routing: { partition: 0 }, records: [{ payload: payload(`${i}`) }] });
    clock.advance(5000n);
    await log.append({ ...at, routing: { partition: 0 }, records: [{ payload: payload('late') }] });
    const records = await log.read({ ...at, partition: 0, offset: 0n });
    expect(records.map((r) => r.offset)).toEqual([3000n]);
    expect(await log.read({ ...at, partition: 0, offset: 2999n })).toHaveLength(1);
    expect((await log.readFromTimestamp({ ...at, partition: 0, timestampMicros: 0n })).map((r) => r.offset)).toEqual([3000n]);
    await log.append({ ...at, routing: { partition: 0 }, records: [{ payload: payload('later') }] });
    expect((await log.read({ ...at, partition: 0, offset: 3001n })).map((r) => r.offset)).toEqual([3001n]);
  });

  it('a zero timeout answers at once', async () => {
    const log = new MemoryLog();
    const at = await topicOf(log, 1);
    expect(await log.waitFor({ ...at, partition: 0, offset: 0n, timeoutMs: 0 })).toBe(false);
  });
});

describe('MemoryLog consumer groups', () => {
  it('deals partitions round-robin over members in join order', async () => {
    const log = new MemoryLog();
    const at = await topicOf(log, 5);
    const a = await log.joinGroup({ ...at, group: 'g' });
    const b = await log.joinGroup({ ...at, group: 'g' });
    expect(await a.assignment()).toEqual([0, 2, 4]);
    expect(await b.assignment()).toEqual([1, 3]);
    const c = await log.joinGroup({ ...at, group: 'g' });
    expect([await a.assignment(), await b.assignment(), await c.assignment()]).toEqual([[0, 3], [1, 4], [2]]);
    await a.leave();
    expect([await b.assignment(), await c.assignment()]).toEqual([[0, 2, 4], [1, 3]]);
  });

  it('group offsets stored at top level need an owning member on this connection', async () => {
    const log = new MemoryLog();
    const at = await topicOf(log, 2);
    await log.append({ ...at, routing: { partition: 0 }, records: [{ payload: payload('a') }] });
    const other = log.connect();
    const member = await other.joinGroup({ ...at, group: 'g' });
    const group = { kind: 'group', name: 'g' } as const;
    expect(await kindOf(() => log.storeOffset({ ...at, partition: 0, consumer: group, offset: 0n }))).toBe('conflict');
    await other.storeOffset({ ...at, partition: 0, consumer: group, offset: 0n });
    expect(await log.getOffset({ ...at, partition: 0, consumer: group })).toBe(0n);
    expect(await kindOf(() => log.deleteOffset({ ...at, partition: 0, consumer: group }))).toBe('conflict');
    expect(await other.deleteOffset({ ...at, partition: 0, consumer: group })).toBe(true);
    await member.leave();
    expect(await kindOf(() => other.storeOffset({ ...at, partition: 0, consumer: group, offset: 0n }))).toBe('conflict');
  });

  it('a waiting member wakes on rebalance and is rejected when it leaves', async () => {
    const log = new MemoryLog();
    const at = await topicOf(log, 2);
    const a = await log.joinGroup({ ...at, group: 'g' });
    const waiting = a.waitFor(10_000);
    await log.joinGroup({ ...at, group: 'g' });
    expect(await waiting).toBe(true);
    const pending = a.waitFor(10_000);
    await a.leave();
    expect(await kindOf(() => pending)).toBe('closed');
    expect(await kindOf(() => a.poll())).toBe('closed');
  });
});

describe('follow()', () => {
  it('yields records as they arrive and stops on abort', async () => {
    const log = new MemoryLog();
    const at = await topicOf(log, 1);
    await log.append({ ...at, records: [{ payload: payload('a') }] });
    const controller = new AbortController();
    const seen: LogRecord[] = [];
    const done = (async () => {
      for await (const record of follow(log, { ...at, partition: 0, signal: controller.signal })) {
        seen.push(record);
        if (seen.length === 3) controller.abort();
      }
    })();
    await log.append({ ...at, records: [{ payload: payload('b') }, { payload: payload('c') }] });
    expect(await kindOf(() => done)).toBe('cancelled');
    expect(seen.map((r) => r.offset)).toEqual([0n, 1n, 2n]);
  });
});

describe('followGroup()', () => {
  it('yields batches of owned partitions, waits when idle and stops on abort', async () => {
    const log = new MemoryLog();
    const at = await topicOf(log, 2);
    const member = await log.joinGroup({ ...at, group: 'g' });
    const controller = new AbortController();
    const seen: string[] = [];
    const done = (async () => {
      for await (const { partition, records } of followGroup(member, { signal: controller.signal, maxCount: 10 })) {
        for (const record of records) seen.push(new TextDecoder().decode(record.payload));
        await member.commit(partition, records[records.length - 1]!.offset);
        if (seen.length === 3) controller.abort();
      }
    })();
    await log.append({ ...at, routing: { partition: 0 }, records: [{ payload: payload('a') }] });
    await new Promise((resolve) => setTimeout(resolve, 5));
    await log.append({ ...at, routing: { partition: 1 }, records: [{ payload: payload('b') }, { payload: payload('c') }] });
    expect(await kindOf(() => done)).toBe('cancelled');
    expect(seen.sort()).toEqual(['a', 'b', 'c']);
  });
});

describe('hostile input', () => {
  it('never lets an untyped error escape (property)', async () => {
    const log = new MemoryLog();
    const at = await topicOf(log, 2);
    const junk = fc.oneof(
      fc.constant(undefined),
      fc.constant(null),
      fc.integer({ min: -3, max: 5 }),
      fc.double(),
      fc.bigInt({ min: -5n, max: 5n }),
      fc.string({ maxLength: 300 }),
      fc.uint8Array({ maxLength: 4 }),
      fc.constant({}),
      fc.constant([]),
      fc.constant([null]),
      fc.constant([{ payload: 'x' }]),
      fc.constant(new Map([['k', null]])),
    );
    await fc.assert(
      fc.asyncProperty(junk, junk, junk, junk, async (a, b, c, d) => {
        const calls: Array<() => Promise<unknown>> = [
          () => log.append({ ...at, records: a as never, routing: b as never }),
          () => log.append({ ...at, records: [{ payload: payload('x'), headers: c as never }], routing: { partition: d as never } }),
          () => log.read({ stream: a as never, topic: 't', partition: b as never, offset: c as never, maxCount: d as never }),
          () => log.read({ ...at, partition: b as never, offset: c as never, maxCount: d as never }),
          () => log.readFromTimestamp({ ...at, partition: 0, timestampMicros: a as never, maxCount: b as never }),
          () => log.waitFor({ ...at, partition: a as never, offset: b as never, timeoutMs: 0 }),
          () => log.storeOffset({ ...at, partition: 0, consumer: a as never, offset: b as never }),
          () => log.getOffset({ ...at, partition: c as never, consumer: { kind: 'consumer', name: d as never } }),
          () => log.ensureTopic({ stream: 's', topic: a as never }, { partitions: b as never, messageExpiryMicros: c as never }),
          () => log.joinGroup({ ...at, group: a as never }),
          () => log.append(a as never),
          () => log.read(b as never),
        ];
        for (const call of calls) {
          try {
            await call();
          } catch (error) {
            expect(TransportError.is(error), String(error)).toBe(true);
          }
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('MemoryLog without copies', () => {
  it('keeps immutable payloads as they are and stores a Buffer as a plain Uint8Array view', async () => {
    const log = new MemoryLog();
    const at = await topicOf(log, 1);
    const kept = payload('kept');
    const buffer = Buffer.from('buffer');
    await log.append({ ...at, payloadsImmutable: true, records: [{ payload: kept }, { payload: buffer }] });
    const [first, second] = await log.read({ ...at, partition: 0, offset: 0n });
    expect(first?.payload).toBe(kept);
    expect(second?.payload.constructor).toBe(Uint8Array);
    expect(new TextDecoder().decode(second?.payload)).toBe('buffer');
  });

  it('stores a sealed header map itself, and a sealed map refuses changes', async () => {
    const log = new MemoryLog();
    const at = await topicOf(log, 1);
    const source = new Map([['h', { kind: 'string' as const, value: payload('v') }]]);
    const sealed = sealHeaders(source);
    expect(isSealedHeaders(sealed)).toBe(true);
    expect(isSealedHeaders(source)).toBe(false);
    expect(sealHeaders(sealed)).toBe(sealed);
    source.get('h')!.value.fill(0x41);
    expect(new TextDecoder().decode(sealed.get('h')?.value)).toBe('v');
    const map = sealed as Map<string, unknown>;
    expect(await kindOf(async () => map.set('x', 1))).toBe('invalid');
    expect(await kindOf(async () => map.delete('h'))).toBe('invalid');
    expect(await kindOf(async () => map.clear())).toBe('invalid');
    expect(Object.isFrozen(sealed.get('h'))).toBe(true);
    await log.append({ ...at, records: [{ payload: payload('a'), headers: sealed }, { payload: payload('b') }] });
    const [record, bare] = await log.read({ ...at, partition: 0, offset: 0n });
    expect(record?.headers).toBe(sealed);
    expect(bare?.headers.size).toBe(0);
    expect(await kindOf(async () => (bare?.headers as Map<string, unknown>).set('x', 1))).toBe('invalid');
  });

  it('sealing validates like an append', async () => {
    expect(await kindOf(async () => sealHeaders(new Map([['', { kind: 'raw' as const, value: payload('v') }]])))).toBe('invalid');
    expect(await kindOf(async () => sealHeaders(new Map([['k', { kind: 'uint8' as const, value: payload('vv') }]])))).toBe('invalid');
  });
});
