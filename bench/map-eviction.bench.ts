// What forgetting the oldest entry of a full bounded Map costs, per eviction, at the sizes the
// packages' caches use. In alternating rounds, per CPU second of this process, one operation =
// one new key kept and the oldest key forgotten (the map stays full):
//   baseline = a Map in insertion order, re-setting a key by delete + set, forgetting through
//              `map.keys().next()` (the pattern the caches used: in V8 every delete leaves a hole
//              that a fresh iterator walks again until the table rehashes);
//   ours     = `RecencyMap` (exported by @agdx/agents, used by its dedup window and by
//              bridge-a2a's reply index): a queue of keys beside the Map;
//   ring     = (second comparison, pure FIFO only) a fixed ring of `size` keys beside a Map, as
//              `replay-guard.ts` does, against the same baseline.
// Two key patterns: `fifo` (every key new) and `refresh` (every fourth operation sets again a
// key set size/2 operations ago, which moves it to the newest; the others are new keys).
// A third comparison runs the public `SlidingWindowKeyStore.add` against a copy of its former
// code (a Set forgetting through `values().next()`), fresh keys, at each size.
// nsPerOp = 1e9 / (ops per CPU second), median over the rounds; `ratio` = ours / baseline rates
// per round (above 1: ours is faster).
// `heapBytesPerEntry`: the heap a full cache of each kind holds per key, at each size (keys and
// values made beforehand, full GC before and after, filled by 4 × size puts so the evictions' holes
// and stale copies are there; twice each, interleaved).
// Last, what it means to an agent (`roundTrip`): one `laser.request` round trip on MemoryLog to
// an echo agent whose processed-key store is full (10,000 keys, the default window) and whose
// commands carry a new idempotency key each, so every round trip forgets one key: ours = the
// agent with `SlidingWindowKeyStore`, baseline = the same agent with the former store, two agents
// each on its own MemoryLog, alternating rounds. `shareOfRoundTrip` = 1 - baseline rate / ours rate.
// Run: pnpm bench map-eviction → one JSON object on stdout. AGDX_BENCH_EVICT_SIZES (default
// "64,256,10000,32768") sets the sizes; AGDX_BENCH_RUNS (default 7) the rounds;
// AGDX_BENCH_EVICT_ROUNDTRIP=0 skips the round trips.
import { loadavg } from 'node:os';
import { AgdxClient, Agent, AgentTopic, type ProcessedKeyStore, SlidingWindowKeyStore } from '@agdx/agents';
import { MemoryLog } from '@agdx/transport';
import { AgentId, ConversationId, CorrelationId, MintUlid } from '@agdx/wire';
import { RecencyMap } from '../packages/agents/src/dedup/recency-map.js';
import { compareAlternating, sinkBit, type Comparison, type Contender } from './support/alternating.js';
import { machine } from './support/machine.js';

const SIZES = (process.env.AGDX_BENCH_EVICT_SIZES ?? '64,256,10000,32768').split(',').map(Number).filter((n) => Number.isSafeInteger(n) && n > 1);
const ROUNDS = Number(process.env.AGDX_BENCH_RUNS ?? 7);
const ROUND_TRIP = process.env.AGDX_BENCH_EVICT_ROUNDTRIP !== '0';
const WINDOW = 10_000;

type Pattern = 'fifo' | 'refresh';

/** A cache under test: `put` keeps a key as the newest and forgets the oldest beyond `size`. */
interface Cache {
  put(key: string): void;
  readonly size: number;
}

/** The former pattern: delete + set, forget through a fresh iterator. */
function mapCache(size: number): Cache {
  const map = new Map<string, number>();
  return {
    put(key) {
      map.delete(key);
      map.set(key, 1);
      while (map.size > size) {
        const oldest = map.keys().next();
        if (oldest.done === true) break;
        map.delete(oldest.value);
      }
    },
    get size() {
      return map.size;
    },
  };
}

function recencyCache(size: number): Cache {
  const map = new RecencyMap<string, number>();
  return {
    put(key) {
      map.set(key, 1);
      while (map.size > size) {
        const oldest = map.oldest();
        if (oldest === undefined) break;
        map.delete(oldest);
      }
    },
    get size() {
      return map.size;
    },
  };
}

