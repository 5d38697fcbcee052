/**
 * A handler attempt's pipelined answers (src/agent/answer-pipeline.ts): `settled()` waits for
 * every answer issued, including those issued after it was called, and rejects with the first
 * failure once all are in; the window gets its room back either way.
 */
import { AgentId, InvalidError } from '@agdx/wire';
import { describe, expect, it } from 'vitest';
import { AnswerEffects, AppendWindow } from '../src/agent/answer-pipeline.js';
import type { BatchPosition, ClientCore } from '../src/client/client-core.js';
import type { PreparedAppend } from '../src/send/append-issuer.js';
import { OrderedAppender } from '../src/send/ordered-appender.js';

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

describe('AnswerEffects never leaves an answer uncounted', () => {
  it('an appender that throws instead of rejecting fails the answer: settled() rejects with that error and the room comes back', async () => {
    const window = new AppendWindow({ maxInFlightAppends: 1, maxInFlightBytes: 1024 });
    const refusal = new InvalidError('a conversation key must not be empty');
    const throwing = {
      append: (): Promise<BatchPosition> => {
        throw refusal;
      },
    } as unknown as OrderedAppender;
    const effects = new AnswerEffects(window, throwing);
    const acks: string[] = [];
    // Issuing does not throw at the handler: the failure is the answer's, seen through settled().
    expect(effects.issue(append(acks, 'a'))).toBeUndefined();
    await expect(effects.settled()).rejects.toBe(refusal);
    expect(acks).toEqual(['a!']);
    // The only slot of the window is free again: a later issue is admitted at once.
    expect(window.admit(1)).toBeUndefined();
  });

  it('an answer waiting for room whose appender throws still settles, and so does everything queued behind it', async () => {
    const window = new AppendWindow({ maxInFlightAppends: 1, maxInFlightBytes: 1024 });
    const { appender, settle } = manualAppender();
    let calls = 0;
    const flaky = {
      append: (...args: unknown[]): Promise<BatchPosition> => {
        if (++calls === 2) throw new InvalidError('refused before sending');
        return (appender.append as (...a: unknown[]) => Promise<BatchPosition>)(...args);
      },
    } as unknown as OrderedAppender;
    const effects = new AnswerEffects(window, flaky);
    const acks: string[] = [];
    effects.issue(append(acks, 'a'));
    const b = effects.issue(append(acks, 'b'));
    const c = effects.issue(append(acks, 'c'));
    let outcome: unknown;
    const settled = effects.settled().catch((error: unknown) => (outcome = error));
    settle(0);
    await b;
    await c;
    // `b` threw in the appender; `c` was admitted after it and is the appender's second call.
    settle(1);
    await settled;
    expect((outcome as Error).message).toBe('refused before sending');
    expect(acks).toEqual(['a@0', 'b!', 'c@1']);
    expect(window.admit(1)).toBeUndefined();
  });

  it('a throwing acknowledgment callback changes nothing: the count, the room and the outcome stand', async () => {
    const window = new AppendWindow({ maxInFlightAppends: 1, maxInFlightBytes: 1024 });
    const { appender, settle } = manualAppender();
    const effects = new AnswerEffects(window, appender);
    const throwingCallback = {
      records: [{ payload: new Uint8Array(10) }],
      acknowledged: () => {
        throw new Error('an observer broke');
      },
    } as unknown as PreparedAppend;
    effects.issue(throwingCallback);
    const settled = effects.settled();
    settle(0);
    await expect(settled).resolves.toBeUndefined();
    expect(window.admit(1)).toBeUndefined();
  });
});

describe('the ordered appender under AnswerEffects', () => {
  it('rejects an append its layout cannot route instead of throwing, so the answer fails and the room comes back', async () => {
    const core = { layout: { kind: 'shared' }, append: () => Promise.reject(new Error('never sent')) } as unknown as ClientCore;
    const unroutable = {
      core,
      stream: 's',
      topic: 'agent.responses',
      kind: 'response',
      target: AgentId.new('planner'),
      conversationKey: '',
      records: [{ payload: new Uint8Array(4) }],
    } as unknown as PreparedAppend;
    const appender = new OrderedAppender();
    expect(() => appender.append(unroutable).catch(() => undefined)).not.toThrow();
    await expect(appender.append(unroutable)).rejects.toBeInstanceOf(InvalidError);
    const window = new AppendWindow({ maxInFlightAppends: 1, maxInFlightBytes: 1024 });
    const effects = new AnswerEffects(window, appender);
    effects.issue(unroutable);
    await expect(effects.settled()).rejects.toBeInstanceOf(InvalidError);
    expect(window.admit(1)).toBeUndefined();
  });
});
