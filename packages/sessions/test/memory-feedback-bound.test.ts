/**
 * Feedback weights the memory fold keeps for ids that are not live items: a writer can append
 * feedback on ids that were never remembered (or on slots it forgot), and the fold must not grow
 * with them.
 */
import { describe, expect, it } from 'vitest';
import { AgentTopic } from '@agdx/agents';
import { encodeMemoryRecord, MAX_PENDING_FEEDBACK, MEMORY_NAMESPACE_HEADER, sessions } from '@agdx/sessions';
import { MemoryLog } from '@agdx/transport';
import { encodeProvenanceHeaders, stringHeader } from '@agdx/wire';
import { clientOn } from './support/counting-log.js';

describe('memory feedback on ids that are not live items', () => {
  it('keeps at most MAX_PENDING_FEEDBACK weights for unknown ids, the newest ones, and live items keep theirs', async () => {
    const log = new MemoryLog();
    const laser = await clientOn(log);
    const memory = sessions(laser).create('feedback-flood').memory();
    const kept = await memory.remember('likes tea');
    await memory.improve(kept, 2);
    await memory.improve('agent.session/early', 3);

    // feedback records on ids nobody remembered, written by hand in one batch
    const flood = 3 * MAX_PENDING_FEEDBACK;
    const headers = new Map([...encodeProvenanceHeaders({ conversation: memory.conversation }), [MEMORY_NAMESPACE_HEADER, stringHeader('agent.session')]]);
    const records = Array.from({ length: flood }, (_, i) => ({ headers, payload: encodeMemoryRecord({ kind: 'feedback', target: `ghost-${i}`, weight: 1 }) }));
    await log.append({ stream: 'demo', topic: AgentTopic.Memory, records, routing: { key: memory.conversation.toString() } });
    await memory.improve('agent.session/late', 5);

    const index = await memory.index();
    // the live item's weight and the newest pending ones; never one per flooded id
    expect(index.heldWeights).toBeLessThanOrEqual(MAX_PENDING_FEEDBACK + 1);
    expect(index.weight(kept)).toBe(2);
    expect(index.weight(`ghost-${flood - 1}`)).toBe(1);
    expect(index.weight('ghost-0')).toBe(0);

    // the newest pending weight is there when its slot is written; the one pushed out is not
    await memory.remember('v1', { key: 'late' });
    await memory.remember('v1', { key: 'early' });
    const weights = new Map((await memory.recall().fetch()).map((i) => [i.id, i.weight]));
    expect(weights.get('agent.session/late')).toBe(5);
    expect(weights.get('agent.session/early')).toBe(0);
    expect(weights.get(kept)).toBe(2);

    // a fresh fold of the same log holds the same
    const fresh = await sessions(laser).create('feedback-flood').memory().index();
    expect(fresh.heldWeights).toBe(index.heldWeights);
  });

  it('a forgotten named slot keeps its weight as a pending one, and loses it once enough newer pending ids push it out', async () => {
    const log = new MemoryLog();
    const laser = await clientOn(log);
    const memory = sessions(laser).create('slot-pushed').memory();
    const slot = await memory.remember('v1', { key: 'pref' });
    await memory.improve(slot, 3);
    await memory.forget(slot);
    expect((await memory.index()).weight(slot)).toBe(3);
    for (let i = 0; i < MAX_PENDING_FEEDBACK; i++) await memory.improve(`agent.session/other-${i}`, 1);
    expect((await memory.index()).weight(slot)).toBe(0);
    await memory.remember('v2', { key: 'pref' });
    expect((await memory.recall().fetch()).find((i) => i.id === slot)?.weight).toBe(0);
  });
});
