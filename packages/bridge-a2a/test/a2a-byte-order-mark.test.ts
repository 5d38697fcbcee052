import { taskFromEnvelope } from '@agdx/bridge-a2a';
import { AgentEnvelope, AgentId, ConversationId, CorrelationId, MintUlid, RecordId } from '@agdx/wire';
import { describe, expect, it } from 'vitest';

// A TextDecoder drops a leading U+FEFF unless built with ignoreBOM; an artifact is the reply as sent.
describe('a task artifact keeps the text the agent sent', () => {
  const reply = (body: string): AgentEnvelope =>
    AgentEnvelope.response(MintUlid.mint(RecordId), ConversationId.new(), AgentId.new('worker'), MintUlid.mint(CorrelationId), new TextEncoder().encode(body));

  it.each(['\ufeffdone', '\ufeff', 'do\ufeffne', '\ufeff{"a":1}'])('%j', (text) => {
    expect(taskFromEnvelope('t1', reply(text)).artifacts).toEqual([{ text }]);
  });
});