/** A fixed ring of keys (FIFO only: a key set again is not moved). */
function ringCache(size: number): Cache {
  const map = new Map<string, number>();
  const ring: (string | undefined)[] = new Array<string | undefined>(size).fill(undefined);
  let next = 0;
  return {
    put(key) {
      const slot = next;
      next = slot + 1 === size ? 0 : slot + 1;
      const oldest = ring[slot];
      if (oldest !== undefined && map.get(oldest) === slot) map.delete(oldest);
      ring[slot] = key;
      map.set(key, slot);
    },
    get size() {
      return map.size;
    },
  };
}

/** The former `SlidingWindowKeyStore` (@agdx/agents before this change), line for line. */
class FormerWindowStore implements ProcessedKeyStore {
  readonly #capacity: number;
  readonly #keys = new Set<string>();

  constructor(capacity: number) {
    this.#capacity = capacity;
  }

  get size(): number {
    return this.#keys.size;
  }

  has(key: string): boolean {
    return this.#keys.has(key);
  }

  add(key: string): void {
    if (this.#keys.has(key)) this.#keys.delete(key);
    this.#keys.add(key);
    while (this.#keys.size > this.#capacity) {
      const oldest = this.#keys.values().next();
      if (oldest.done === true) break;
      this.#keys.delete(oldest.value);
    }
  }
}

function formerWindow(size: number): Cache {
  const store = new FormerWindowStore(size);
  return {
    put: (key) => store.add(key),
    get size() {
      return store.size;
    },
  };
}

function windowStore(size: number): Cache {
  const store = new SlidingWindowKeyStore(size);
  return {
    put: (key) => store.add(key),
    get size() {
      return store.size;
    },
  };
}

/**
 * A contender feeding `cache` its own sequence of keys (the same sequence for every contender of
 * a size and pattern): keys cycle through 4 × size names, so a name comes back only long after it
 * was forgotten; the cache is filled before timing.
 */
function contender(cache: Cache, size: number, pattern: Pattern, names: readonly string[]): Contender {
  let n = 0;
  const put = (): void => {
    if (pattern === 'refresh' && n % 4 === 3) cache.put(names[(n - (size >> 1)) % names.length] as string);
    else cache.put(names[n % names.length] as string);
    n++;
  };
  while (cache.size < size) put();
  return { run: put };
}

interface Row {
  readonly size: number;
  readonly pattern: Pattern | 'SlidingWindowKeyStore';
  readonly against: string;
  readonly nsPerOp: { readonly ours: number; readonly baseline: number };
  readonly comparison: Comparison;
}

async function row(size: number, pattern: Row['pattern'], against: string, ours: Cache, baseline: Cache, names: readonly string[]): Promise<Row> {
  const keyPattern: Pattern = pattern === 'refresh' ? 'refresh' : 'fifo';
  const comparison = await compareAlternating(contender(ours, size, keyPattern, names), contender(baseline, size, keyPattern, names), { rounds: ROUNDS, batchCpuMs: 100 });
  const ns = (rate: number): number => Number((1e9 / rate).toFixed(1));
  return { size, pattern, against, nsPerOp: { ours: ns(comparison.oursPerCpuSecond.median), baseline: ns(comparison.baselinePerCpuSecond.median) }, comparison };
}

/** An echo agent on `stream` with `store`, its store filled, and one keyed round trip to it. */
async function keyedRoundTrip(log: MemoryLog, stream: string, store: ProcessedKeyStore): Promise<{ once: () => Promise<void>; stop: () => Promise<void> }> {
  const laser = AgdxClient.from(log, { stream });
  await laser.bootstrap(1);
  for (let i = 0; i < WINDOW; i++) await store.add(`echo\u001ffill-${i}`);
  const agent = Agent.builder()
    .id('echo')
    .listenOn(AgentTopic.Commands)
    .respondOn(AgentTopic.Responses)
    .followControl(false)
    .heartbeats(false)
    .processedKeys(store)
    .handler((message, ctx) => ctx.respond(message.envelope?.body ?? new Uint8Array([0])))
    .spawn(laser);
  await agent.ready();
  const planner = AgentId.new('planner');
  const conversation = ConversationId.new();
  const body = new TextEncoder().encode('summarize incident 42');
  let n = 0;
  const once = async (): Promise<void> => {
    const request = laser
      .agdx(AgentTopic.Commands, planner, conversation)
      .command(MintUlid.mint(CorrelationId), body)
      .withTarget('echo')
      .withIdempotencyKey(`key-${n++}`);
    await laser.request(request, { replyTopic: AgentTopic.Responses, timeoutMs: 10_000 });
  };
  return {
    once,
    stop: async () => {
      await agent.shutdown();
      await laser.close();
    },
  };
}

async function roundTrips(): Promise<{ readonly window: number; readonly comparison: Comparison; readonly shareOfRoundTrip: { min: number; median: number; max: number } }> {
  // a log each, so neither agent's records or waiters sit in the other's way
  const ours = await keyedRoundTrip(new MemoryLog(), 'evict-ours', new SlidingWindowKeyStore(WINDOW));
  const baseline = await keyedRoundTrip(new MemoryLog(), 'evict-former', new FormerWindowStore(WINDOW));
  try {
    const comparison = await compareAlternating({ run: ours.once, async: true }, { run: baseline.once, async: true }, { rounds: ROUNDS, batchCpuMs: 300 });
    const shares = comparison.ratioPerRound.map((r) => 1 - 1 / r).sort((a, b) => a - b);
    const f = (v: number): number => Number(v.toFixed(3));
    return { window: WINDOW, comparison, shareOfRoundTrip: { min: f(shares[0] ?? 0), median: f(shares[shares.length >> 1] ?? 0), max: f(shares.at(-1) ?? 0) } };
  } finally {
    await ours.stop();
    await baseline.stop();
  }
}

const fullGc = (globalThis as { gc?: () => void }).gc;

/** Heap bytes per key of a cache of `size` keys made by `make`, after 4 × size puts; undefined without --expose-gc. */
function heapPerEntry(make: (size: number) => Cache, size: number, names: readonly string[]): number | undefined {
  if (fullGc === undefined) return undefined;
  const heap = (): number => {
    fullGc();
    fullGc();
    return process.memoryUsage().heapUsed;
  };
  const before = heap();
  const cache = make(size);
  for (let i = 0; i < 4 * size; i++) cache.put(names[i] as string);
  const after = heap();
  if (cache.size !== size) throw new Error('the cache is not full');
  return Number(((after - before) / size).toFixed(1));
}

async function main(): Promise<void> {
  const loadBefore = loadavg();
  const rows: Row[] = [];
  const heapBytesPerEntry: { size: number; map: (number | undefined)[]; recencyMap: (number | undefined)[] }[] = [];
  for (const size of SIZES) {
    const names = Array.from({ length: 4 * size }, (_, i) => `conversation-${i.toString(36)}-${(i * 2654435761) % 1000003}`);
    rows.push(await row(size, 'fifo', 'RecencyMap ÷ keys().next()', recencyCache(size), mapCache(size), names));
    rows.push(await row(size, 'refresh', 'RecencyMap ÷ keys().next()', recencyCache(size), mapCache(size), names));
    rows.push(await row(size, 'fifo', 'ring ÷ keys().next()', ringCache(size), mapCache(size), names));
    rows.push(await row(size, 'SlidingWindowKeyStore', 'SlidingWindowKeyStore.add ÷ its former Set + values().next()', windowStore(size), formerWindow(size), names));
    const heap = { map: [] as (number | undefined)[], recencyMap: [] as (number | undefined)[] };
    for (let i = 0; i < 2; i++) {
      heap.map.push(heapPerEntry(mapCache, size, names));
      heap.recencyMap.push(heapPerEntry(recencyCache, size, names));
    }
    heapBytesPerEntry.push({ size, ...heap });
    process.stderr.write(`map-eviction: size ${size} done\n`);
  }
  const roundTrip = ROUND_TRIP ? await roundTrips() : undefined;
  process.stdout.write(
    `${JSON.stringify({
      bench: 'map-eviction',
      what: 'one new key kept and the oldest forgotten in a full bounded map: ours (RecencyMap, a fixed ring, SlidingWindowKeyStore) against a Map forgetting through keys().next() (baseline), per CPU second of this process, alternating rounds',
      rounds: ROUNDS,
      rows,
      heapBytesPerEntry,
      roundTrip,
      loadAverage: { before: loadBefore, after: loadavg() },
      machine: machine(),
      sink: sinkBit(),
    })}\n`,
  );
}

await main();
