// A LogTransport that forwards every call to the transport `target()` names at the time of the
// call and counts the calls by method and the records and payload bytes reads return, so a
// benchmark can say how many requests one operation sends, and can move a long-lived reader
// between connections (a direct one and one through a byte-counting proxy) without losing its fold.
import type { LogRecord, LogTransport } from '@agdx/transport';

/** What the forwarded calls did since the last reset. */
export interface TransportCounts {
  /** Calls by method name. */
  readonly calls: Record<string, number>;
  /** Records returned by `read` and `readFromTimestamp`. */
  records: number;
  /** Payload bytes of those records. */
  payloadBytes: number;
}

/** The forwarding transport, its counts and how to zero them. */
export function countingTransport(target: () => LogTransport): { transport: LogTransport; counts: TransportCounts; reset(): void } {
  const counts: TransportCounts = { calls: {}, records: 0, payloadBytes: 0 };
  const transport = new Proxy({} as LogTransport, {
    get(_, key) {
      const t = target();
      const value: unknown = Reflect.get(t, key);
      if (typeof value !== 'function' || typeof key !== 'string') return value;
      return async (...args: unknown[]) => {
        counts.calls[key] = (counts.calls[key] ?? 0) + 1;
        const result: unknown = await (value as (...a: unknown[]) => unknown).apply(t, args);
        if ((key === 'read' || key === 'readFromTimestamp') && Array.isArray(result)) {
          for (const r of result as LogRecord[]) {
            counts.records++;
            counts.payloadBytes += r.payload.length;
          }
        }
        return result;
      };
    },
  });
  return {
    transport,
    counts,
    reset: () => {
      for (const k of Object.keys(counts.calls)) delete counts.calls[k];
      counts.records = 0;
      counts.payloadBytes = 0;
    },
  };
}
