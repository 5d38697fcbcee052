/**
 * The end of the current burst of work. On an in-process log (MemoryLog) an append settles as a
 * microtask, so sixty-four requests released by one read all run to their appends inside one
 * macrotask; a reader woken by the first of them would read one record, be woken again, read the
 * next, and so on. Waiting for {@link afterBurst} first lets it take everything that burst
 * appended in one read (and lets an agent's answers to one read leave as one append).
 *
 * It is a macrotask hop, not a timer: it resolves once the microtasks queued now (and those they
 * queue) have run, as soon as the event loop turns. Callers use it only when there is evidence of
 * a burst (a read that found more than one record, more than one wait pending), so a lone request
 * never pays for it.
 */

type Schedule = (run: () => void) => void;

function immediateScheduler(): Schedule | undefined {
  const immediate = (globalThis as { setImmediate?: (run: () => void) => unknown }).setImmediate;
  if (typeof immediate === 'function') return (run) => void immediate(run);
  // Browsers, Deno, workers: a message to ourselves is a macrotask without setTimeout's clamping.
  const Channel = (globalThis as { MessageChannel?: new () => MessageChannelLike }).MessageChannel;
  if (typeof Channel !== 'function') return undefined;
  const channel = new Channel();
  const queue: (() => void)[] = [];
  channel.port1.onmessage = () => queue.shift()?.();
  // The ports must not keep a process (Deno, Node workers) alive on their own.
  channel.port1.unref?.();
  channel.port2.unref?.();
  return (run) => {
    queue.push(run);
    channel.port2.postMessage(undefined);
  };
}

interface MessagePortLike {
  onmessage: ((event: unknown) => void) | null;
  postMessage(message: unknown): void;
  unref?(): void;
}

interface MessageChannelLike {
  readonly port1: MessagePortLike;
  readonly port2: MessagePortLike;
}

let scheduler: Schedule | undefined | null = null;

/** Runs `run` after the current burst (see the module notes); at once (a microtask) where the platform has no macrotask hop. */
export function afterBurst(run: () => void): void {
  if (scheduler === null) scheduler = immediateScheduler();
  if (scheduler === undefined) queueMicrotask(run);
  else scheduler(run);
}

/** {@link afterBurst} as a promise. */
export function burstEnd(): Promise<void> {
  return new Promise<void>((resolve) => afterBurst(resolve));
}
