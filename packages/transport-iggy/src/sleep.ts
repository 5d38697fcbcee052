/** An abortable pause for the polling loops behind `waitFor`. */

import { CancelledError, ClosedError, watchAbort } from '@agdx/transport';

/**
 * Resolves after `ms`; rejects with `CancelledError` when `signal` fires and with `ClosedError`
 * when `stop` (the owner's close) fires. The timer never keeps the process alive on its own.
 */
export function sleepUnlessStopped(ms: number, signal: AbortSignal | undefined, stop: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (stop.aborted) return reject(new ClosedError('closed while waiting'));
    if (signal?.aborted === true) return reject(new CancelledError('the operation was aborted', { cause: signal.reason }));
    const done = (): void => {
      clearTimeout(timer);
      unwatchSignal();
      unwatchStop();
    };
    const onAbort = (): void => {
      done();
      reject(new CancelledError('the operation was aborted', { cause: signal?.reason }));
    };
    const onStop = (): void => {
      done();
      reject(new ClosedError('closed while waiting'));
    };
    const timer = setTimeout(() => {
      done();
      resolve();
    }, ms);
    const unwatchSignal = watchAbort(signal, onAbort);
    const unwatchStop = watchAbort(stop, onStop);
  });
}
