/**
 * The state read continues a kept state fold: a repeated `state(id)` does not fold the session's
 * whole state history again, and the reader keeps at most MAX_STATE_HISTORY changes per session.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MAX_STATE_HISTORY, sessions } from '@agdx/sessions';
import { AgentId } from '@agdx/wire';
import { clientOn, countingLog, expectSameAsFresh } from './support/counting-log.js';

const agent = AgentId.parse('planner');

afterEach(() => {
  vi.restoreAllMocks();
});

describe('the state read at scale', () => {
  it('a repeated state read costs one copy of the document, not a fold of every snapshot again', async () => {
    const counting = countingLog();
    const laser = await clientOn(counting.transport, 2);
    const factory = sessions(laser);
    const session = factory.create('stateful');
    await session.lifecycle.begin({ agent });
    for (let i = 0; i < 100; i++) await session.lifecycle.snapshot({ step: i });
    for (let i = 0; i < 50; i++) await session.lifecycle.patch([{ op: 'replace', path: '/step', value: 1000 + i }]);
    const first = await factory.reads.state(session.conversation);
    expect(first).toMatchObject({ revision: 150n, document: { step: 1049 }, complete: true });

    const clone = vi.spyOn(globalThis, 'structuredClone');
    counting.reset();
    const again = await factory.reads.state(session.conversation);
    expect(again).toEqual(first);
    expect(counting.read()).toBe(0);
    expect(clone.mock.calls.length).toBeLessThanOrEqual(1);

    // the document handed out is the reader's copy: changing it changes nothing kept
    (again.document as { step: number }).step = -1;
    expect((await factory.reads.state(session.conversation)).document).toEqual({ step: 1049 });
    await session.lifecycle.patch([{ op: 'replace', path: '/step', value: 7 }]);
    expect(await factory.reads.state(session.conversation)).toMatchObject({ revision: 151n, document: { step: 7 } });
    await expectSameAsFresh(laser, factory, [session.conversation]);
  });

  it(`keeps the newest ${MAX_STATE_HISTORY} changes of a session, whatever the history limit asked`, async () => {
    const laser = await clientOn(countingLog().transport, 1);
    const factory = sessions(laser);
    const session = factory.create('long-history');
    await session.lifecycle.begin({ agent });
    const total = MAX_STATE_HISTORY + 30;
    for (let i = 0; i < total; i++) await session.lifecycle.patch([{ op: 'add', path: '/n', value: i }]);
    const state = await factory.reads.state(session.conversation, Number.MAX_SAFE_INTEGER);
    // the writer adds a state snapshot of its own now and then, so the revision passes the patch count
    expect(state.revision).toBeGreaterThanOrEqual(BigInt(total));
    expect(state.document).toEqual({ n: total - 1 });
    expect(state.history).toHaveLength(MAX_STATE_HISTORY);
    expect(state.history.every((h) => h.outcome === 'applied')).toBe(true);
    expect(state.history.at(-1)?.revision).toBe(state.revision);
    expect(state.history[0]?.revision).toBe(state.revision - BigInt(MAX_STATE_HISTORY) + 1n);
    const r = state.revision;
    expect((await factory.reads.state(session.conversation, 3)).history.map((h) => h.revision)).toEqual([r - 2n, r - 1n, r]);
    expect(await sessions(laser, undefined, { snapshots: false }).reads.state(session.conversation, Number.MAX_SAFE_INTEGER)).toEqual(state);
  });

  it(`a new writer knows every op id readers applied, not only those in the newest ${MAX_STATE_HISTORY} changes`, async () => {
    const laser = await clientOn(countingLog().transport, 1);
    const first = sessions(laser).create('old-op-ids');
    await first.lifecycle.begin({ agent });
    const total = MAX_STATE_HISTORY + 30;
    for (let i = 0; i < total; i++) await first.lifecycle.patch([{ op: 'add', path: '/n', value: i }], { opId: `op-${i}` });

    // another process: its writer learns the base from the lane
    const factory = sessions(laser);
    const writer = factory.open(first.conversation).lifecycle;
    const before = await factory.reads.state(first.conversation);
    // op-0 left the kept history long ago, but every reader still drops its repeat
    await writer.patch([{ op: 'replace', path: '/n', value: -1 }], { opId: 'op-0', agent });
    expect(writer.revision).toBe(before.revision);
    expect(writer.document).toEqual({ n: total - 1 });
    const retried = await factory.reads.state(first.conversation, 1);
    expect(retried.history.map((h) => h.outcome)).toEqual(['duplicate']);
    expect(retried.revision).toBe(before.revision);
    // so the writer's next change lands on the revision readers hold
    await writer.snapshot({ n: 'after' }, { agent });
    const after = await factory.reads.state(first.conversation, 1);
    expect(after.history.map((h) => h.outcome)).toEqual(['applied']);
    expect(after).toMatchObject({ revision: before.revision + 1n, document: { n: 'after' } });
  });
});
