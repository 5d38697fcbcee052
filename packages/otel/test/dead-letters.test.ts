import { afterEach, describe, expect, it } from 'vitest';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { Agent, AgdxClient, AgentTopic, HandlerError, type AgentHandle } from '@agdx/agents';
import { MemoryLog } from '@agdx/transport';
import { AgentId, ConversationId, CorrelationId, MintUlid } from '@agdx/wire';
import { instrument, MetricName } from '@agdx/otel';
import { counterSum, memorySdk, until, type MemorySdk } from './support/telemetry-sdk.js';

let sdk: MemorySdk | undefined;
let agent: AgentHandle | undefined;

afterEach(async () => {
  await agent?.shutdown();
  await sdk?.shutdown();
  agent = undefined;
  sdk = undefined;
});

describe('a dead-lettered record', () => {
  it('ends its handle span with an error and counts a dead letter', async () => {
    const memory = await deadLetterThrowing(() => new HandlerError('cannot do this'));
    const span = memory.spans().find((s) => s.kind === SpanKind.CONSUMER)!;
    expect(span.attributes['agdx.outcome']).toBe('dead-lettered');
    expect(span.status).toMatchObject({ code: SpanStatusCode.ERROR, message: 'cannot do this' });
    expect(span.events.some((e) => e.name === 'exception')).toBe(true);
    const metrics = await memory.metrics();
    expect(counterSum(metrics.get(MetricName.deadLettered), (a) => a['gen_ai.agent.id'] === 'fragile')).toBe(1);
    expect(counterSum(metrics.get(MetricName.handled), (a) => a['agdx.outcome'] === 'dead-lettered')).toBe(1);
  });

  /** Spawns an agent whose handler throws `thrown` once, sends it one command, and returns the SDK. */
  async function deadLetterThrowing(thrown: () => unknown): Promise<MemorySdk> {
    const memory = memorySdk();
    sdk = memory;
    const client = AgdxClient.from(new MemoryLog(), { stream: 's' });
    instrument(client, { tracerProvider: memory.tracerProvider, meterProvider: memory.meterProvider });
    await client.bootstrap(1);
    const me = AgentId.new('fragile');
    agent = Agent.builder()
      .id(me)
      .listenOn(AgentTopic.Sessions)
      .heartbeats(false)
      .pollInterval(5)
      .retry({ maxAttempts: 1, baseDelayMs: 1 })
      .handler({
        handle: async () => {
          throw thrown();
        },
      })
      .build()
      .spawn(client);
    await agent.ready();
    await client.agdx(AgentTopic.Sessions, AgentId.new('caller'), ConversationId.new()).command(MintUlid.mint(CorrelationId), new Uint8Array([1])).withTarget(me).send();
    const deadLettered = async (): Promise<number> => counterSum((await memory.metrics()).get(MetricName.deadLettered));
    for (let round = 0; round < 800 && (await deadLettered()) === 0; round++) await new Promise((resolve) => setTimeout(resolve, 25));
    await until(() => memory.spans().some((s) => s.kind === SpanKind.CONSUMER), 'the handle span');
    return memory;
  }

  it('bounds the status and exception message of a huge error', async () => {
    const memory = await deadLetterThrowing(() => new HandlerError('x'.repeat(100_000)));
    const span = memory.spans().find((s) => s.kind === SpanKind.CONSUMER)!;
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
    expect(span.status.message!.length).toBeLessThanOrEqual(1024);
    expect(span.status.message!.startsWith('xxx')).toBe(true);
    const exception = span.events.find((e) => e.name === 'exception')!;
    expect(String(exception.attributes!['exception.message']).length).toBeLessThanOrEqual(1024);
  });
});
