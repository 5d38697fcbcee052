// The machine a benchmark ran on and how loaded it was, for the JSON every benchmark prints.
import { readFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';

/** Node version, CPU count and model, and the 1/5/15-minute load averages right now. */
export function machine(): { node: string; platform: string; cpus: number; cpuModel: string; loadAverage: number[]; at: string } {
  let cpuModel = 'unknown';
  try {
    cpuModel = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? 'unknown';
  } catch {
    // not Linux: the model stays unknown
  }
  return {
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
    cpus: availableParallelism(),
    cpuModel,
    loadAverage: loadavg().map((l) => Number(l.toFixed(2))),
    at: new Date().toISOString(),
  };
}
