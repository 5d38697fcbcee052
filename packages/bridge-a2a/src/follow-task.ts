/**
 * SubscribeToTask's wait for a task's next reply, passing over copies. A signature does not cover
 * where or how often a reply was appended, so a copy of one of the task's earlier replies verifies
 * as well as the original; the client's reply hub passes over copies only of replies that answered
 * a wait in this process, so in a fresh process a copy appended while a client waits would end its
 * stream with an old reply. The task's replies that counted when the log was read are known by
 * record id (`CountedReplies`): a reply carrying one of them is not news.
 *
 * The hub's wait is one-shot, so after a copy the follower registers a new wait and then reads the
 * log again (the order that lets nothing slip between the two): a genuine reply that landed
 * meanwhile shows in that read, as a newly counted reply or a terminal one, and ends the wait.
 */

import type { AgentMessage, PendingReply } from '@agdx/agents';
import type { TaskReading } from './counted-replies.js';
import { isTerminalA2aState, type A2aTask } from './task.js';

/** What following one task needs from the bridge. */
export interface FollowSteps {
  /** Registers a wait for the task's next reply, bounded by `timeoutMs`. */
  readonly expect: (timeoutMs: number) => Promise<PendingReply>;
  /** Reads the task as GetTask does, with the record ids of its replies that counted. */
  readonly read: () => Promise<TaskReading>;
  /** The task a reply describes (it may throw for a reply that is no AGDX envelope). */
  readonly taskOf: (message: AgentMessage) => A2aTask;
  /** Now, in milliseconds of the client clock (the hub's timeouts run on it). */
  readonly nowMs: () => number;
}

/** A followed task: where it stands now, its next reply, and how to stop waiting. */
export interface FollowedTask {
  /** The task as the log read after the wait was registered tells it (`undefined`: no reply yet). */
  readonly now: A2aTask | undefined;
  /** The task as its next reply describes it; a terminal `now` is its own final. */
  readonly final: Promise<A2aTask>;
  /** Stops waiting (`final` rejects with CancelledError). */
  cancel(): void;
}

/**
 * Registers the wait, reads the task, and (unless it already ended) waits for its next reply that
 * is not a copy of one already counted, all within `timeoutMs` of the first registration.
 */
export async function followTask(steps: FollowSteps, timeoutMs: number): Promise<FollowedTask> {
  const deadline = steps.nowMs() + timeoutMs;
  let pending = await steps.expect(timeoutMs);
  let reading: TaskReading;
  try {
    reading = await steps.read();
  } catch (error) {
    pending.cancel();
    throw error;
  }
  const now = reading.task;
  if (now !== undefined && isTerminalA2aState(now.state)) {
    pending.cancel();
    return { now, final: Promise.resolve(now), cancel: () => undefined };
  }
  let cancelled = false;
  const next = async (): Promise<A2aTask> => {
    let known = reading.counted;
    for (;;) {
      const message = await pending.reply;
      if (known === undefined || !known.isCopy(message.envelope?.record)) return steps.taskOf(message);
      // A copy: wait again first, then read, so a reply landing between the two is not missed.
      pending = await steps.expect(Math.max(0, deadline - steps.nowMs()));
      if (cancelled) {
        // Stopped while the new wait registered: it rejects with CancelledError at the loop's top.
        pending.cancel();
        continue;
      }
      let again: TaskReading;
      try {
        again = await steps.read();
      } catch (error) {
        pending.cancel();
        throw error;
      }
      const task = again.task;
      if (task !== undefined && (isTerminalA2aState(task.state) || again.counted?.holdsNewerThan(known) === true)) {
        pending.cancel();
        return task;
      }
      known = again.counted;
    }
  };
  return {
    now,
    final: next(),
    cancel: () => {
      cancelled = true;
      pending.cancel();
    },
  };
}
