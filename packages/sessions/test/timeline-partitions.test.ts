/**
 * A session's timeline is folded once from the partitions the stream layout puts its records on,
 * not from every partition of the lane: on a lane of P partitions the first `events(id)` reads
 * about 1/P of it, and the records a per-agent layout moved elsewhere are still in the timeline.
 */
import { describe, expect, it } from 'vitest';
import { AgentTopic, SESSIONS_TOPIC, type StreamLayout } from '@agdx/agents';
import { partitionForKey } from '@agdx/transport';
import { ConversationId } from '@agdx/wire';
import { sessions } from '@agdx/sessions';
import { agent, clientOn, countingLog, exchange, model } from './support/counting-log.js';

const PARTITIONS = 4;

/** `count` sessions with derived ids, spread over the partitions by their keys. */
function spread(count: number): ConversationId[] {
  return Array.from({ length: count }, (_, i) => ConversationId.derive(`spread-${i}`));
}

describe('the first timeline read of a session', () => {
  it('reads only the partitions the layout puts the session on', async () => {
    const counting = countingLog();
    const laser = await clientOn(counting.transport, PARTITIONS);
    const factory = sessions(laser);
    const ids = spread(16);
    for (const id of ids) {
      await factory.open(id).lifecycle.begin({ agent });
      await exchange(laser, id);
    }
    const target = ids[0] as ConversationId;
    const home = await partitionForKey(target.toString(), PARTITIONS);
    const onHome = (await Promise.all(ids.map((id) => partitionForKey(id.toString(), PARTITIONS)))).filter((p) => p === home).length;
    expect(onHome).toBeLessThan(ids.length);

    await factory.get(target);
    counting.reset();
    const page = await factory.events(target);
    expect(page.items.map((e) => e.display)).toEqual(['session.started', 'model.request', 'model.response']);
    // three records per session on its home partition, nothing from the others
    expect(counting.read([SESSIONS_TOPIC])).toBe(3 * onHome);
  });

  it('a partition-per-agent layout: the declared agent\'s partition is read too, and its records are in the timeline', async () => {
    const target = ConversationId.derive('per-agent');
    const home = await partitionForKey(target.toString(), PARTITIONS);
    const layout: StreamLayout = { kind: 'perAgentPartition', partitions: new Map([[model.value, (home + 1) % PARTITIONS]]) };
    const counting = countingLog();
    const laser = await clientOn(counting.transport, PARTITIONS, layout);
    const factory = sessions(laser);
    await factory.open(target).lifecycle.begin({ agent });
    await exchange(laser, target);
    // another session on a third partition, which the read must not touch
    let other = ConversationId.derive('other-0');
    for (let i = 1; [home, (home + 1) % PARTITIONS].includes(await partitionForKey(other.toString(), PARTITIONS)); i++) other = ConversationId.derive(`other-${i}`);
    await factory.open(other).lifecycle.begin({ agent });

    await factory.get(target);
    counting.reset();
    const page = await factory.events(target);
    expect(page.items.map((e) => e.display)).toEqual(['session.started', 'model.request', 'model.response']);
    expect(counting.read([SESSIONS_TOPIC])).toBe(3);
    expect(counting.read([AgentTopic.Control])).toBe(0);
  });
});
