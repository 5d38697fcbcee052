/**
 * Writers racing to declare a stream's layout (`agdx.layout`; a log has no compare-and-append).
 * Each record names the offset its writer expected it at, and one that landed elsewhere lost a
 * race and does not count: of two writers that both saw no declaration, the first to append wins,
 * every reader agrees which, and the other gets LayoutMismatchError (or, with `replaceLayout`,
 * declares again after the winner). The reads stay bounded behind any number of losers.
 */
import { AgdxClient, checkLayoutDeclaration, declareLayout, LAYOUT_DECLARATION_TOPIC, LayoutMismatchError, readLayoutDeclaration, type StreamLayout } from '@agdx/agents';
import { MemoryLog, type AppendRequest, type AppendResult, type LogRecord, type LogTransport, type ReadRequest } from '@agdx/transport';
import { describe, expect, it } from 'vitest';

const STREAM = 'layout-race';
const shared: StreamLayout = { kind: 'shared' };
const byTopic: StreamLayout = { kind: 'perAgentTopic', topics: new Map([['model', 'agent.model'], ['tools', 'agent.tools']]) };
const byPartition: StreamLayout = { kind: 'perAgentPartition', partitions: new Map([['model', 1], ['tools', 2]]) };
const json = (value: unknown): Uint8Array => new TextEncoder().encode(JSON.stringify(value));

/**
 * A MemoryLog connection whose appends to the declaration topic are held until `writers` of them
 * are waiting, then released in the order they were issued: every writer has read the topic
 * before any of them appends, the interleaving a real race produces. Counts the records read
 * from the declaration topic.
 */
