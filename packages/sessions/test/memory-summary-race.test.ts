/**
 * Two pruners of one conversation's memory (two processes, each its own sessions factory) that
 * consolidate at the same time: every reader shows one summary of each pruned item, and no item
 * is forgotten without a summary that shows it.
 */
import { describe, expect, it } from 'vitest';
import { AgdxClient } from '@agdx/agents';
import { decodeMemoryRecord, encodeMemoryRecord, MAX_SUMMARY_COVERS, sessions, type MemoryItem, type SessionMemory } from '@agdx/sessions';
import { MemoryLog, type AppendRequest, type LogTransport } from '@agdx/transport';
import { encodeCbor, type CborValue } from '@agdx/wire';

/** A summarizer whose text lists the ids it summarised, so a test can tell what each summary covers. */
function listing(gate?: Promise<void>, arrived?: () => void): (items: readonly MemoryItem[]) => Promise<string> {
  return async (items) => {
    arrived?.();
    await gate;
    return `summary:${items.map((i) => i.id).join(',')}`;
  };
}

/** Every item is in at most one shown summary, and each item is either live or in a shown summary. */
async function expectEachItemSummarisedOnce(memory: SessionMemory, original: readonly string[]): Promise<MemoryItem[]> {
  const shown = await memory.recall().limit(1000).fetch();
  const summaries = shown.filter((i) => i.kind === 'summary');
  const covered = summaries.flatMap((s) => s.text().slice('summary:'.length).split(','));
  expect(new Set(covered).size).toBe(covered.length);
  const live = new Set(shown.filter((i) => i.kind !== 'summary').map((i) => i.id));
  for (const id of original) expect(live.has(id) !== covered.includes(id)).toBe(true);
  return summaries;
}

