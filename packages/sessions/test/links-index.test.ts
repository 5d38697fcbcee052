/**
 * `links(id)` answers from an index the fold keeps of each parent's children, not from a walk
 * over every session the fold knows: its cost follows the session's own family.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { sessions } from '@agdx/sessions';
import { AgentId, ConversationId } from '@agdx/wire';
import { clientOn, countingLog } from './support/counting-log.js';

const agent = AgentId.parse('planner');

afterEach(() => {
  vi.restoreAllMocks();
});

describe('links at scale', () => {
  it('looks at the asked session\'s children only, and agrees with a fresh reader and with one started from a snapshot', async () => {
    const laser = await clientOn(countingLog().transport, 2);
    const factory = sessions(laser);
    const small = factory.create('small-family');
    const big = factory.create('big-family');
    await small.lifecycle.begin({ agent });
    await big.lifecycle.begin({ agent });
    const mine: ConversationId[] = [];
    for (let i = 0; i < 2; i++) {
      const child = factory.create(`small-${i}`);
      await child.lifecycle.begin({ agent, parent: small.conversation, root: small.conversation });
      mine.push(child.conversation);
    }
    for (let i = 0; i < 300; i++) await factory.create(`big-${i}`).lifecycle.begin({ agent, parent: big.conversation, root: big.conversation });
    await factory.links(small.conversation);

    const equals = vi.spyOn(ConversationId.prototype, 'equals');
    const links = await factory.links(small.conversation);
    expect(equals.mock.calls.length).toBeLessThan(10);
    equals.mockRestore();
    expect(links.children.map(String)).toEqual(mine.map(String).sort());
    expect((await factory.links(big.conversation)).children).toHaveLength(300);

    const fresh = sessions(laser, undefined, { snapshots: false });
    expect(await fresh.links(small.conversation)).toEqual(links);
    await factory.reads.snapshot();
    const restored = sessions(laser);
    expect((await restored.reads.sources(small.conversation)).start.from).toBe('snapshot');
    expect(await restored.links(small.conversation)).toEqual(links);
  });
});
