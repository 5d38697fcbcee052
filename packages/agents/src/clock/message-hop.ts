/**
 * A macrotask hop for runtimes without `setImmediate` (browsers): a message posted on a
 * `MessageChannel` is delivered as a task of its own, after the microtasks queued now (and those
 * they queue) have run, and without the clamping a zero timeout gets.
 *
 * One channel is shared by every caller and one message serves every callback queued before it
 * is delivered, so a burst of 64 waits costs one message, not 64 (and no channel per call).
 *
 * An open port with a listener keeps a Node or Bun process alive, so the receiving port is
 * unreferenced while nothing is queued and referenced while a hop is pending, as a pending
 * `setImmediate` is: an idle client lets the process exit, a pending hop is never dropped by one.
 * Deno re-references a port on every delivery, but it has `setImmediate`, so this hop is not
 * used there. workerd delivers a port's message as a microtask, so there it coalesces no more
 * than `queueMicrotask` does (and costs no more).
 */

/** The parts of a `MessagePort` the hop uses (`ref`/`unref` exist in Node, Bun and Deno only). */
interface HopPort {
  onmessage: ((event: unknown) => void) | null;
  postMessage(message: unknown): void;
  ref?: () => void;
  unref?: () => void;
}

/** The parts of `MessageChannel` the hop uses. */
type HopChannel = new () => { readonly port1: HopPort; readonly port2: HopPort };

/** One shared channel and the callbacks waiting for its next message. */
class MessageHop {
  readonly channel: HopChannel;
  readonly #receiver: HopPort;
  readonly #sender: HopPort;
  #queue: Array<() => void> = [];

  constructor(channel: HopChannel) {
    this.channel = channel;
    const { port1, port2 } = new channel();
    this.#receiver = port1;
    this.#sender = port2;
    // Setting onmessage starts (and, in Node, references) the port; an idle hop must not keep
    // the process alive.
    port1.onmessage = () => this.#deliver();
    port1.unref?.();
    port2.unref?.();
  }

  /** Queues `run` for the next message; posts one only when the queue was empty. */
  schedule(run: () => void): void {
    this.#queue.push(run);
    if (this.#queue.length > 1) return;
    this.#receiver.ref?.();
    this.#sender.postMessage(null);
  }

  /** Runs everything queued before this message; what those callbacks queue waits for the next. */
  #deliver(): void {
    const batch = this.#queue;
    this.#queue = [];
    this.#receiver.unref?.();
    for (const run of batch) {
      try {
        run();
      } catch (error) {
        // As a throwing setImmediate callback would: reported as uncaught, without keeping the
        // rest of the batch from running.
        queueMicrotask(() => {
          throw error;
        });
      }
    }
  }
}

let shared: MessageHop | undefined;

/**
 * Queues `run` on the shared hop over the platform's `MessageChannel`; false (nothing queued)
 * where there is none. The constructor is looked up per call (as `setImmediate` is) so a test that
 * replaces it gets a hop over its replacement.
 */
export function scheduleMessageHop(run: () => void): boolean {
  const channel = (globalThis as { MessageChannel?: HopChannel }).MessageChannel;
  if (typeof channel !== 'function') return false;
  if (shared === undefined || shared.channel !== channel) shared = new MessageHop(channel);
  shared.schedule(run);
  return true;
}
