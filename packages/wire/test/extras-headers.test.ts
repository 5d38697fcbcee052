import { describe, expect, test } from 'vitest';
import {
  AgentEnvelope,
  AgentId,
  contentTypeName,
  ConversationId,
  CorrelationId,
  decodeHeaderBlock,
  decodeProvenanceHeaders,
  encodeHeaderBlock,
  encodeProvenanceHeaders,
  envelopeRecord,
  readEnvelopeRecord,
  RecordId,
  stringHeader,
  uint128Header,
  type HeaderBlockFields,
} from '@agdx/wire';
import { divergences, errorOf, fixtureJson, fromHex, oracle } from './extras-support/fixtures.js';
import { headersFromOracle, headerToLogical, provenanceFromOracle, provenanceToOracle } from './extras-support/headers.js';

const divergent = divergences();

describe('seed-000 envelope header block (upstream-newer/header_block_envelope.json)', () => {
  const expected = fixtureJson<{ key: string; kind: string; value: unknown }[]>('upstream-newer/header_block_envelope.json');
  const byKey = new Map(expected.map((h) => [h.key, h.value]));

  test('is produced exactly (order, kinds, values)', () => {
    const to = byKey.get('agdx.to') as string | undefined;
    const fields: HeaderBlockFields = {
      conversation: ConversationId.parse(byKey.get('gen_ai.conversation.id') as string),
      parent: byKey.has('agdx.parent_conv') ? ConversationId.parse(byKey.get('agdx.parent_conv') as string) : undefined,
      root: byKey.has('agdx.root_conv') ? ConversationId.parse(byKey.get('agdx.root_conv') as string) : undefined,
      source: AgentId.parse(byKey.get('gen_ai.agent.id') as string),
      target: to !== undefined && to !== '*' ? AgentId.parse(to) : undefined,
    };
    const headers = encodeHeaderBlock(fields, byKey.get('agdx.ct') as number, { topic: to === '*' ? 'agent.sessions' : undefined });
    expect([...headers].map(([k, v]) => headerToLogical(k, v))).toEqual(expected);

    const decoded = decodeHeaderBlock(headers);
    expect(decoded.version).toBe(1);
    expect(decoded.conversation?.equals(fields.conversation)).toBe(true);
    expect(decoded.to).toEqual(to === '*' ? { broadcast: true } : { broadcast: false, agent: fields.target });
    expect(decoded.agent?.value).toBe(fields.source.value);
  });

  test('`*` only on shared session topics; a target always wins', () => {
    const base = { conversation: ConversationId.parse('00000000000000000000000002'), source: AgentId.parse('planner') };
    expect(encodeHeaderBlock(base, 0, { topic: 'agent.streams' }).has('agdx.to')).toBe(false);
    expect(encodeHeaderBlock(base, 0).has('agdx.to')).toBe(false);
    for (const topic of ['agent.sessions', 'agent.control']) {
      expect(decodeHeaderBlock(encodeHeaderBlock(base, 0, { topic })).to).toEqual({ broadcast: true });
    }
    const targeted = encodeHeaderBlock({ ...base, target: AgentId.parse('critic') }, 0, { topic: 'agent.sessions' });
    expect(decodeHeaderBlock(targeted).to).toEqual({ broadcast: false, agent: AgentId.parse('critic') });
  });

  test('readers accept the older uint128 little-endian conversation header', () => {
    const conv = ConversationId.parse('01J0Y1ZAG00000000000000002');
    const decoded = decodeHeaderBlock(new Map([['gen_ai.conversation.id', uint128Header(conv.toBigInt())]]));
    expect(decoded.conversation?.equals(conv)).toBe(true);
  });

  test('a 256-byte agent id (legal on the wire) is refused as a header value', () => {
    const source = AgentId.parse('a'.repeat(256));
    const err = errorOf(() => encodeHeaderBlock({ conversation: ConversationId.parse('00000000000000000000000002'), source }, 0));
    expect(err).toMatchObject({ class: 'InvalidError', message: 'header `gen_ai.agent.id` value is 256B, exceeds max 255B' });
  });

  test('wrong kinds and bad ids are CodecErrors naming the header', () => {
    expect(errorOf(() => decodeHeaderBlock(new Map([['agdx.av', stringHeader('1')]])))).toMatchObject({
      class: 'CodecError',
      message: 'invalid value for header `agdx.av`',
    });
    expect(errorOf(() => decodeHeaderBlock(new Map([['gen_ai.conversation.id', stringHeader('not-an-id')]])))?.message).toBe(
      'invalid value for header `gen_ai.conversation.id`',
    );
  });

  test('envelopeRecord keys by conversation and carries the block', () => {
    const env = AgentEnvelope.command(
      RecordId.parse('01J0Y1ZAG00000000000000001'),
      ConversationId.parse('01J0Y1ZAG00000000000000002'),
      AgentId.parse('planner'),
      CorrelationId.parse('01J0Y1ZAG00000000000000005'),
      new TextEncoder().encode('{}'),
    );
    const record = envelopeRecord(env, 1);
    expect(record.partitionKey).toBe('01J0Y1ZAG00000000000000002');
    expect([...record.headers.keys()]).toEqual(['agdx.av', 'agdx.ct', 'gen_ai.agent.id', 'gen_ai.conversation.id']);
    const back = readEnvelopeRecord(record.headers, record.payload);
    expect(back.kind).toBe('envelope');
    expect(back.kind === 'envelope' && back.envelope.conversation.equals(env.conversation)).toBe(true);
  });
});

