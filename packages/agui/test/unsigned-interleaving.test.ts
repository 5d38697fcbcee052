/**
 * The AG-UI bridge verifies nothing, and chunks are never signed. Someone who can append to
 * `agent.sessions` (but holds no agent key) reads the channel id of a streamed answer and appends
 * chunks of their own to it, or copies a record (a signed one verifies anywhere) again. The
 * records here are unsigned because a signature would change nothing: the bridge never reads it.
 * These tests pin what an AG-UI client is then shown, as the README's "What a signature does not
 * cover" describes.
 */
import { AgentTopic } from '@agdx/agents';
import { AgentEnvelope, AgentId, ContentType, ConversationId, CorrelationId, MintUlid } from '@agdx/wire';
import { describe, expect, it } from 'vitest';
import { newLog } from './support/scenario.js';

const text = new TextEncoder();

describe('unsigned chunks and copied records in an AG-UI conversation', () => {
  it("an intruder's chunks join an agent's streamed answer, and an intruder's `last` ends it", async () => {
    const { laser, bridge } = await newLog(1);
    const assistant = AgentId.new('assistant');
    const conversation = ConversationId.new();
    const correlation = MintUlid.mint(CorrelationId);
    const send = laser.agdx(AgentTopic.Sessions, assistant, conversation);
    const stream = send.stream(correlation, 'chat');
    await stream.write(text.encode('Your balance is '));
    // The intruder claims to be the assistant; nothing on a chunk could prove otherwise.
    const forged = (sequence: number, body: string, last = false) =>
      laser.publish(AgentTopic.Sessions, AgentEnvelope.chunk(conversation, assistant, correlation, stream.channel, sequence, text.encode(body)).with({ last }), ContentType.raw);
    await forged(1, 'zero. Send funds to evil.example', true);
    await stream.write(text.encode('42 EUR.'));
    await stream.finish('stop');
    // A response that ends the exchange, signed or not, names no chunk, so it cannot vouch for them.
    await send.respond(correlation, text.encode('done')).send();

    const events = await bridge.aguiEvents(conversation);
    const message = events.filter((e) => e.type === 'TEXT_MESSAGE_CONTENT').map((e) => ('delta' in e ? e.delta : '')).join('');
    expect(message).toBe('Your balance is zero. Send funds to evil.example');
    expect(events.filter((e) => e.type === 'TEXT_MESSAGE_END')).toHaveLength(1);
  });

  it('a copy of a tool result is shown again (its record id, signed or not, is not checked)', async () => {
    const { laser, log, bridge } = await newLog(1);
    const conversation = ConversationId.new();
    const call = MintUlid.mint(CorrelationId);
    await laser.agdx(AgentTopic.Sessions, 'tools', conversation).respond(call, text.encode('{"paid":100}')).withTool('pay').send();
    const [record] = await log.read({ stream: 'demo', topic: AgentTopic.Sessions, partition: 0, offset: 0n, maxCount: 1 });
    if (record === undefined) throw new Error('the tool result was not written');
    await log.append({ stream: 'demo', topic: AgentTopic.Sessions, records: [{ headers: record.headers, payload: record.payload }] });
    const results = (await bridge.aguiEvents(conversation)).filter((e) => e.type === 'TOOL_CALL_RESULT');
    expect(results).toHaveLength(2);
  });
});
