/** The record decoder of `agdx tail`: readable output for every record, typed or hostile. */
import { decodeRecord, figuresOf, formatRecord, ratioChartSvg, ratiosOf, readableBody } from '@agdx/cli';
import { headerValue, type LogRecord, type RecordHeaders } from '@agdx/transport';
import { AgentEnvelope, AgentId, ContentType, ConversationId, CorrelationId, encodeHeaderBlock, MintUlid, RecordId } from '@agdx/wire';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

function record(payload: Uint8Array, headers: RecordHeaders): LogRecord {
  return { partition: 1, offset: 7n, timestampMicros: 1_700_000_000_000_000n, headers, payload };
}

describe('decodeRecord', () => {
  it('shows an envelope with Crockford ids, headers and a JSON body', () => {
    const conversation = ConversationId.new();
    const correlation = MintUlid.mint(CorrelationId);
    const envelope = AgentEnvelope.command(MintUlid.mint(RecordId), conversation, AgentId.new('planner'), correlation, new TextEncoder().encode('{"ticket":42}'))
      .withTarget(AgentId.new('worker'))
      .withOperation('summarize');
    const headers = encodeHeaderBlock(envelope, ContentType.json, { topic: 'agent.sessions' });
    const decoded = decodeRecord('agent.sessions', record(envelope.encode(), headers));
    expect(decoded.kind).toBe('command');
    expect(decoded.offset).toBe('7');
    expect(decoded.fields['conversation']).toBe(conversation.toString());
    expect(decoded.fields['correlation']).toBe(correlation.toString());
    expect(decoded.fields['target']).toBe('worker');
    expect(decoded.fields['operation']).toBe('summarize');
    expect(decoded.headers['agdx.to']).toBe('worker');
    expect(decoded.contentType).toBe('json');
    expect(decoded.body).toEqual({ ticket: 42 });
    const text = formatRecord(decoded, true);
    expect(text).toContain('agent.sessions[1]@7 command summarize');
    expect(text).toContain('header agdx.to');
    expect(JSON.parse(JSON.stringify(decoded))).toEqual(decoded);
  });

  it('formats hostile text as one escaped line per field: no terminal escapes, no forged lines', () => {
    const hostile = 'a\u001b[2J\r\nagent.sessions[0]@1 command forged\u0085\u202etxt';
    const decoded = decodeRecord('agent.commands', record(new TextEncoder().encode(hostile), new Map([['x-note', headerValue.string(hostile)]])));
    const text = formatRecord(decoded, true);
    expect(text).toContain('body             a\\x1b[2J\\r\\nagent.sessions[0]@1 command forged\\x85\\u{202e}txt');
    expect(text).toContain('header x-note    a\\x1b[2J');
    expect(text.split('\n')).toHaveLength(3);
    expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e]/);
  });

  it('shows a plain record by its provenance headers', () => {
    const decoded = decodeRecord('agent.commands', record(new TextEncoder().encode('summarize the ticket'), new Map([['gen_ai.conversation.id', headerValue.string('5DD4NKQAN5D8VA7ZZRG8ZSN1R1')]])));
    expect(decoded.kind).toBe('plain');
    expect(decoded.fields['conversation']).toBe('5DD4NKQAN5D8VA7ZZRG8ZSN1R1');
    expect(decoded.body).toBe('summarize the ticket');
  });

  it('renders bodies by content type and never throws on bytes that do not fit it', () => {
    expect(readableBody(new TextEncoder().encode('not json'), ContentType.json)).toBe('not json');
    // a leading U+FEFF is shown as sent in text; JSON with a byte order mark is still parsed
    expect(readableBody(new TextEncoder().encode('\ufeffhello'), ContentType.raw)).toBe('\ufeffhello');
    expect(readableBody(new TextEncoder().encode('\ufeffhello'), undefined)).toBe('\ufeffhello');
    expect(readableBody(new TextEncoder().encode('he\ufeffllo'), undefined)).toBe('he\ufeffllo');
    expect(readableBody(new TextEncoder().encode('\ufeff{"a":"\ufeffb"}'), ContentType.json)).toEqual({ a: '\ufeffb' });
    expect(readableBody(new TextEncoder().encode('{"a":1}'), ContentType.json)).toEqual({ a: 1 });
    expect(readableBody(new TextEncoder().encode('\ufeffnot json'), ContentType.json)).toBe('\ufeffnot json');
    expect(readableBody(Uint8Array.of(0xa1, 0x61, 0x61, 0x01), ContentType.cbor)).toEqual({ a: 1 });
    expect(readableBody(Uint8Array.of(0xff, 0xfe), ContentType.cbor)).toMatch(/not CBOR/);
    expect(readableBody(Uint8Array.of(0xff, 0xfe), ContentType.raw)).toMatch(/2 bytes/);
    expect(readableBody(Uint8Array.of(1, 2, 3), ContentType.protobuf)).toBe('<3 bytes of protobuf>');
  });

  it('bounds the work on hostile bodies: huge declared counts are refused, big bodies summarised', () => {
    const zeros = new Uint8Array(1_000_005);
    zeros.set([0x9a, 0x00, 0x0f, 0x42, 0x40]); // an array of 1,000,000 zeros: over the item cap
    const started = performance.now();
    expect(readableBody(zeros, ContentType.cbor)).toMatch(/^<1000005 bytes, not CBOR/);
    expect(readableBody(new Uint8Array(2 * 1024 * 1024).fill(0x20), ContentType.json)).toMatch(/^<2097152 bytes of json, over the 1048576-byte display cap/);
    // Generous: before the strict reader, a 16 MiB array of zeros took seconds.
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(readableBody(Uint8Array.of(0x82, 0x1b, 0x00, 0x20, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x20), ContentType.cbor)).toEqual(['9007199254740992', -1]);
  });

  it('reports hostile payloads and headers as undecodable instead of throwing', () => {
    const headerKinds = fc.constantFrom('raw', 'string', 'uint8', 'uint32', 'uint64', 'bool') as fc.Arbitrary<string>;
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.boolean(), fc.uint8Array({ minLength: 0, maxLength: 9 }), headerKinds, (payload, enveloped, headerBytes, kind) => {
        const headers = new Map<string, unknown>();
        if (enveloped) headers.set('agdx.av', { kind: 'uint32', value: Uint8Array.of(1, 0, 0, 0) } as never);
        headers.set('agdx.ct', { kind, value: headerBytes } as never);
        const decoded = decodeRecord('agent.sessions', record(payload, headers as unknown as RecordHeaders));
        expect(['plain', 'undecodable', 'command', 'response', 'event', 'status', 'error', 'chunk']).toContain(decoded.kind);
        expect(typeof formatRecord(decoded, true)).toBe('string');
        JSON.stringify(decoded);
      }),
      { numRuns: 500 },
    );
  });
});

