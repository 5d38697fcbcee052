/**
 * Abort handling for pending calls that share one signal. Many concurrent calls under one
 * AbortController (every wait of an agent, every request of a client) is the normal case, yet
 * a listener per call makes Node warn about a leak past ten listeners on one signal. Here a
 * signal gets ONE listener for its lifetime, which fans out to the calls watching it.
 */

/** One registration: fires its handler at most once, and never after it was unwatched. */
class Watch {
  live = true;
  readonly #onAbort: () => void;

  constructor(onAbort: () => void) {
    this.#onAbort = onAbort;
  }

  fire(): void {
    if (this.live) {
      this.live = false;
      this.#onAbort();
    }
  }
}

const watchers = new WeakMap<AbortSignal, Set<Watch>>();

function unwatchNothing(): void {}

/**
 * Calls `onAbort` once when `signal` fires, unless the returned function was called first.
 * A signal that already fired calls `onAbort` on a microtask. Without a signal nothing happens.
 */
export function watchAbort(signal: AbortSignal | undefined, onAbort: () => void): () => void {
  if (signal === undefined) return unwatchNothing;
  // An object per registration, not a closure: the same function may watch one signal for two
  // calls, and every wait of a busy reader registers one.
  const watch = new Watch(onAbort);
  if (signal.aborted) {
    queueMicrotask(() => watch.fire());
    return () => {
      watch.live = false;
    };
  }
  let handlers = watchers.get(signal);
  if (handlers === undefined) {
    const created = new Set<Watch>();
    handlers = created;
    watchers.set(signal, created);
    signal.addEventListener(
      'abort',
      () => {
        watchers.delete(signal);
        for (const handler of [...created]) handler.fire();
        created.clear();
      },
      { once: true },
    );
  }
  const set = handlers;
  set.add(watch);
  return () => {
    watch.live = false;
    set.delete(watch);
  };
}