function racingLog(log: MemoryLog, writers: number): LogTransport & { readonly declarationReads: { records: number; calls: number } } {
  const held: Array<() => void> = [];
  const declarationReads = { records: 0, calls: 0 };
  return new Proxy(log, {
    get(target, prop) {
      if (prop === 'declarationReads') return declarationReads;
      if (prop === 'append') {
        return async (request: AppendRequest): Promise<AppendResult> => {
          if (request.topic === LAYOUT_DECLARATION_TOPIC && writers > 0) {
            writers--;
            await new Promise<void>((resolve) => {
              held.push(resolve);
              if (writers === 0) for (const release of held.splice(0)) release();
            });
          }
          return target.append(request);
        };
      }
      if (prop === 'read') {
        return async (request: ReadRequest): Promise<readonly LogRecord[]> => {
          const records = await target.read(request);
          if (request.topic === LAYOUT_DECLARATION_TOPIC) {
            declarationReads.calls++;
            declarationReads.records += records.length;
          }
          return records;
        };
      }
      const value = Reflect.get(target, prop, target) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  }) as unknown as LogTransport & { readonly declarationReads: { records: number; calls: number } };
}

async function outcome(run: Promise<unknown>): Promise<unknown> {
  return run.then(
    () => 'ok',
    (error: unknown) => error,
  );
}

async function declarationRecords(log: MemoryLog): Promise<number> {
  return Number((await log.describeTopic({ stream: STREAM, topic: LAYOUT_DECLARATION_TOPIC })).partitions[0]?.nextOffset ?? 0n);
}

describe('two bootstraps racing on a stream with no declaration', () => {
  it('both write, the first record counts for every reader, and the other bootstrap gets LayoutMismatchError', async () => {
    const log = new MemoryLog();
    const racing = racingLog(log, 2);
    const [a, b] = await Promise.all([
      outcome(AgdxClient.from(racing, { stream: STREAM, layout: byTopic }).bootstrap(2)),
      outcome(AgdxClient.from(racing, { stream: STREAM, layout: shared }).bootstrap(2)),
    ]);
    // Exactly one succeeds (which one depends on which appended first: bootstrap creates the
    // layout's topics before it declares), and the other is told which layout won.
    expect([a, b].filter((x) => x === 'ok')).toHaveLength(1);
    const [winner, loserLayout] = a === 'ok' ? [byTopic, shared] : [shared, byTopic];
    const loser = (a === 'ok' ? b : a) as LayoutMismatchError;
    expect(loser).toBeInstanceOf(LayoutMismatchError);
    expect(loser.context).toMatchObject({ stream: STREAM, declaredLayout: winner.kind, requestedLayout: loserLayout.kind, declarationOffset: 0n });
    // Both records are on the log; the second landed after the first, not where its writer
    // expected, and does not count.
    expect(await declarationRecords(log)).toBe(2);
    expect(await readLayoutDeclaration(log, STREAM)).toEqual({ layout: winner, offset: 0n });
    await expect(checkLayoutDeclaration(log.connect(), STREAM, winner)).resolves.toBeUndefined();
    await expect(checkLayoutDeclaration(log.connect(), STREAM, loserLayout)).rejects.toBeInstanceOf(LayoutMismatchError);
    // The winner's later bootstraps write nothing; the loser is refused as on any declared stream.
    await AgdxClient.from(log, { stream: STREAM, layout: winner }).bootstrap(2);
    await expect(AgdxClient.from(log, { stream: STREAM, layout: loserLayout }).bootstrap(2)).rejects.toBeInstanceOf(LayoutMismatchError);
    expect(await declarationRecords(log)).toBe(2);
  });

  it('whichever appends first wins, whatever the order the writers started in', async () => {
    const log = new MemoryLog();
    await log.ensureStream(STREAM);
    const racing = racingLog(log, 2);
    const [a, b] = await Promise.all([outcome(declareLayout(racing, STREAM, byPartition)), outcome(declareLayout(racing, STREAM, byTopic))]);
    expect([a, b].filter((x) => x === 'ok')).toHaveLength(1);
    const winner = a === 'ok' ? byPartition : byTopic;
    const loser = (a === 'ok' ? b : a) as LayoutMismatchError;
    expect(loser).toBeInstanceOf(LayoutMismatchError);
    expect(loser.context).toMatchObject({ declaredLayout: winner.kind });
    expect((await readLayoutDeclaration(log, STREAM))?.layout).toEqual(winner);
  });

  it('writers declaring the same layout both succeed, and only one says it wrote the declaration', async () => {
    const log = new MemoryLog();
    await log.ensureStream(STREAM);
    const racing = racingLog(log, 3);
    const wrote = await Promise.all([declareLayout(racing, STREAM, shared), declareLayout(racing, STREAM, shared), declareLayout(racing, STREAM, shared)]);
    expect(wrote.filter(Boolean)).toHaveLength(1);
    expect(await readLayoutDeclaration(log, STREAM)).toEqual({ layout: shared, offset: 0n });
  });

  it('a loser told to replace the layout declares again after the winner, and then counts', async () => {
    const log = new MemoryLog();
    await log.ensureStream(STREAM);
    const racing = racingLog(log, 2);
    const [plain, replacing] = await Promise.all([declareLayout(racing, STREAM, shared), declareLayout(racing, STREAM, byTopic, { replaceLayout: true })]);
    expect(plain).toBe(true);
    expect(replacing).toBe(true);
    // shared at 0 (won the race), byTopic at 1 (lost it), byTopic again at 2 (a deliberate replacement)
    expect(await declarationRecords(log)).toBe(3);
    expect(await readLayoutDeclaration(log, STREAM)).toEqual({ layout: byTopic, offset: 2n });
  });
});

describe('reading the declaration behind race losers', () => {
  it('reads one record when the newest counts, and a bounded window behind losers', async () => {
    const log = new MemoryLog();
    await log.ensureStream(STREAM);
    await declareLayout(log, STREAM, byTopic);
    const counting = racingLog(log, 0);
    await readLayoutDeclaration(counting, STREAM);
    expect(counting.declarationReads).toEqual({ records: 1, calls: 1 });
    // Three losers behind the winner at 0 (each expected offset 0, where the winner landed): two
    // reads, the second of at most 16 records.
    for (let i = 0; i < 3; i++) await log.append({ stream: STREAM, topic: LAYOUT_DECLARATION_TOPIC, records: [{ payload: json({ v: 1, kind: 'shared', at: '0' }) }], routing: { partition: 0 } });
    const behind = racingLog(log, 0);
    expect(await readLayoutDeclaration(behind, STREAM)).toEqual({ layout: byTopic, offset: 0n });
    expect(behind.declarationReads.calls).toBe(2);
    expect(behind.declarationReads.records).toBeLessThanOrEqual(17);
  });

  it('counts no declaration behind more losers than it reads, and a newer declaration is written after them', async () => {
    const log = new MemoryLog();
    await log.ensureStream(STREAM);
    await declareLayout(log, STREAM, byTopic);
    const losers = Array.from({ length: 100 }, () => ({ payload: json({ v: 1, kind: 'shared', at: '0' }) }));
    await log.append({ stream: STREAM, topic: LAYOUT_DECLARATION_TOPIC, records: losers, routing: { partition: 0 } });
    const counting = racingLog(log, 0);
    expect(await readLayoutDeclaration(counting, STREAM)).toBeUndefined();
    expect(counting.declarationReads.records).toBeLessThanOrEqual(64);
    expect(await declareLayout(log, STREAM, shared)).toBe(true);
    expect(await readLayoutDeclaration(log, STREAM)).toEqual({ layout: shared, offset: 101n });
  });

  it('a record without an expected offset (written before writers said it) counts where it lands', async () => {
    const log = new MemoryLog();
    await log.ensureStream(STREAM);
    await log.ensureTopic({ stream: STREAM, topic: LAYOUT_DECLARATION_TOPIC }, { partitions: 1 });
    await log.append({ stream: STREAM, topic: LAYOUT_DECLARATION_TOPIC, records: [{ payload: json({ v: 1, kind: 'shared' }) }, { payload: json({ v: 1, kind: 'singlePartition' }) }], routing: { partition: 0 } });
    expect(await readLayoutDeclaration(log, STREAM)).toEqual({ layout: { kind: 'singlePartition' }, offset: 1n });
    // a corrupt newest record still means no declaration, as before
    await log.append({ stream: STREAM, topic: LAYOUT_DECLARATION_TOPIC, records: [{ payload: json({ v: 1, kind: 'shared', at: 'x' }) }], routing: { partition: 0 } });
    expect(await readLayoutDeclaration(log, STREAM)).toBeUndefined();
  });
});
