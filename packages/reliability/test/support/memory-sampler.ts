/**
 * Samples the process's memory during a run, after a forced garbage collection when the runtime
 * allows it (`--expose-gc`, or the V8 flag set at run time), so "flat" means the live heap.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { slope } from '@agdx/reliability';

/** One sample: seconds since start, MB. */
export interface MemorySample {
  readonly atS: number;
  readonly heapMb: number;
  readonly rssMb: number;
}

/** What the sampler saw. */
export interface MemoryReport {
  readonly gcForced: boolean;
  readonly samples: number;
  readonly peakRssMb: number;
  readonly peakHeapMb: number;
  /** The live heap over the second half of the run, MB per minute (flat ≈ 0). */
  readonly heapSlopeMbPerMin: number;
  /** Mean live heap of the second and of the last quarter of the run, MB. */
  readonly heapSecondQuarterMb: number;
  readonly heapLastQuarterMb: number;
  readonly series: readonly MemorySample[];
}

/** The forced collector: `gc` when exposed, else switched on through the V8 flag at run time. */
export function findGc(): (() => void) | undefined {
  const existing = (globalThis as { gc?: () => void }).gc;
  if (typeof existing === 'function') return existing;
  try {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as unknown;
    return typeof gc === 'function' ? (gc as () => void) : undefined;
  } catch {
    return undefined;
  }
}

const mb = (bytes: number): number => Math.round((bytes / 1_048_576) * 10) / 10;

/** Samples every `everyMs` until `stop()`. */
export class MemorySampler {
  readonly #gc: (() => void) | undefined;
  readonly #series: MemorySample[] = [];
  readonly #start = performance.now();
  readonly #timer: ReturnType<typeof setInterval>;
  readonly #everyMs: number;
  #last = 0;
  #peakRss = 0;
  #peakHeap = 0;

  /**
   * Starts sampling. `forceGc` false reads the heap as it is: a forced full collection of a heap
   * that grows by design (an in-process log) costs more than the run it measures.
   */
  constructor(everyMs: number, forceGc = true) {
    this.#gc = forceGc ? findGc() : undefined;
    this.#everyMs = everyMs;
    this.#timer = setInterval(() => this.sample(), everyMs);
    this.sample();
  }

  /**
   * Samples now when the period has passed. Call it from busy loops too: a run that keeps the
   * microtask queue full can starve the interval timer.
   */
  maybeSample(): void {
    if (performance.now() - this.#last >= this.#everyMs) this.sample();
  }

  private sample(): void {
    this.#last = performance.now();
    // Peak figures are read before the collection; the series after it.
    const raw = process.memoryUsage();
    this.#peakRss = Math.max(this.#peakRss, raw.rss);
    this.#peakHeap = Math.max(this.#peakHeap, raw.heapUsed);
    this.#gc?.();
    const live = process.memoryUsage();
    this.#series.push({ atS: (performance.now() - this.#start) / 1000, heapMb: mb(live.heapUsed), rssMb: mb(live.rss) });
  }

  /** Stops and summarises. */
  stop(): MemoryReport {
    clearInterval(this.#timer);
    this.sample();
    const s = this.#series;
    const half = s.slice(Math.floor(s.length / 2));
    const mean = (xs: readonly MemorySample[]): number => (xs.length === 0 ? Number.NaN : Math.round((xs.reduce((a, x) => a + x.heapMb, 0) / xs.length) * 10) / 10);
    const q = Math.max(1, Math.floor(s.length / 4));
    return {
      gcForced: this.#gc !== undefined,
      samples: s.length,
      peakRssMb: mb(this.#peakRss),
      peakHeapMb: mb(this.#peakHeap),
      heapSlopeMbPerMin: Math.round(slope(half.map((p) => ({ x: p.atS / 60, y: p.heapMb }))) * 100) / 100,
      heapSecondQuarterMb: mean(s.slice(q, 2 * q)),
      heapLastQuarterMb: mean(s.slice(s.length - q)),
      series: s,
    };
  }
}
