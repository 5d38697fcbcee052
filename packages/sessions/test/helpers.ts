import { readFileSync } from 'node:fs';
import { AgdxClient } from '@agdx/agents';
import { ManualLogClock, MemoryLog } from '@agdx/transport';

/** Reads a shared fixture in place. */
export function fixture(path: string): string {
  return readFileSync(new URL(`../../../../shared/fixtures/${path}`, import.meta.url), 'utf8');
}

/** A MemoryLog with a bootstrapped `demo` stream and a client on it. */
export async function setup(options: { clock?: ManualLogClock; partitions?: number } = {}): Promise<{ log: MemoryLog; laser: AgdxClient }> {
  const log = new MemoryLog(options.clock !== undefined ? { clock: options.clock } : {});
  const laser = AgdxClient.from(log, { stream: 'demo' });
  await laser.bootstrap(options.partitions ?? 2);
  return { log, laser };
}

export const encoder: TextEncoder = new TextEncoder();
