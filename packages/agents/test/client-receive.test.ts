/**
 * oracle/receive.json through readAgentMessage: the receive rule (envelope iff `agdx.av`),
 * provenance, content type and typed errors. Cases whose `note` starts with `docs:` assert the
 * documented behaviour instead of the reference's (readers accept the older uint128 conversation
 * header on plain records).
 */
import { describe, expect, it } from 'vitest';
import { readAgentMessage, type AgentMessage } from '@agdx/agents';
import { AgdxError, ConversationId, contentTypeName } from '@agdx/wire';
import { fromHex, loadFixture } from './support-client/fixtures.js';
import { oracleHeaders, type OracleHeader } from './support-client/headers.js';
import { envelopeToLogical } from './support-client/logical.js';

interface ReceiveCase {
  id: string;
  name: string;
  note?: string;
  input: {
    headers: OracleHeader[];
    payload_hex: string;
    partition_id: number;
    offset: string;
    timestamp_micros?: string;
    understood_features: string;
  };
  outcome:
    | { kind: 'error'; error: { class: string; kind: string; message: string } }
    | {
        kind: 'message';
        provenance: Record<string, string>;
        envelope: Record<string, unknown> | null;
        content_type: string | null;
        id: { partition_id: number; offset: string };
        signature_context: { content_type?: number; agent_version?: number } | null;
        observed_at_micros: string | null;
      };
}

const file = loadFixture<{ reference: { package: string; version: string }; cases: ReceiveCase[] }>('oracle/receive.json');

function read(c: ReceiveCase): AgentMessage {
  return readAgentMessage(
    {
      partition: c.input.partition_id,
      offset: BigInt(c.input.offset),
      timestampMicros: BigInt(c.input.timestamp_micros ?? '0'),
      headers: oracleHeaders(c.input.headers),
      payload: fromHex(c.input.payload_hex),
    },
    { stream: 'oracle', topic: 'agent.sessions' },
    { understoodFeatures: BigInt(c.input.understood_features) },
  );
}

function provenanceOf(m: AgentMessage): Record<string, string> {
  const p = m.provenance;
  const out: Record<string, string> = { conversation_id: p.conversation.toString() };
  if (p.agent !== undefined) out.agent = p.agent.asStr();
  if (p.target !== undefined) out.target_agent_id = p.target.value;
  if (p.idempotencyKey !== undefined) out.idempotency_key = p.idempotencyKey;
  if (p.correlation !== undefined) out.correlation_id = p.correlation;
  if (p.deadlineMicros !== undefined) out.deadline_micros = p.deadlineMicros.toString();
  if (p.fence !== undefined) out.fence_token = p.fence.toString();
  return out;
}

describe('oracle receive.json via readAgentMessage', () => {
  it('is the 0.1.1 reference file', () => {
    expect(file.reference.package).toBe('@laserdata/laser-sdk');
    expect(file.reference.version).toBe('0.1.1');
  });

  for (const c of file.cases) {
    it(`${c.id} ${c.name}`, () => {
      if (c.note?.startsWith('docs:')) {
        // Documented behaviour: the older typed uint128 conversation header is accepted.
        const m = read(c);
        const conv = c.input.headers.find((h) => h.name === 'gen_ai.conversation.id');
        expect(conv?.value_hex_le).toBeDefined();
        expect(m.provenance.conversation.toString()).toBe(ConversationId.fromBytes(fromHex(conv!.value_hex_le!).reverse()).toString());
        expect(m.envelope).toBeUndefined();
        return;
      }
      const outcome = c.outcome;
      if (outcome.kind === 'error') {
        let thrown: unknown;
        try {
          read(c);
        } catch (error) {
          thrown = error;
        }
        expect(AgdxError.is(thrown, outcome.error.kind as never), `expected ${outcome.error.kind}, got ${String(thrown)}`).toBe(true);
        expect((thrown as Error).name).toBe(outcome.error.class);
        expect((thrown as Error).message).toBe(outcome.error.message);
        return;
      }
      const m = read(c);
      expect(provenanceOf(m)).toEqual(outcome.provenance);
      expect(m.envelope === undefined ? null : envelopeToLogical(m.envelope)).toEqual(outcome.envelope);
      expect(m.contentType === undefined ? null : (contentTypeName(m.contentType) ?? null)).toEqual(
        outcome.content_type === null ? null : outcome.content_type,
      );
      expect({ partition_id: m.id.partition, offset: m.id.offset.toString() }).toEqual(outcome.id);
      if (outcome.signature_context !== null) {
        expect(m.contentType).toBe(outcome.signature_context.content_type);
      }
      if (outcome.observed_at_micros !== null) expect(m.timestampMicros.toString()).toBe(outcome.observed_at_micros);
    });
  }
});
