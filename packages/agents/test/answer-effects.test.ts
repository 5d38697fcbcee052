/**
 * A handler attempt's pipelined answers (src/agent/answer-pipeline.ts): `settled()` waits for
 * every answer issued, including those issued after it was called, and rejects with the first
 * failure once all are in; the window gets its room back either way.
 */
import { describe, expect, it } from 'vitest';
import { AnswerEffects, AppendWindow } from '../src/agent/answer-pipeline.js';
import type { BatchPosition } from '../src/client/client-core.js';
import type { PreparedAppend } from '../src/send/append-issuer.js';
import type { OrderedAppender } from '../src/send/ordered-appender.js';

/** An appender whose appends the test settles by hand, in any order. */
function manualAppender(): { appender: OrderedAppender; settle: (i: number, error?: Error) => void; count: () => number } {
  const calls: { resolve: (p: BatchPosition) => void; reject: (e: unknown) => void }[] = [];
  const appender = {
    append: (): Promise<BatchPosition> => new Promise((resolve, reject) => calls.push({ resolve, reject })),
  } as unknown as OrderedAppender;
  return {
    appender,
    settle: (i, error) => {
      const call = calls[i] as (typeof calls)[number];
      if (error === undefined) call.resolve({ stream: 's', topic: 't', partition: 0, offset: BigInt(i), count: 1 });
      else call.reject(error);
    },
    count: () => calls.length,
  };
}

function append(acks: string[], name: string): PreparedAppend {
  return {
    records: [{ payload: new Uint8Array(10) }],
    acknowledged: (at: BatchPosition | undefined, error?: unknown) => acks.push(error === undefined ? `${name}@${at?.offset}` : `${name}!`),
  } as unknown as PreparedAppend;
}

const tick = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

describe('AnswerEffects', () => {
  it('settles at once with nothing issued, and after every answer otherwise, including one issued while waiting', async () => {
    const window = new AppendWindow({ maxInFlightAppends: 8, maxInFlightBytes: 1024 });
    const { appender, settle, count } = manualAppender();
    await new AnswerEffects(window, appender).settled();
    const effects = new AnswerEffects(window, appender);
    const acks: string[] = [];
    expect(effects.issue(append(acks, 'a'))).toBeUndefined();
    let done = false;
    const settled = effects.settled().then(() => (done = true));
    effects.issue(append(acks, 'b'));
    expect(count()).toBe(2);
    settle(0);
    await tick();
    expect(done).toBe(false);
    settle(1);
    await settled;
    expect(acks).toEqual(['a@0', 'b@1']);
    // Settled for good: asked again, it resolves at once.
    await effects.settled();
  });

  it('rejects with the first failure, only once every answer is in, and gives the room back', async () => {
    const window = new AppendWindow({ maxInFlightAppends: 2, maxInFlightBytes: 1024 });
    const { appender, settle } = manualAppender();
    const effects = new AnswerEffects(window, appender);
    const acks: string[] = [];
    effects.issue(append(acks, 'a'));
    effects.issue(append(acks, 'b'));
    // The window is full: the third waits for room.
    const third = effects.issue(append(acks, 'c'));
    expect(third).toBeInstanceOf(Promise);
    let outcome: unknown;
    const settled = effects.settled().then(
      () => (outcome = 'resolved'),
      (error: unknown) => (outcome = error),
    );
    settle(1, new Error('first failure'));
    await third;
    settle(0, new Error('second failure'));
    await tick();
    expect(outcome).toBeUndefined();
    settle(2);
    await settled;
    expect((outcome as Error).message).toBe('first failure');
    expect(acks).toEqual(['b!', 'a!', 'c@2']);
    await expect(effects.settled()).rejects.toThrow('first failure');
    expect(window.admit(1)).toBeUndefined();
  });
});