describe('bench report', () => {
  const result = {
    name: 'x',
    ours: { opsPerSec: 2_000 },
    baseline: { opsPerSec: 1_000 },
    ratio: { oursVsBaseline: 2 },
    append: { batch1: { memoryLogRecordsPerSec: 10, baselineArrayPushRecordsPerSec: 20, ratio: 0.5 } },
  };

  it('finds ratios and figures wherever a bench puts them', () => {
    expect(ratiosOf('x', result).map((r) => [r.metric, r.ratio])).toEqual([
      ['ratio.oursVsBaseline', 2],
      ['append.batch1.ratio', 0.5],
    ]);
    const figures = figuresOf('x', result).map((f) => `${f.side}:${f.metric}=${f.value}`);
    expect(figures).toEqual(
      expect.arrayContaining(['ours:opsPerSec=2000', 'baseline:opsPerSec=1000', 'ours:append.batch1.memoryLogRecordsPerSec=10', 'baseline:append.batch1.baselineArrayPushRecordsPerSec=20']),
    );
  });

  it('draws one bar per ratio with escaped labels', () => {
    const svg = ratioChartSvg([...ratiosOf('x', result), { bench: '<b>', metric: 'a&b', ratio: 30 }], 'title');
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg.match(/<rect x=/g)).toHaveLength(3);
    expect(svg).toContain('&lt;b&gt; · a&amp;b');
  });
});
