import { afterEach, describe, expect, it } from 'vitest';
import { SpanKind } from '@opentelemetry/api';
import { Agent, AgdxClient, AgentTopic, type AgdxTelemetry, type AgentHandle } from '@agdx/agents';
import { MemoryLog } from '@agdx/transport';
import { AgentId, ConversationId, CorrelationId, MintUlid, type RecordHeaders } from '@agdx/wire';
import { instrument, readTraceHeaders } from '@agdx/otel';
import { memorySdk, until, type MemorySdk } from './support/telemetry-sdk.js';

let sdk: MemorySdk | undefined;
let agent: AgentHandle | undefined;

afterEach(async () => {
  await agent?.shutdown();
  agent = undefined;
  await sdk?.shutdown();
  sdk = undefined;
});

/** A producer-side hook that stamps whatever headers a foreign system might have written. */
function stamping(pairs: Array<[string, string]>): AgdxTelemetry {
  return {
    onSend: () => ({ headers: pairs, end: () => undefined }),
    onChunkStream: () => undefined,
    onHandle: () => undefined,
    onWait: () => undefined,
    onDeadLetter: () => undefined,
  };
}

const echo = AgentId.new('echo');

/** Sends one command stamped with `pairs` to an instrumented agent; returns its handle span. */
async function handledWith(pairs: Array<[string, string]>) {
  sdk = memorySdk();
  const log = new MemoryLog();
  const consumer = AgdxClient.from(log, { stream: 's' });
  instrument(consumer, { tracerProvider: sdk.tracerProvider, meterProvider: sdk.meterProvider });
  await consumer.bootstrap(1);
  let handled = 0;
  agent = Agent.builder()
    .id(echo)
    .listenOn(AgentTopic.Sessions)
    .heartbeats(false)
    .pollInterval(5)
    .handler({ handle: async () => void handled++ })
    .build()
    .spawn(consumer);
  await agent.ready();
  const producer = AgdxClient.from(log, { stream: 's', telemetry: stamping(pairs) });
  await producer.agdx(AgentTopic.Sessions, AgentId.new('outsider'), ConversationId.new()).command(MintUlid.mint(CorrelationId), new Uint8Array([1])).withTarget(echo).send();
  const memory = sdk;
  await until(() => memory.spans().some((s) => s.kind === SpanKind.CONSUMER), 'the handle span');
  expect(handled).toBe(1);
  const span = memory.spans().find((s) => s.kind === SpanKind.CONSUMER)!;
  expect(span.attributes['agdx.outcome']).toBe('handled');
  return span;
}

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const SPAN = '00f067aa0ba902b7';

describe('trace context from the log', () => {
  it.each([
    ['garbage', 'not-a-traceparent'],
    ['version ff', `ff-${TRACE}-${SPAN}-01`],
    ['an all-zero trace id', `00-${'0'.repeat(32)}-${SPAN}-01`],
    ['an all-zero span id', `00-${TRACE}-${'0'.repeat(16)}-01`],
    ['uppercase hex', `00-${TRACE.toUpperCase()}-${SPAN}-01`],
    ['extra fields on version 00', `00-${TRACE}-${SPAN}-01-extra`],
    ['a short trace id', `00-${TRACE.slice(2)}-${SPAN}-01`],
  ])('ignores %s: the record is handled in a fresh trace', async (_label, value) => {
    const span = await handledWith([['traceparent', value]]);
    expect(span.parentSpanContext).toBeUndefined();
    expect(span.links).toEqual([]);
    expect(span.spanContext().traceId).not.toBe(TRACE);
  });

  it('continues a foreign producer trace, with its tracestate', async () => {
    const span = await handledWith([
      ['traceparent', `00-${TRACE}-${SPAN}-01`],
      ['tracestate', 'vendor=abc,other=1'],
    ]);
    expect(span.spanContext().traceId).toBe(TRACE);
    expect(span.parentSpanContext?.spanId).toBe(SPAN);
    expect(span.links[0]?.context.traceState?.get('vendor')).toBe('abc');
  });

  it('accepts a future version and ignores a malformed tracestate', async () => {
    const span = await handledWith([
      ['traceparent', `01-${TRACE}-${SPAN}-01-future`],
      ['tracestate', '=,,Bad Key=='],
    ]);
    expect(span.parentSpanContext?.spanId).toBe(SPAN);
    expect(span.links[0]?.context.traceState?.serialize() ?? '').toBe('');
  });
});

describe('readTraceHeaders', () => {
  const header = (kind: 'string' | 'raw', value: Uint8Array): RecordHeaders => new Map([['traceparent', { kind, value }]]);
  const valid = new TextEncoder().encode(`00-${TRACE}-${SPAN}-01`);

  it('reads a valid string header', () => {
    expect(readTraceHeaders(header('string', valid))).toMatchObject({ traceId: TRACE, spanId: SPAN, traceFlags: 1, isRemote: true });
  });

  it('ignores the wrong header kind, invalid UTF-8 and oversized values', () => {
    expect(readTraceHeaders(header('raw', valid))).toBeUndefined();
    expect(readTraceHeaders(header('string', new Uint8Array([0xff, 0xfe, 0x2d])))).toBeUndefined();
    expect(readTraceHeaders(header('string', new Uint8Array(300).fill(0x30)))).toBeUndefined();
    expect(readTraceHeaders(new Map())).toBeUndefined();
  });

  it('keeps a leading U+FEFF: a traceparent that starts with one is malformed, not repaired', () => {
    const bom = new TextEncoder().encode(`\ufeff00-${TRACE}-${SPAN}-01`);
    expect(readTraceHeaders(header('string', bom))).toBeUndefined();
    expect(readTraceHeaders(header('string', new TextEncoder().encode(`00-${TRACE}-${SPAN}-01\ufeff`)))).toBeUndefined();
  });
});
