import { MemoryLog, type LogTransport, type ReadRequest } from '@agdx/transport';

/** A MemoryLog seen through a transport that counts the records its reads return. */
export function countingTransport(log: MemoryLog = new MemoryLog()): { transport: LogTransport; readonly count: () => number; reset: () => void } {
  let records = 0;
  const transport = new Proxy(log, {
    get(target, prop) {
      if (prop === 'read') {
        return async (request: ReadRequest) => {
          const batch = await target.read(request);
          records += batch.length;
          return batch;
        };
      }
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  }) as LogTransport;
  return {
    transport,
    count: () => records,
    reset: () => {
      records = 0;
    },
  };
}
