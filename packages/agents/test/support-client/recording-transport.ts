/** A LogTransport wrapper that records every append request (the published batches). */
import { MemoryLog, type AppendRequest, type AppendResult, type LogTransport } from '@agdx/transport';

/** One recorded append. */
export interface RecordedAppend {
  readonly request: AppendRequest;
  readonly result: AppendResult;
}

/** Wraps `inner` (default a fresh MemoryLog); `appends` lists successful appends in order. */
export function recordingTransport(inner: LogTransport = new MemoryLog()): LogTransport & { readonly appends: RecordedAppend[] } {
  const appends: RecordedAppend[] = [];
  return new Proxy(inner, {
    get(target, prop, receiver) {
      if (prop === 'appends') return appends;
      if (prop === 'append') {
        return async (request: AppendRequest): Promise<AppendResult> => {
          const result = await target.append(request);
          appends.push({ request, result });
          return result;
        };
      }
      const value = Reflect.get(target, prop, receiver) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  }) as LogTransport & { readonly appends: RecordedAppend[] };
}

/** A deterministic ULID source: the k-th mint has timestamp `startMs + k - 1` and random bits `k`. */
export function countingUlidSource(startMs: number): { nowMilliseconds(): number; fillRandom(bytes: Uint8Array): void } {
  let k = 0;
  let pending = 0;
  return {
    nowMilliseconds: () => {
      k += 1;
      pending = k;
      return startMs + k - 1;
    },
    fillRandom: (bytes) => {
      bytes.fill(0);
      let v = pending;
      for (let i = bytes.length - 1; i >= 0 && v > 0; i--) {
        bytes[i] = v & 0xff;
        v = Math.floor(v / 256);
      }
    },
  };
}
