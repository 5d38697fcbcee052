import { describe, expect, it } from 'vitest';
import { Agent, AgdxClient, AgentTopic, withTelemetryHeaders, MAX_TELEMETRY_HEADERS, type AgdxTelemetry, type HandleEvent, type SendEvent } from '@agdx/agents';
import { MemoryLog } from '@agdx/transport';
import { AgentId, ConversationId, CorrelationId, HEADER_SOFT_CAP, headerBlockSize, MintUlid, type HeaderValue, type RecordHeaders } from '@agdx/wire';

const text = new TextEncoder();
const str = (value: string): HeaderValue => ({ kind: 'string', value: text.encode(value) });

describe('withTelemetryHeaders', () => {
  const block: RecordHeaders = new Map([['agdx.to', str('worker')]]);

  it('adds pairs sorted into the block without overwriting AGDX headers', () => {
    const out = withTelemetryHeaders(block, [['traceparent', 'tp'], ['agdx.to', 'intruder'], ['baggage', 'b']]);
    expect([...out.keys()]).toEqual(['agdx.to', 'baggage', 'traceparent']);
    expect(new TextDecoder().decode(out.get('agdx.to')!.value)).toBe('worker');
  });

  it('skips empty, oversized and control-character pairs, and returns the block itself when nothing is added', () => {
    const out = withTelemetryHeaders(block, [['', 'x'], ['a', ''], ['b', 'x'.repeat(256)], ['c'.repeat(256), 'x'], ['d', 'line\nbreak']]);
    expect(out).toBe(block);
  });

  it('takes at most MAX_TELEMETRY_HEADERS pairs and stays under the header soft cap', () => {
    const many = Array.from({ length: 10 }, (_, i): [string, string] => [`k${i}`, 'v']);
    expect(withTelemetryHeaders(block, many).size).toBe(1 + MAX_TELEMETRY_HEADERS);
    const big = Array.from({ length: 4 }, (_, i): [string, string] => [`big${i}`, 'x'.repeat(250)]);
    const out = withTelemetryHeaders(block, big);
    expect(headerBlockSize(out)).toBeLessThanOrEqual(HEADER_SOFT_CAP);
    expect(out.size).toBeLessThan(1 + big.length);
  });
});

describe('the telemetry hook', () => {
  it('sees each send with its position and each handled record with its headers', async () => {
    const sends: SendEvent[] = [];
    const ended: Array<bigint | undefined> = [];
    const handled: HandleEvent[] = [];
    const outcomes: string[] = [];
    const hook: AgdxTelemetry = {
      onSend: (event) => (sends.push(event), { headers: [['traceparent', `id-${sends.length}`]], end: (position) => void ended.push(position?.offset) }),
      onChunkStream: () => undefined,
      onHandle: (event) => (handled.push(event), { run: (attempt) => attempt(), end: (outcome) => void outcomes.push(outcome) }),
      onWait: () => undefined,
      onDeadLetter: () => undefined,
    };
    const client = AgdxClient.from(new MemoryLog(), { stream: 's' });
    client.instrument(hook);
    expect(client.telemetry).toBe(hook);
    await client.bootstrap(1);
    const me = AgentId.new('echo');
    const agent = Agent.builder().id(me).listenOn(AgentTopic.Sessions).heartbeats(false).pollInterval(5).handler({ handle: async () => undefined }).build().spawn(client);
    await agent.ready();
    await client.agdx(AgentTopic.Sessions, AgentId.new('caller'), ConversationId.new()).command(MintUlid.mint(CorrelationId), new Uint8Array([1])).withTarget(me).send();
    for (let i = 0; i < 400 && outcomes.length === 0; i++) await new Promise((r) => setTimeout(r, 25));
    await agent.shutdown();
    expect(sends.map((s) => s.envelope.kind)).toEqual(['command']);
    expect(ended).toEqual([0n]);
    expect(outcomes).toEqual(['handled']);
    expect(new TextDecoder().decode(handled[0]!.message.headers.get('traceparent')!.value)).toBe('id-1');
  });

  it('never changes delivery when every hook method throws', async () => {
    const boom = (): never => {
      throw new Error('hook failure');
    };
    const hook: AgdxTelemetry = { onSend: boom, onChunkStream: boom, onHandle: boom, onWait: boom, onDeadLetter: boom };
    const client = AgdxClient.from(new MemoryLog(), { stream: 's', telemetry: hook });
    await client.bootstrap(1);
    const me = AgentId.new('echo');
    const agent = Agent.builder()
      .id(me)
      .listenOn(AgentTopic.Sessions)
      .respondOn(AgentTopic.Sessions)
      .heartbeats(false)
      .pollInterval(5)
      .handler({
        handle: async (_message, ctx) => {
          const stream = ctx.stream('chat');
          await stream.write(text.encode('hi'));
          await stream.finish('stop');
          await ctx.respond(text.encode('pong'));
        },
      })
      .build()
      .spawn(client);
    await agent.ready();
    const ask = client.agdx(AgentTopic.Sessions, AgentId.new('caller'), ConversationId.new()).command(MintUlid.mint(CorrelationId), text.encode('ping')).withTarget(me);
    const reply = await client.request(ask, { replyTopic: AgentTopic.Sessions, timeoutMs: 20_000 });
    await agent.shutdown();
    expect(new TextDecoder().decode(reply.envelope!.body)).toBe('pong');
  });
});
