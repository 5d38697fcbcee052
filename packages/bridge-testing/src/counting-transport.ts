import type { LogTransport, ReadRequest } from '@agdx/transport';

/** A transport that counts the records its reads return, and how to read and reset the count. */
export interface CountingTransport {
  /** The wrapped transport: every call goes through to the original. */
  readonly transport: LogTransport;
  /** Records returned by `read` since the start or the last reset. */
  records(): number;
  /** Starts counting from zero. */
  reset(): void;
}

/**
 * Wraps a transport so a test can tell how much a reader read: incremental readers must read
 * only what is new, and the record count says so where timings cannot.
 */
export function countingTransport(inner: LogTransport): CountingTransport {
  let records = 0;
  const transport = new Proxy(inner, {
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
  });
  return {
    transport,
    records: () => records,
    reset: () => {
      records = 0;
    },
  };
}
