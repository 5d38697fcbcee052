import { afterEach, describe, expect, it } from 'vitest';
import { SpanStatusCode } from '@opentelemetry/api';
import { AgentId, ConversationId } from '@agdx/wire';
import { createMetrics, OtelTelemetry } from '@agdx/otel';
import { memorySdk, type MemorySdk } from './support/telemetry-sdk.js';

let sdk: MemorySdk | undefined;

afterEach(async () => {
  await sdk?.shutdown();
  sdk = undefined;
});

function telemetry(): { hook: OtelTelemetry; memory: MemorySdk } {
  const memory = memorySdk();
  sdk = memory;
  return { hook: new OtelTelemetry(memory.tracerProvider.getTracer('t'), createMetrics(memory.meterProvider.getMeter('t'))), memory };
}

describe('errors handed to a span', () => {
  it('end the span even when the error has no text form or a throwing message', () => {
    const { hook, memory } = telemetry();
    const hostile = [
      Object.create(null) as unknown,
      {
        get message(): string {
          throw new Error('no');
        },
      },
    ];
    for (const error of hostile) {
      const span = hook.onSession({ operation: 'context', conversation: ConversationId.new() });
      expect(() => span.end(error)).not.toThrow();
    }
    const spans = memory.spans();
    expect(spans).toHaveLength(2);
    for (const span of spans) expect(span.status).toEqual({ code: SpanStatusCode.ERROR, message: 'unprintable error' });
  });

  it('bound a served call failure message on the attribute and the status', () => {
    const { hook, memory } = telemetry();
    const span = hook.onServe({ protocol: 'a2a', method: 'SendMessage', agent: AgentId.new('bridge') });
    span.end({ code: -32603, message: '€'.repeat(50_000) });
    const [served] = memory.spans();
    const attribute = String(served!.attributes['rpc.jsonrpc.error_message']);
    expect(attribute.length).toBeLessThanOrEqual(1024);
    expect(attribute.startsWith('€€€')).toBe(true);
    expect(served!.status.code).toBe(SpanStatusCode.ERROR);
    expect(served!.status.message!.length).toBeLessThanOrEqual(1024);
  });
});