describe('typed provenance headers (upstream-newer/header_block_generic.json)', () => {
  const expected = fixtureJson<{ key: string; kind: string; value: unknown }[]>('upstream-newer/header_block_generic.json');
  const v = new Map(expected.map((h) => [h.key, h.value]));

  test('is produced exactly', () => {
    const provenance = {
      conversation: ConversationId.parse(v.get('gen_ai.conversation.id') as string),
      parent: ConversationId.parse(v.get('agdx.parent_conv') as string),
      root: ConversationId.parse(v.get('agdx.root_conv') as string),
      cause: v.get('agdx.cause') as string,
      agent: v.get('gen_ai.agent.id') as string,
      target: v.get('agdx.to') as string,
      idempotencyKey: v.get('agdx.idem') as string,
      correlation: v.get('agdx.corr') as string,
      fence: BigInt(v.get('agdx.fence') as string),
      deadlineMicros: BigInt(v.get('agdx.deadline') as string),
      usage: {
        inputTokens: BigInt(v.get('gen_ai.usage.input_tokens') as string),
        outputTokens: BigInt(v.get('gen_ai.usage.output_tokens') as string),
        costUsd: v.get('agdx.cost') as number,
      },
    };
    const headers = encodeProvenanceHeaders(provenance);
    expect([...headers].map(([k, h]) => headerToLogical(k, h))).toEqual(expected);
    expect(provenanceToOracle(decodeProvenanceHeaders(headers))).toEqual(provenanceToOracle(provenance));
  });
});

describe('provenance headers (oracle/provenance_headers.json, typed per the seeds)', () => {
  const data = oracle('provenance_headers');
  test.each(data.cases as any[])('$id $name', (c) => {
    const provenance = provenanceFromOracle(c.provenance);
    if (c.error) {
      const err = errorOf(() => encodeProvenanceHeaders(provenance));
      expect(err?.class).toBe(c.error.class);
      expect(err?.message).toBe(c.error.message);
      return;
    }
    const headers = encodeProvenanceHeaders(provenance);
    // 0.1.1 writes every value as a string in insertion order; we write typed values sorted by
    // key. What still applies: the same names, and the same values once read back as text.
    const ours = [...headers].map(([k, h]) => {
      const l = headerToLogical(k, h);
      return [k, typeof l.value === 'number' ? String(l.value) : l.value];
    });
    const theirs = (c.headers as any[]).map((h) => [h.name, h.value]);
    expect(ours).toEqual([...theirs].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    expect([...headers.keys()]).toEqual([...headers.keys()].sort());
    expect(provenanceToOracle(decodeProvenanceHeaders(headers))).toEqual(c.decoded);
    // And the 0.1.1 all-string layout still reads.
    expect(provenanceToOracle(decodeProvenanceHeaders(headersFromOracle(c.headers)))).toEqual(c.decoded);
  });
});

describe('receive classification (oracle/receive.json)', () => {
  const data = oracle('receive');
  // A `note` starting with `docs:` marks a case where the docs and 0.1.1 disagree; we follow the docs.
  const docsCases = (data.cases as any[]).filter((c) => typeof c.note === 'string' && c.note.startsWith('docs:'));
  test('every docs divergence is recorded in extras-divergences.json, and no entry is stale', () => {
    const recorded = Object.keys(divergent).filter((id) => id.startsWith('public/receive/'));
    expect(recorded.sort()).toEqual(docsCases.map((c) => c.id).sort());
  });
  test.each(data.cases as any[])('$id $name', (c) => {
    const headers = headersFromOracle(c.input.headers);
    const run = () => readEnvelopeRecord(headers, fromHex(c.input.payload_hex), BigInt(c.input.understood_features));
    if (docsCases.includes(c)) {
      // Documented divergence: the docs accept the legacy uint128 conversation on plain records.
      const result = run();
      expect(result.kind).toBe('plain');
      const le = c.input.headers.find((h: any) => h.name === 'gen_ai.conversation.id').value_hex_le as string;
      expect(result.provenance.conversation.toBigInt()).toBe(BigInt(`0x${le.match(/../g)!.reverse().join('')}`));
      return;
    }
    if (c.outcome.kind === 'error') {
      const err = (() => {
        try {
          run();
          return undefined;
        } catch (e) {
          return e as any;
        }
      })();
      expect(err?.name).toBe(c.outcome.error.class);
      expect(err?.message).toBe(c.outcome.error.message);
      expect(err?.cause?.name).toBe(c.outcome.error.cause.class);
      expect(err?.cause?.message).toBe(c.outcome.error.cause.message);
      return;
    }
    const result = run();
    expect(result.kind).toBe(c.outcome.envelope === null ? 'plain' : 'envelope');
    expect(provenanceToOracle(result.provenance)).toEqual(c.outcome.provenance);
    const ct = result.contentType === undefined ? null : (contentTypeName(result.contentType) ?? null);
    expect(ct).toBe(c.outcome.content_type);
    if (result.kind === 'envelope') {
      expect(result.envelope.kind).toBe(c.outcome.envelope.kind);
      expect(result.envelope.conversation.toString()).toBe(c.outcome.envelope.conversation);
      expect(result.envelope.source.value).toBe(c.outcome.envelope.source);
      const sc = result.envelope.signature?.context;
      const expectedSc = c.outcome.signature_context;
      if (expectedSc !== null && result.envelope.signature !== undefined) {
        expect({ content_type: sc?.contentType, agent_version: sc?.agentVersion }).toEqual(expectedSc);
      }
    } else {
      expect(result.payload).toEqual(fromHex(c.input.payload_hex));
    }
    // `id` (partition:offset) and `observed_at_micros` come from the transport, not from this
    // function; they are checked by the agent runtime's receive path.
  });
});
