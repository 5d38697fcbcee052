import { AgdxClient, AgentTopic } from '@agdx/agents';
import { AguiBridge } from '@agdx/agui';
import { MemoryLog } from '@agdx/transport';
import { AgentId, ContentType, ConversationId, CorrelationId, MintUlid, TaskState, type ChannelId } from '@agdx/wire';

const text = new TextEncoder();

/** A client over a fresh in-memory log, bootstrapped. */
export async function newLog(partitions = 4): Promise<{ log: MemoryLog; laser: AgdxClient; bridge: AguiBridge }> {
  const log = new MemoryLog();
  const laser = AgdxClient.from(log, { stream: 'demo' });
  await laser.bootstrap(partitions);
  return { log, laser, bridge: new AguiBridge(laser) };
}

/** What {@link writeAnswer} wrote. */
export interface Answer {
  readonly conversation: ConversationId;
  readonly correlation: CorrelationId;
  readonly toolCall: ChannelId;
}

/**
 * A streamed answer with reasoning, a tool call and its result, state changes and a chat reply,
 * written with the agents send builders. `between` runs after every record, to interleave a reader.
 */
export async function writeAnswer(
  laser: AgdxClient,
  bridge: AguiBridge,
  conversation: ConversationId = ConversationId.new(),
  between: () => Promise<void> = async () => undefined,
  ending: 'Completed' | 'Failed' = 'Completed',
): Promise<Answer> {
  const assistant = AgentId.new('assistant');
  const correlation = MintUlid.mint(CorrelationId);
  const send = laser.agdx(AgentTopic.Sessions, assistant, conversation);
  await send.status('task').withCorrelation(correlation).withTaskState(TaskState.Submitted).send();
  await between();
  await bridge.publishStateSnapshot('assistant', conversation, { step: 'thinking', count: 0 });
  await between();
  const reasoning = send.stream(correlation, 'reasoning');
  await reasoning.write(text.encode('The user wants '));
  await between();
  await reasoning.write(text.encode('the weather.'));
  await reasoning.finish('stop');
  await between();
  const tool = send.stream(correlation, 'tool_args').withTool('weather').contentType(ContentType.json);
  for (const part of ['{"city":', '"Oslo"}']) {
    await tool.write(text.encode(part));
    await between();
  }
  await tool.finish('stop');
  const toolCall = tool.channel;
  await between();
  await send.respond(correlation, text.encode('{"temp":21}')).withTool('weather').send();
  await between();
  await bridge.publishStateDelta('assistant', conversation, [
    { op: 'replace', path: '/step', value: 'answering' },
    { op: 'replace', path: '/count', value: 1 },
  ]);
  await between();
  const chat = send.stream(correlation, 'chat');
  await chat.write(text.encode('It is 21 °C '));
  await between();
  await chat.write(text.encode('in Oslo.'));
  await chat.finish('stop');
  await between();
  await bridge.publishStateDelta('assistant', conversation, [{ op: 'replace', path: '/step', value: 'done' }]);
  await between();
  if (ending === 'Completed') await send.status('task').withCorrelation(correlation).withTaskState(TaskState.Completed).send();
  else await send.status('task').withCorrelation(correlation).withTaskState(TaskState.Failed).body(text.encode('weather service down')).send();
  return { conversation, correlation, toolCall };
}

/** The events of {@link writeAnswer}, as types in order. */
export const ANSWER_EVENT_TYPES: readonly string[] = [
  'RUN_STARTED',
  'STATE_SNAPSHOT',
  'REASONING_MESSAGE_START',
  'REASONING_MESSAGE_CONTENT',
  'REASONING_MESSAGE_CONTENT',
  'REASONING_MESSAGE_END',
  'TOOL_CALL_START',
  'TOOL_CALL_ARGS',
  'TOOL_CALL_ARGS',
  'TOOL_CALL_END',
  'TOOL_CALL_RESULT',
  'STATE_DELTA',
  'TEXT_MESSAGE_START',
  'TEXT_MESSAGE_CONTENT',
  'TEXT_MESSAGE_CONTENT',
  'TEXT_MESSAGE_END',
  'STATE_DELTA',
  'RUN_FINISHED',
];
