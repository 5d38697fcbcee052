/**
 * Abort handling for pending calls that share one signal. Many concurrent calls under one
 * AbortController (every wait of an agent, every request of a client) is the normal case, yet
 * a listener per call makes Node warn about a leak past ten listeners on one signal. Here a
 * signal gets ONE listener for its lifetime, which fans out to the calls watching it.
 */

const watchers = new WeakMap<AbortSignal, Set<() => void>>();

function unwatchNothing(): void {}

/**
 * Calls `onAbort` once when `signal` fires, unless the returned function was called first.
 * A signal that already fired calls `onAbort` on a microtask. Without a signal nothing happens.
 */
export function watchAbort(signal: AbortSignal | undefined, onAbort: () => void): () => void {
  if (signal === undefined) return unwatchNothing;
  let live = true;
  if (signal.aborted) {
    queueMicrotask(() => {
      if (live) onAbort();
    });
    return () => {
      live = false;
    };
  }
  let handlers = watchers.get(signal);
  if (handlers === undefined) {
    const created = new Set<() => void>();
    handlers = created;
    watchers.set(signal, created);
    signal.addEventListener(
      'abort',
      () => {
        watchers.delete(signal);
        for (const handler of [...created]) handler();
        created.clear();
      },
      { once: true },
    );
  }
  // A wrapper per registration: the same function may watch one signal for two calls.
  const entry = (): void => {
    if (live) {
      live = false;
      onAbort();
    }
  };
  const set = handlers;
  set.add(entry);
  return () => {
    live = false;
    set.delete(entry);
  };
}
