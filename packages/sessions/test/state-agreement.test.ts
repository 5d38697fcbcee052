import { describe, expect, it } from 'vitest';
import { AgentId, type JsonPatchOperation } from '@agdx/wire';
import { sessions, type SessionLifecycleWriter, type Sessions } from '@agdx/sessions';
import { setup } from './helpers.js';

const agent = AgentId.parse('planner');

async function expectAgreement(factory: Sessions, writer: SessionLifecycleWriter, conversation: Parameters<Sessions['state']>[0]): Promise<void> {
  const read = await factory.state(conversation);
  expect(writer.revision).toBe(read.revision);
  expect(writer.document).toEqual(read.document);
}

describe('state writer and readers agree on every revision', () => {
  it('a delta repeating an applied op id leaves the writer where the readers are', async () => {
    const { laser } = await setup();
    const factory = sessions(laser);
    const session = factory.create('agree');
    const writer = session.lifecycle;
    await writer.begin({ agent });
    const steps: (() => Promise<unknown>)[] = [
      () => writer.snapshot({ n: 1 }),
      () => writer.patch([{ op: 'replace', path: '/n', value: 2 }], { opId: 'a' }),
      // a retry of `a` with another body: readers drop it by op id, whatever it says
      () => writer.patch([{ op: 'replace', path: '/n', value: 3 }], { opId: 'a' }),
      () => writer.patch([{ op: 'remove', path: '/missing' }] as JsonPatchOperation[], { opId: 'a' }),
      () => writer.patch([{ op: 'add', path: '/m', value: true }], { opId: 'b' }),
      // a snapshot against the writer's revision must apply, not be stale
      () => writer.snapshot({ n: 9 }),
    ];
    for (const step of steps) {
      await step();
      await expectAgreement(factory, writer, session.conversation);
    }
    const state = await factory.state(session.conversation);
    expect(state.document).toEqual({ n: 9 });
    expect(state.revision).toBe(4n);
    expect(state.history.map((h) => h.outcome)).toEqual(['applied', 'applied', 'duplicate', 'duplicate', 'applied', 'applied']);
  });

  it('a fresh writer learns the applied op ids from the lane', async () => {
    const { laser } = await setup();
    const factory = sessions(laser);
    const session = factory.create('agree-fresh');
    await session.lifecycle.begin({ agent });
    await session.lifecycle.patch([{ op: 'add', path: '/n', value: 1 }], { opId: 'x' });
    const later = sessions(laser).open(session.conversation).lifecycle;
    await later.patch([{ op: 'replace', path: '/n', value: 5 }], { opId: 'x', agent });
    await expectAgreement(factory, later, session.conversation);
    expect(later.document).toEqual({ n: 1 });
    await later.snapshot({ n: 7 }, { agent });
    await expectAgreement(factory, later, session.conversation);
    expect((await factory.state(session.conversation)).document).toEqual({ n: 7 });
  });

  it('duplicates do not count towards the automatic snapshot', async () => {
    const { laser } = await setup();
    const factory = sessions(laser);
    const session = factory.create('agree-auto');
    await session.lifecycle.begin({ agent });
    await session.lifecycle.patch([{ op: 'add', path: '/n', value: 0 }], { opId: 'same' });
    for (let i = 0; i < 70; i++) await session.lifecycle.patch([{ op: 'replace', path: '/n', value: i }], { opId: 'same' });
    const ops = (await factory.events(session.conversation)).items.map((e) => e.operation);
    expect(ops.filter((o) => o === 'state_snapshot')).toHaveLength(0);
    await expectAgreement(factory, session.lifecycle, session.conversation);
  });
});
