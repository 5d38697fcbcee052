// @agdx/sessions memory recall over 100,000 items of one conversation on the embedded MemoryLog:
//  1. the first recall of a fresh process (folds all of agent.memory; the keyword one also builds
//     the word index), per strategy;
//  2. repeated recalls (the folded index continues from its resume offsets and reads nothing old),
//     against the floor of reading the recalled items' own records (one read and decode per item);
//     the target is at most 2x that floor;
//  3. reading and decoding all the items' records (what the old recall paid on every call), and
//     each repeated recall as a fraction of it.
// Run: pnpm exec tsx --conditions=@agdx/source bench/sessions-memory.bench.ts → one JSON object on stdout.
import { AgdxClient, readAgentMessage } from '@agdx/agents';
import { decodeMemoryRecord, encodeMemoryRecord, MEMORY_NAMESPACE_HEADER, sessions, type Embedder, type MemoryItem } from '@agdx/sessions';
import { MemoryLog, type AppendRecord } from '@agdx/transport';
import { encodeProvenanceHeaders, stringHeader } from '@agdx/wire';
import { machine } from './support/machine.js';
import { median } from './support/stats.js';

const RUNS = Number(process.env.AGDX_BENCH_RUNS ?? 7);
const ITEMS = Number(process.env.AGDX_BENCH_MEMORY_ITEMS ?? 100_000);
const DIMENSIONS = 64;
const VOCABULARY = 5_000;
const LIMIT = 50;
const encoder = new TextEncoder();

/** A deterministic pseudo-random sequence (xorshift32), so every run writes the same items. */
function rng(seed: number): () => number {
  let x = seed;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 0x1_0000_0000;
  };
}

/** Hashes words onto axes: the same text always gets the same vector. */
const embedder: Embedder = {
  dimensions: DIMENSIONS,
  embed: (texts) =>
    texts.map((text) => {
      const v = new Array<number>(DIMENSIONS).fill(0.001);
      for (const word of text.split(' ')) {
        let h = 2166136261;
        for (let i = 0; i < word.length; i++) h = Math.imul(h ^ word.charCodeAt(i), 16777619);
        const axis = (h >>> 0) % DIMENSIONS;
        v[axis] = (v[axis] as number) + 1;
      }
      return v;
    }),
};

async function filledLog(): Promise<{ log: MemoryLog; conversationText: string }> {
  const log = new MemoryLog();
  const laser = AgdxClient.from(log, { stream: 'bench' });
  await laser.bootstrap(1);
  const session = sessions(laser).create('bench-memory');
  const headers = new Map([...encodeProvenanceHeaders({ conversation: session.conversation }), [MEMORY_NAMESPACE_HEADER, stringHeader('agent.session')]]);
  const next = rng(42);
  // word i has weight ~ 1/(i+1): a few words are common, most are rare, like real text
  const word = (): string => `w${Math.floor(VOCABULARY ** next())}`;
  const [vectorsFor] = [(texts: string[]) => embedder.embed(texts) as number[][]];
  for (let written = 0; written < ITEMS; written += 1000) {
    const texts = Array.from({ length: Math.min(1000, ITEMS - written) }, (_, k) => {
      const words = Array.from({ length: 12 }, word);
      // one item in 5,000 mentions the selective query word
      if ((written + k) % 5_000 === 17) words.push('zebra');
      return words.join(' ');
    });
    const vectors = vectorsFor(texts);
    const records: AppendRecord[] = texts.map((text, k) => {
      const bytes = new Uint8Array(DIMENSIONS * 4);
      const view = new DataView(bytes.buffer);
      (vectors[k] as number[]).forEach((x, i) => view.setFloat32(i * 4, x, true));
      const id = `bench-${String(written + k).padStart(8, '0')}`;
      return { headers, payload: encodeMemoryRecord({ kind: 'item', id, itemKind: 'fact', body: encoder.encode(text), embedding: bytes }) };
    });
    await log.append({ stream: 'bench', topic: 'agent.memory', records, routing: { partition: 0 } });
  }
  return { log, conversationText: session.conversation.toString() };
}