describe('two consolidations racing', () => {
  it('show one summary: the first on the log; the other forgets nothing and says it was superseded', async () => {
    const log = new MemoryLog();
    const processA = AgdxClient.from(log, { stream: 'demo' });
    await processA.bootstrap(2);
    const processB = AgdxClient.from(log, { stream: 'demo' });
    const a = sessions(processA).create('pruned').memory();
    const b = sessions(processB).create('pruned').memory();
    const original: string[] = [];
    for (let i = 0; i < 10; i++) original.push(await a.remember(`fact ${i}`));

    // both summarizers run before either writes: both pass the check made after the summarizer
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let arrived = 0;
    const both = (): void => {
      if (++arrived === 2) release();
    };
    const [ra, rb] = await Promise.all([a.consolidate(5, { summarize: listing(gate, both) }), b.consolidate(4, { summarize: listing(gate, both) })]);
    const reports = [ra, rb];
    expect(reports.filter((r) => r.superseded === true)).toHaveLength(1);
    const winner = reports.find((r) => r.superseded !== true)!;
    const loser = reports.find((r) => r.superseded === true)!;
    expect(loser.forgotten).toBe(0);
    expect(winner.summary).toBeDefined();

    for (const reader of [a, b, sessions(AgdxClient.from(log, { stream: 'demo' })).create('pruned').memory()]) {
      const summaries = await expectEachItemSummarisedOnce(reader, original);
      expect(summaries.map((s) => s.id)).toEqual([winner.summary]);
    }
  });

  it('a consolidation after one that stopped between its summary and its forgets does not summarise those items again', async () => {
    const log = new MemoryLog();
    // the first pruner's process dies after its summary: every later append of it fails
    let appends = 0;
    let failFrom = Number.POSITIVE_INFINITY;
    const dying = new Proxy(log, {
      get(target, prop) {
        if (prop === 'append') {
          return async (request: AppendRequest) => {
            if (++appends >= failFrom) throw new Error('process died');
            return target.append(request);
          };
        }
        const value: unknown = Reflect.get(target, prop, target);
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    }) as LogTransport;
    const first = AgdxClient.from(dying, { stream: 'demo' });
    await first.bootstrap(2);
    const a = sessions(first).create('pruned').memory();
    const original: string[] = [];
    for (let i = 0; i < 10; i++) original.push(await a.remember(`fact ${i}`));
    failFrom = appends + 2;
    await expect(a.consolidate(5, { summarize: listing() })).rejects.toThrow('process died');

    const b = sessions(AgdxClient.from(log, { stream: 'demo' })).create('pruned').memory();
    const seen: string[][] = [];
    const report = await b.consolidate(5, {
      summarize: (items) => {
        seen.push(items.map((i) => i.id));
        return listing()(items);
      },
    });
    // the five the first summary covers are forgotten without a second summary of them
    expect(seen).toEqual([[original[5]]]);
    expect(report).toMatchObject({ forgotten: 6 });
    const summaries = await expectEachItemSummarisedOnce(b, original);
    expect(summaries).toHaveLength(2);
  });

  it('a consolidation whose items another summary covered while its summarizer ran writes nothing; a later one finishes the prune', async () => {
    const log = new MemoryLog();
    let appends = 0;
    let failFrom = Number.POSITIVE_INFINITY;
    const dying = new Proxy(log, {
      get(target, prop) {
        if (prop === 'append') {
          return async (request: AppendRequest) => {
            if (++appends >= failFrom) throw new Error('process died');
            return target.append(request);
          };
        }
        const value: unknown = Reflect.get(target, prop, target);
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    }) as LogTransport;
    const first = AgdxClient.from(log, { stream: 'demo' });
    await first.bootstrap(2);
    const a = sessions(first).create('pruned').memory();
    const original: string[] = [];
    for (let i = 0; i < 10; i++) original.push(await a.remember(`fact ${i}`));
    const memoryRecords = async (): Promise<bigint> => (await log.describeTopic({ stream: 'demo', topic: 'agent.memory' })).partitions.reduce((n, p) => n + p.nextOffset, 0n);

    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let waiting!: () => void;
    const arrived = new Promise<void>((resolve) => (waiting = resolve));
    const pending = a.consolidate(5, { summarize: listing(gate, waiting) });
    await arrived;
    // meanwhile another process writes its summary of six items and dies before its forgets
    const b = sessions(AgdxClient.from(dying, { stream: 'demo' })).create('pruned').memory();
    failFrom = appends + 2;
    await expect(b.consolidate(4, { summarize: listing() })).rejects.toThrow('process died');
    const written = await memoryRecords();
    release();
    expect(await pending).toMatchObject({ forgotten: 0, superseded: true });
    expect(await memoryRecords()).toBe(written);
    const shown = (await a.recall().limit(100).fetch()).filter((i) => i.kind === 'summary');
    expect(shown).toHaveLength(1);

    // the next consolidation (the summary and three items kept) forgets the six covered items
    // without a second summary of them, and summarises only the seventh
    const seen: string[][] = [];
    const report = await a.consolidate(4, { summarize: (items) => (seen.push(items.map((i) => i.id)), listing()(items)) });
    expect(seen).toEqual([[original[6]]]);
    expect(report).toMatchObject({ forgotten: 7 });
    await expectEachItemSummarisedOnce(a, original);
  });

  it('a summary record names what it covers; a malformed or oversized list is read as none', () => {
    const record = { kind: 'item', id: 'S', itemKind: 'summary', body: new Uint8Array([1]), covers: ['A', 'B'] } as const;
    expect(decodeMemoryRecord(encodeMemoryRecord(record))).toEqual(record);
    const withCovers = (covers: CborValue): Uint8Array =>
      encodeCbor(new Map([['Item', new Map<CborValue, CborValue>([['id', 'S'], ['kind', 'summary'], ['body', []], ['covers', covers]])]]));
    for (const covers of [[], [1], [''], 'A', Array.from({ length: MAX_SUMMARY_COVERS + 1 }, (_, i) => `id${i}`)] as CborValue[]) {
      expect(decodeMemoryRecord(withCovers(covers))).toEqual({ kind: 'item', id: 'S', itemKind: 'summary', body: new Uint8Array() });
    }
  });
});
