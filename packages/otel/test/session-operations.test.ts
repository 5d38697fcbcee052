import { afterEach, describe, expect, it } from 'vitest';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { AgdxClient } from '@agdx/agents';
import { instrument } from '@agdx/otel';
import { sessions } from '@agdx/sessions';
import { MemoryLog } from '@agdx/transport';
import { memorySdk, type MemorySdk } from './support/telemetry-sdk.js';

let memory: MemorySdk | undefined;
afterEach(async () => {
  await memory?.shutdown();
  memory = undefined;
});

describe('session operations', () => {
  it('append, context and checkpoint each make an INTERNAL span naming the session', async () => {
    const sdk = (memory = memorySdk());
    const laser = AgdxClient.from(new MemoryLog(), { stream: 'demo' });
    await laser.bootstrap(2);
    instrument(laser, { tracerProvider: sdk.tracerProvider, meterProvider: sdk.meterProvider });
    const session = sessions(laser).create('traced');
    await session.append('instruction', 'hello');
    expect((await session.context()).length).toBe(1);
    await session.checkpoint();
    const spans = sdk.spans().filter((s) => s.name.startsWith('session '));
    expect(spans.map((s) => s.name)).toEqual(['session append', 'session context', 'session checkpoint']);
    for (const span of spans) {
      expect(span.kind).toBe(SpanKind.INTERNAL);
      expect(span.attributes['gen_ai.conversation.id']).toBe(session.conversation.toString());
      expect(span.status.code).not.toBe(SpanStatusCode.ERROR);
    }
    expect(spans[0]?.attributes['messaging.destination.name']).toBe(session.config.topicFor('instruction'));
  });

  it('a failed operation ends its span with ERROR and the caller still gets the error', async () => {
    const sdk = (memory = memorySdk());
    // No bootstrap: the turn topic is missing, so the append fails in the log.
    const laser = AgdxClient.from(new MemoryLog(), { stream: 'demo' });
    instrument(laser, { tracerProvider: sdk.tracerProvider, meterProvider: sdk.meterProvider });
    await expect(sessions(laser).create('broken').append('instruction', 'hello')).rejects.toThrow();
    const span = sdk.spans().find((s) => s.name === 'session append');
    expect(span?.status.code).toBe(SpanStatusCode.ERROR);
  });
});
