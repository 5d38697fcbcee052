/**
 * The end of the current burst of work. On an in-process log (MemoryLog) an append settles as a
 * microtask, so sixty-four requests released by one read all run to their appends inside one
 * macrotask; a reader woken by the first of them would read one record, be woken again, read the
 * next, and so on. Waiting for {@link afterBurst} first lets it take everything that burst
 * appended in one read (and lets an agent's answers to one read leave as one append).
 *
 * It is a macrotask hop, not a timer: `setImmediate` runs once the microtasks queued now (and
 * those they queue) have run, as soon as the event loop turns. Callers use it only when there is
 * evidence of a burst (a read that found more than one record, more than one wait pending), so a
 * lone request never pays for it. Where the platform has no `setImmediate` (browsers, workerd) it
 * is a message on one shared `MessageChannel` (see `message-hop.ts`): in a browser a task of its
 * own, so the burst coalesces there too, with no timer clamping (`setTimeout(0)` may wait 4 ms)
 * and nothing kept alive while idle; workerd delivers it as a microtask (no coalescing there).
 * With neither it is a microtask.
 */

import { scheduleMessageHop } from './message-hop.js';

type Immediate = (run: () => void) => unknown;

/** The platform's `setImmediate`, looked up per call so a test's fake timers see the hop. */
function immediate(): Immediate | undefined {
  const found = (globalThis as { setImmediate?: Immediate }).setImmediate;
  return typeof found === 'function' ? found : undefined;
}

/** Runs `run` after the current burst (see the module notes). */
export function afterBurst(run: () => void): void {
  const hop = immediate();
  if (hop !== undefined) hop(run);
  else if (!scheduleMessageHop(run)) queueMicrotask(run);
}

/**
 * Runs `run` after the current macrotask: `setImmediate` where the runtime has it, else a zero
 * timeout (browsers clamp it to a few ms). Unlike {@link afterBurst} it always lets the event loop
 * turn, which a loop yielding to timers, or work gathered across a handler's awaits on a polling
 * log, needs. It does not use the `MessageChannel` hop: only a timer is sure to let timers run
 * (workerd delivers a port's message as a microtask, and browsers may run message tasks before
 * due timers).
 */
export function afterMacrotask(run: () => void): void {
  const hop = immediate();
  if (hop !== undefined) hop(run);
  else setTimeout(run, 0);
}

/** {@link afterBurst} as a promise. */
export function burstEnd(): Promise<void> {
  return new Promise<void>((resolve) => afterBurst(resolve));
}
