import { toolResultFromEnvelope } from '@agdx/bridge-mcp';
import { AgentEnvelope, AgentId, ConversationId, CorrelationId, MintUlid, RecordId } from '@agdx/wire';
import { describe, expect, it } from 'vitest';

// A TextDecoder drops a leading U+FEFF unless built with ignoreBOM; a tool result is the reply as
// sent, while its structured content (JSON) is still read when the body starts with a byte order mark.
const utf8 = new TextEncoder();
const conversation = ConversationId.new();
const worker = AgentId.new('worker');
const response = (body: Uint8Array): AgentEnvelope => AgentEnvelope.response(MintUlid.mint(RecordId), conversation, worker, MintUlid.mint(CorrelationId), body);
const error = (body: Uint8Array): AgentEnvelope => AgentEnvelope.error(MintUlid.mint(RecordId), conversation, worker, MintUlid.mint(CorrelationId), body);

describe('tool results keep a leading U+FEFF', () => {
  it.each(['\ufeffdone', 'do\ufeffne'])('the text of %j', (text) => {
    expect(toolResultFromEnvelope(response(utf8.encode(text))).content).toEqual([{ kind: 'text', text }]);
  });

  it('the text of an error reply whose body is not an error body', () => {
    expect(toolResultFromEnvelope(error(utf8.encode('\ufeffbroken')))).toEqual({ content: [{ kind: 'text', text: '\ufeffbroken' }], isError: true });
  });

  it('structured content from a JSON object body, with and without a byte order mark; the text stays as sent', () => {
    for (const text of ['{"city":"\ufeffOslo"}', '\ufeff{"city":"\ufeffOslo"}']) {
      const result = toolResultFromEnvelope(response(utf8.encode(text)), true);
      expect(result.content).toEqual([{ kind: 'text', text }]);
      expect(result.structuredContent).toEqual({ city: '\ufeffOslo' });
    }
    // a mark that is not the first character is not JSON whitespace
    expect(toolResultFromEnvelope(response(utf8.encode(' \ufeff{"a":1}')), true).structuredContent).toBeUndefined();
  });
});