/** A fresh process: a new client and factory, so no folded index exists yet. */
function freshMemory(log: MemoryLog) {
  return sessions(AgdxClient.from(log, { stream: 'bench' })).create('bench-memory').memory().withEmbedder(embedder);
}

type Recall = (memory: ReturnType<typeof freshMemory>) => Promise<MemoryItem[]>;

const strategies: Record<string, Recall> = {
  recent: (m) => m.recall().limit(LIMIT).fetch(),
  keywordSelective: (m) => m.recall().keyword('zebra').limit(LIMIT).fetch(),
  keywordCommon: (m) => m.recall().keyword('w1 w2').limit(LIMIT).fetch(),
  semantic: (m) => m.recall().semantic('w7 w9 w11').limit(LIMIT).fetch(),
  hybrid: (m) => m.recall().hybrid('w7 zebra').limit(LIMIT).fetch(),
};

/** The floor: read and decode each recalled item's own record. */
async function readOwnRecords(log: MemoryLog, items: readonly MemoryItem[]): Promise<number> {
  let n = 0;
  for (const item of items) {
    const [record] = await log.read({ stream: 'bench', topic: 'agent.memory', partition: item.position.partition, offset: item.position.offset, maxCount: 1 });
    if (record === undefined) throw new Error('missing record');
    const message = readAgentMessage(record, { stream: 'bench', topic: 'agent.memory' });
    if (decodeMemoryRecord(message.payload).kind === 'item') n++;
  }
  return n;
}

/** What the old recall paid on every call: read and decode every record of the topic. */
async function readEverything(log: MemoryLog): Promise<number> {
  let n = 0;
  for (let offset = 0n; ; ) {
    const batch = await log.read({ stream: 'bench', topic: 'agent.memory', partition: 0, offset, maxCount: 1000 });
    if (batch.length === 0) return n;
    for (const record of batch) if (decodeMemoryRecord(readAgentMessage(record, { stream: 'bench', topic: 'agent.memory' }).payload).kind === 'item') n++;
    offset += BigInt(batch.length);
  }
}

async function time<T>(f: () => Promise<T>): Promise<[number, T]> {
  const t = performance.now();
  const value = await f();
  return [performance.now() - t, value];
}

async function main(): Promise<void> {
  const { log } = await filledLog();
  const everything: number[] = [];
  for (let i = 0; i < Math.min(RUNS, 3); i++) everything.push((await time(() => readEverything(log)))[0]);
  const all = median(everything);
  const results: Record<string, unknown> = {};
  for (const [name, recall] of Object.entries(strategies)) {
    const memory = freshMemory(log);
    const [firstMs, items] = await time(() => recall(memory));
    const repeated: number[] = [];
    const floor: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      repeated.push((await time(() => recall(memory)))[0]);
      floor.push((await time(() => readOwnRecords(log, items)))[0]);
    }
    const r = median(repeated);
    const f = median(floor);
    results[name] = {
      returned: items.length,
      firstRecallMs: Number(firstMs.toFixed(1)),
      repeatedRecallMedianMs: Number(r.toFixed(3)),
      baselineReadOwnRecordsMedianMs: Number(f.toFixed(3)),
      ratio: Number((r / f).toFixed(2)),
      withinTarget: r <= 2 * f,
      ratioToReadingAllItemRecords: Number((r / all).toFixed(4)),
    };
  }
  process.stdout.write(
    `${JSON.stringify(
      {
        name: 'sessions-memory',
        environment: { ...machine(), runs: RUNS },
        items: ITEMS,
        limit: LIMIT,
        dimensions: DIMENSIONS,
        targetRepeatedOverOwnRecordsAtMost: 2,
        strategies: results,
        readAllItemRecordsMs: Number(all.toFixed(1)),
      },
      null,
      2,
    )}\n`,
  );
}

await main();
