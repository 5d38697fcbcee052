import { AgdxClient, type StreamLayout } from '@agdx/agents';
import { MemoryLog, type LogTransport, type ReadRequest } from '@agdx/transport';

/** A MemoryLog seen through a transport that counts the records each `read` returns, per topic. */
export interface CountingLog {
  readonly log: MemoryLog;
  readonly transport: LogTransport;
  /** Records returned by reads of `topics` (every topic when omitted) since the last reset. */
  read(topics?: readonly string[]): number;
  reset(): void;
}

/** Wraps `log` so that tests can tell how much of it a read touched. */
export function countingLog(log: MemoryLog = new MemoryLog()): CountingLog {
  const counts = new Map<string, number>();
  const transport = new Proxy(log, {
    get(target, prop) {
      if (prop === 'read') {
        return async (request: ReadRequest) => {
          const records = await target.read(request);
          counts.set(request.topic, (counts.get(request.topic) ?? 0) + records.length);
          return records;
        };
      }
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  }) as LogTransport;
  return {
    log,
    transport,
    read: (topics) => [...counts].filter(([t]) => topics === undefined || topics.includes(t)).reduce((n, [, c]) => n + c, 0),
    reset: () => counts.clear(),
  };
}

/** A client on `transport` with a bootstrapped `demo` stream. */
export async function clientOn(transport: LogTransport, partitions = 2, layout?: StreamLayout): Promise<AgdxClient> {
  const laser = AgdxClient.from(transport, layout === undefined ? { stream: 'demo' } : { stream: 'demo', layout });
  await laser.bootstrap(partitions);
  return laser;
}
