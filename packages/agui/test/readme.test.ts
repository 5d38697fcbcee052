import { AgdxClient, AgentTopic } from '@agdx/agents';
import { AguiBridge } from '@agdx/agui';
import { MemoryLog } from '@agdx/transport';
import { AgentId, ConversationId } from '@agdx/wire';
import { expect, it } from 'vitest';

it('README quick start (seed 002 example)', async () => {
  const laser = AgdxClient.from(new MemoryLog(), { stream: 'demo' });
  await laser.bootstrap(4);
  const agui = new AguiBridge(laser);

  const conversation = ConversationId.new();
  await agui.publishStateSnapshot(AgentId.new('ui'), conversation, { count: 0 });
  await agui.publishStateDelta('ui', conversation, [{ op: 'replace', path: '/count', value: 1 }]);

  const events = await agui.aguiEvents(conversation, AgentTopic.Sessions);
  expect(events).toEqual([
    { type: 'STATE_SNAPSHOT', snapshot: { count: 0 } },
    { type: 'STATE_DELTA', delta: [{ op: 'replace', path: '/count', value: 1 }] },
  ]);
  expect(await agui.reconstructState(conversation)).toEqual({ count: 1 });
});
