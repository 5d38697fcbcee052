import { describe, expect, it } from 'vitest';
import type { AgdxTelemetry, SessionSpan } from '@agdx/agents';
import { sessions } from '@agdx/sessions';
import { decodeProvenanceHeaders } from '@agdx/wire';
import { setup } from './helpers.js';

const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
const text = (value: { kind: string; value: unknown } | undefined) => (value?.kind === 'string' ? new TextDecoder().decode(value.value as Uint8Array) : undefined);

// A hook whose append spans hand these pairs to the record.
function hookWith(headers: ReadonlyArray<readonly [string, string]> | (() => never)): AgdxTelemetry {
  const span = typeof headers === 'function' ? { get headers() { return headers(); }, end: () => undefined } : { headers, end: () => undefined };
  return { onSession: () => span as SessionSpan } as unknown as AgdxTelemetry;
}

describe('session appends and telemetry headers', () => {
  it('a turn record carries the hook’s trace context beside its provenance', async () => {
    const { laser } = await setup();
    await sessions(laser).bootstrap(2);
    laser.instrument(hookWith([['traceparent', TRACEPARENT], ['tracestate', 'vendor=1']]));
    const session = sessions(laser).create('traced');
    await session.append('instruction', 'hello');
    const [turn] = await session.turns();
    const headers = turn!.message.headers;
    expect(text(headers.get('traceparent'))).toBe(TRACEPARENT);
    expect(text(headers.get('tracestate'))).toBe('vendor=1');
    // The block stays sorted by key and the provenance is untouched.
    expect([...headers.keys()]).toEqual([...headers.keys()].sort());
    expect(decodeProvenanceHeaders(headers).conversation?.equals(session.conversation)).toBe(true);
  });

  it('pairs breaking the header rules, or clashing with provenance, are dropped and the append still lands', async () => {
    const { laser } = await setup();
    await sessions(laser).bootstrap(2);
    const session = sessions(laser).create('hostile');
    await session.append('instruction', 'first');
    const [provenanceKey] = [...(await session.turns())[0]!.message.headers.keys()] as [string];
    laser.instrument(hookWith([[provenanceKey, 'overwritten?'], ['traceparent', 'x'.repeat(300)], ['tracestate', 'bad\nvalue'], ['', 'empty key']]));
    await session.append('instruction', 'second');
    laser.instrument(hookWith(() => {
      throw new Error('getter bug');
    }));
    await session.append('instruction', 'third');
    const turns = await session.turns();
    expect(turns.map((t) => new TextDecoder().decode(t.message.payload))).toEqual(['first', 'second', 'third']);
    const second = turns[1]!.message.headers;
    expect(second.has('traceparent')).toBe(false);
    expect(second.has('tracestate')).toBe(false);
    expect(text(second.get(provenanceKey))).not.toBe('overwritten?');
    expect(decodeProvenanceHeaders(second).conversation?.equals(session.conversation)).toBe(true);
  });
});
