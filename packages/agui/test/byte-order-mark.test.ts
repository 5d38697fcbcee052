/**
 * A TextDecoder drops a leading U+FEFF unless built with `ignoreBOM`. Text an agent sent (chunked
 * or whole) must render as sent, even across chunk boundaries and a converter saved and restored
 * mid-stream; JSON bodies (legacy state, the request body) are still read with a byte order mark.
 */
import { AgdxClient } from '@agdx/agents';
import { AguiBridge, AguiConverter, envelopesToAgUi, type AguiEvent } from '@agdx/agui';
import { MemoryLog } from '@agdx/transport';
import { AgentEnvelope, AgentId, ChannelId, ConversationId, CorrelationId, MintUlid, RecordId, STATE_SNAPSHOT_OPERATION } from '@agdx/wire';
import { describe, expect, it } from 'vitest';

const BOM = '\ufeff';
const BOM_BYTES = [0xef, 0xbb, 0xbf] as const;
const utf8 = new TextEncoder();
const conversation = ConversationId.new();
const source = AgentId.new('assistant');

/** The chunks of one chat channel carrying `parts` (the last one ends the channel). */
function chat(parts: readonly Uint8Array[], purpose = 'chat'): AgentEnvelope[] {
  const correlation = MintUlid.mint(CorrelationId);
  const channel = MintUlid.mint(ChannelId);
  return parts.map((part, seq) => {
    const chunk = AgentEnvelope.chunk(conversation, source, correlation, channel, seq, part);
    const opened = seq === 0 ? chunk.withOperation(purpose) : chunk;
    return seq === parts.length - 1 ? opened.with({ last: true }) : opened;
  });
}

/** The concatenated content deltas of `events`. */
function content(events: readonly AguiEvent[]): string {
  return events.flatMap((e) => (e.type === 'TEXT_MESSAGE_CONTENT' || e.type === 'REASONING_MESSAGE_CONTENT' ? [e.delta] : e.type === 'TOOL_CALL_ARGS' ? [e.delta] : [])).join('');
}

describe('streamed text keeps a leading U+FEFF', () => {
  it('in the first delta of a channel, and a mark in the middle is untouched', () => {
    expect(content(envelopesToAgUi(chat([utf8.encode(`${BOM}Hello`), utf8.encode(` wor${BOM}ld`)])))).toBe(`${BOM}Hello wor${BOM}ld`);
    expect(content(envelopesToAgUi(chat([utf8.encode(`${BOM}{"q":1}`), new Uint8Array(0)], 'tool_args')))).toBe(`${BOM}{"q":1}`);
  });

  it('when the mark arrives split across deltas', () => {
    const parts = [Uint8Array.of(BOM_BYTES[0]), Uint8Array.of(BOM_BYTES[1]), Uint8Array.of(BOM_BYTES[2], 0x61)];
    expect(content(envelopesToAgUi(chat(parts)))).toBe(`${BOM}a`);
    expect(content(envelopesToAgUi(chat([Uint8Array.of(...BOM_BYTES.slice(0, 2)), Uint8Array.of(BOM_BYTES[2])])))).toBe(BOM);
  });

  it('through a converter saved and restored mid-stream: a mark later in the stream, or split at the save', () => {
    const cases: [readonly Uint8Array[], number, string][] = [
      // [chunks, how many the first converter sees, the text]
      [[utf8.encode('x'), utf8.encode(`${BOM}y`)], 1, `x${BOM}y`],
      [[Uint8Array.of(0x78, BOM_BYTES[0], BOM_BYTES[1]), Uint8Array.of(BOM_BYTES[2], 0x79)], 1, `x${BOM}y`],
      [[Uint8Array.of(BOM_BYTES[0]), Uint8Array.of(BOM_BYTES[1]), Uint8Array.of(BOM_BYTES[2], 0x79)], 2, `${BOM}y`],
      [[utf8.encode(`${BOM}`), utf8.encode(`${BOM}y`)], 1, `${BOM}${BOM}y`],
    ];
    for (const [parts, before, expected] of cases) {
      const chunks = chat(parts);
      const first = new AguiConverter();
      const events = chunks.slice(0, before).flatMap((c) => first.convert(c));
      const image = JSON.parse(JSON.stringify(first.image())) as ReturnType<AguiConverter['image']>;
      const restored = AguiConverter.fromImage(image);
      events.push(...chunks.slice(before).flatMap((c) => restored.convert(c)));
      expect(content(events)).toBe(expected);
    }
  });
});

describe('whole bodies keep a leading U+FEFF', () => {
  it('a tool result', () => {
    const call = MintUlid.mint(CorrelationId);
    const result = AgentEnvelope.response(MintUlid.mint(RecordId), conversation, AgentId.new('tools'), call, utf8.encode(`${BOM}42`)).withTool('calc');
    const [event] = envelopesToAgUi([result]);
    expect(event).toMatchObject({ type: 'TOOL_CALL_RESULT', content: `${BOM}42` });
  });
});

describe('JSON bodies with and without a byte order mark', () => {
  it('a legacy JSON state snapshot is read either way, and strings inside keep their marks', () => {
    for (const prefix of [[], BOM_BYTES]) {
      const body = Uint8Array.of(...prefix, ...utf8.encode(`{"title":"${BOM}draft"}`));
      const envelope = AgentEnvelope.event(MintUlid.mint(RecordId), conversation, source, body).withOperation(STATE_SNAPSHOT_OPERATION);
      const converter = new AguiConverter();
      expect(converter.convert(envelope)).toEqual([{ type: 'STATE_SNAPSHOT', snapshot: { title: `${BOM}draft` } }]);
    }
  });

  it('a request body with a leading byte order mark is parsed as JSON (what Request.json() does too)', async () => {
    const handler = new AguiBridge(AgdxClient.from(new MemoryLog(), { stream: 'nowhere' })).handler();
    const input = JSON.stringify({ threadId: 'nope', runId: 'r', messages: [], tools: [], context: [], state: {}, forwardedProps: {} });
    for (const body of [input, `${BOM}${input}`]) {
      const response = await handler(new Request('http://x/agui', { method: 'POST', headers: { 'content-type': 'application/json' }, body }));
      expect(response.status).toBe(400);
      // parsed: the answer is about the thread id, not about the body not being JSON
      expect(await response.json()).toMatchObject({ error: { kind: 'invalid', message: expect.stringContaining('threadId') } });
    }
    const midway = await handler(new Request('http://x/agui', { method: 'POST', headers: { 'content-type': 'application/json' }, body: ` ${BOM}${input}` }));
    expect(await midway.json()).toMatchObject({ error: { message: expect.stringContaining('JSON RunAgentInput') } });
  });
});
