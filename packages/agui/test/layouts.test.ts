import { AgdxClient, AgentTopic, type StreamLayout } from '@agdx/agents';
import { AguiBridge } from '@agdx/agui';
import { MemoryLog, partitionForKey } from '@agdx/transport';
import { AgentId, ConversationId, CorrelationId, MintUlid, TaskState } from '@agdx/wire';
import { describe, expect, it } from 'vitest';

const text = new TextEncoder();
const PARTITIONS = 4;
const assistant = AgentId.new('assistant');
const user = AgentId.new('user');

/** The four stream layouts, with `user` declared; a declared partition off the conversation's own. */
async function layouts(conversation: ConversationId): Promise<[string, StreamLayout][]> {
  const home = await partitionForKey(conversation.toString(), PARTITIONS);
  return [
    ['shared', { kind: 'shared' }],
    ['perAgentTopic', { kind: 'perAgentTopic', topics: new Map([[user.value, 'agent.user']]) }],
    ['perAgentPartition', { kind: 'perAgentPartition', partitions: new Map([[user.value, (home + 1) % PARTITIONS]]) }],
    ['singlePartition', { kind: 'singlePartition' }],
  ];
}

describe.each(['shared', 'perAgentTopic', 'perAgentPartition', 'singlePartition'])('AguiBridge.aguiEvents under the %s layout', (name) => {
  it('returns the events of a chunk stream addressed to a declared agent, framed by the run', async () => {
    const conversation = ConversationId.new();
    const layout = (await layouts(conversation)).find(([n]) => n === name)![1];
    const laser = AgdxClient.from(new MemoryLog(), { stream: 'demo', layout });
    await laser.bootstrap(PARTITIONS);
    const correlation = MintUlid.mint(CorrelationId);
    const send = laser.agdx(AgentTopic.Sessions, assistant, conversation);
    await send.status('task').withCorrelation(correlation).withTaskState(TaskState.Submitted).send();
    const chat = send.stream(correlation, 'chat').withTarget(user);
    await chat.write(text.encode('Hello '));
    await chat.write(text.encode('there.'));
    await chat.finish('stop');
    await send.status('task').withCorrelation(correlation).withTaskState(TaskState.Completed).send();
    // another conversation's stream to the same agent never leaks in
    await laser.agdx(AgentTopic.Sessions, assistant, ConversationId.new()).stream(MintUlid.mint(CorrelationId), 'chat').withTarget(user).write(text.encode('other'));

    const events = await new AguiBridge(laser).aguiEvents(conversation);
    expect(events.map((e) => e.type)).toEqual([
      'RUN_STARTED',
      'TEXT_MESSAGE_START',
      'TEXT_MESSAGE_CONTENT',
      'TEXT_MESSAGE_CONTENT',
      'TEXT_MESSAGE_END',
      'RUN_FINISHED',
    ]);
    expect(events.filter((e) => e.type === 'TEXT_MESSAGE_CONTENT').map((e) => (e as { delta: string }).delta).join('')).toBe('Hello there.');
  });
});
