import { describe, expect, test } from 'vitest';
import {
  AgentEnvelope,
  AgentErrorCode,
  AgentId,
  ContentType,
  contentTypeName,
  ConversationId,
  CorrelationId,
  DeadLetterReason,
  decodeAgentCard,
  decodeAgentDeadLetter,
  decodeAgentErrorBody,
  decodeAgentPresence,
  encodeAgentCard,
  encodeAgentDeadLetter,
  encodeAgentErrorBody,
  encodeAgentPresence,
  Health,
  LogPosition,
  RecordId,
  validateAgentCard,
  validateAgentPresence,
  type AgentCard,
  type AgentDeadLetter,
  type AgentErrorBody,
  type CapabilityDescriptor,
  type ContentRef,
} from '@agdx/wire';
import { codeFromLogical, errorCodeToLogical, healthToLogical, reasonToLogical, valueFromLogical, valueToLogical } from './extras-support/bodies.js';
import { errorOf, fromHex, oracle, toHex } from './extras-support/fixtures.js';

const data = oracle('bodies');
const handled = new Set(['error_bodies', 'cards', 'presence', 'dead_letters', 'token_usage', 'rejects']);

test('every bodies section is handled', () => {
  expect(Object.keys(data.sections).filter((s) => !handled.has(s))).toEqual([]);
});

// --- converters (one per body; logical JSON ⇄ typed) ---

function errorBodyFrom(j: any): AgentErrorBody {
  const body: any = { code: j.code_value ?? codeFromLogical(AgentErrorCode, j.code), retryable: j.retryable };
  if (j.message !== undefined) body.message = j.message;
  if (j.detail !== undefined) body.detail = new Map(j.detail.map(([k, v]: [string, any]) => [k, valueFromLogical(v)]));
  return body;
}
function errorBodyTo(b: AgentErrorBody, withCodeValue: boolean): any {
  const out: any = { code: errorCodeToLogical(b.code) };
  if (withCodeValue) out.code_value = b.code;
  if (b.message !== undefined) out.message = b.message;
  out.retryable = b.retryable;
  if (b.detail !== undefined) out.detail = [...b.detail].map(([k, v]) => [k, valueToLogical(v)]);
  return out;
}

function refFrom(j: any): ContentRef {
  return j.kind === 'contentType' ? { kind: 'contentType', contentType: (ContentType as any)[j.value] } : { kind: 'schemaId', schemaId: j.value };
}
function refTo(r: ContentRef): any {
  return r.kind === 'contentType' ? { kind: 'contentType', value: contentTypeName(r.contentType) } : { kind: 'schemaId', value: r.schemaId };
}
const CAP_INTS: [keyof CapabilityDescriptor, string][] = [
  ['costClass', 'cost_class'],
  ['latencyClass', 'latency_class'],
  ['maxConcurrency', 'max_concurrency'],
  ['load', 'load'],
];
function cardFrom(j: any): AgentCard {
  const card: any = {
    capabilities: (j.capabilities ?? []).map((c: any) => {
      const cap: any = { skillId: c.skill_id };
      if (c.input) cap.input = refFrom(c.input);
      if (c.output) cap.output = refFrom(c.output);
      for (const [k, w] of CAP_INTS) if (c[w] !== undefined) cap[k] = c[w];
      if (c.health) cap.health = codeFromLogical(Health, c.health);
      return cap;
    }),
  };
  if (j.name !== undefined) card.name = j.name;
  if (j.version !== undefined) card.version = j.version;
  if (j.ttl_micros !== undefined) card.ttlMicros = BigInt(j.ttl_micros);
  return card;
}
function cardTo(c: AgentCard): any {
  const out: any = {};
  if (c.name !== undefined) out.name = c.name;
  if (c.version !== undefined) out.version = c.version;
  {
    out.capabilities = c.capabilities.map((cap) => {
      const o: any = { skill_id: cap.skillId };
      if (cap.input) o.input = refTo(cap.input);
      if (cap.output) o.output = refTo(cap.output);
      for (const [k, w] of CAP_INTS.slice(0, 3)) if (cap[k] !== undefined) o[w] = cap[k];
      if (cap.health !== undefined) o.health = healthToLogical(cap.health);
      if (cap.load !== undefined) o.load = cap.load;
      return o;
    });
  }
  if (c.ttlMicros !== undefined) out.ttl_micros = c.ttlMicros.toString();
  return out;
}

function deadLetterFrom(j: any): AgentDeadLetter {
  const s = j.source;
  const letter: any = {
    source: new LogPosition(s.streamId, s.topicId, s.partitionId, BigInt(s.offset)),
    reason: j.reason_value ?? codeFromLogical(DeadLetterReason, j.reason),
    attempts: j.attempts,
    payload: fromHex(j.payload.hex),
  };
  if (j.detail !== undefined) letter.detail = j.detail;
  return letter;
}
function deadLetterTo(d: AgentDeadLetter): any {
  const out: any = {
    source: { streamId: d.source.streamId, topicId: d.source.topicId, partitionId: d.source.partitionId, offset: d.source.offset.toString() },
    reason: reasonToLogical(d.reason),
    attempts: d.attempts,
  };
  if (d.detail !== undefined) out.detail = d.detail;
  out.payload = { hex: toHex(d.payload) };
  return out;
}

function checkValidate(fn: () => void, expected: any): void {
  const err = errorOf(fn);
  if (expected === 'ok' || expected === undefined) expect(err).toBeUndefined();
  else expect(err).toMatchObject({ class: expected.class, message: expected.message, context: expected.context });
}

describe('bodies: error_bodies', () => {
  test.each(data.sections.error_bodies as any[])('$id', (c) => {
    expect(toHex(encodeAgentErrorBody(errorBodyFrom(c.body)))).toBe(c.cbor_hex);
    expect(errorBodyTo(decodeAgentErrorBody(fromHex(c.cbor_hex)), true)).toEqual(c.decoded);
  });
});

describe('bodies: cards', () => {
  test.each(data.sections.cards as any[])('$id', (c) => {
    const card = cardFrom(c.card);
    expect(toHex(encodeAgentCard(card))).toBe(c.cbor_hex);
    checkValidate(() => validateAgentCard(card), c.validate);
    if (c.validate === 'ok') {
      const decoded = cardTo(decodeAgentCard(fromHex(c.cbor_hex)));
      if (c.decoded !== undefined) expect(decoded).toEqual(c.decoded);
      else expect(decoded).toEqual(cardTo(card));
    } else {
      // A receiver refuses an over-cap card as well.
      checkValidate(() => decodeAgentCard(fromHex(c.cbor_hex)), c.validate);
    }
  });
});

describe('bodies: presence', () => {
  test.each(data.sections.presence as any[])('$id', (c) => {
    const presence = c.presence.inbox === undefined ? { agent: AgentId.parse(c.presence.agent) } : { agent: AgentId.parse(c.presence.agent), inbox: c.presence.inbox };
    checkValidate(() => validateAgentPresence(presence), c.validate);
    if (c.cbor_hex === undefined) return;
    expect(c.presence.v).toBe(1);
    expect(toHex(encodeAgentPresence(presence))).toBe(c.cbor_hex);
    const back = decodeAgentPresence(fromHex(c.cbor_hex));
    expect({ v: 1, agent: back.agent.value, ...(back.inbox === undefined ? {} : { inbox: back.inbox }) }).toEqual(c.decoded);
  });
});

describe('bodies: dead_letters', () => {
  test.each(data.sections.dead_letters as any[])('$id', (c) => {
    expect(toHex(encodeAgentDeadLetter(deadLetterFrom(c.dead_letter)))).toBe(c.cbor_hex);
    expect(deadLetterTo(decodeAgentDeadLetter(fromHex(c.cbor_hex)))).toEqual(c.decoded);
  });
});

describe('bodies: token_usage (as the envelope codec writes it)', () => {
  // TokenUsage has no standalone capsule API: it is written inside the envelope. We check that
  // the envelope's bytes carry exactly the `usage` map the oracle shows.
  test.each(data.sections.token_usage as any[])('$id', (c) => {
    const u = c.usage;
    const usage: any = { inputTokens: BigInt(u.input_tokens), outputTokens: BigInt(u.output_tokens) };
    if (u.reasoning_output_tokens !== undefined) usage.reasoningOutputTokens = BigInt(u.reasoning_output_tokens);
    if (u.cache_read_input_tokens !== undefined) usage.cacheReadInputTokens = BigInt(u.cache_read_input_tokens);
    if (u.cache_creation_input_tokens !== undefined) usage.cacheCreationInputTokens = BigInt(u.cache_creation_input_tokens);
    const env = AgentEnvelope.response(
      RecordId.parse('01J0Y1ZAG00000000000000001'),
      ConversationId.parse('01J0Y1ZAG00000000000000002'),
      AgentId.parse('a'),
      CorrelationId.parse('01J0Y1ZAG00000000000000005'),
      Uint8Array.of(1),
    ).withUsage(usage);
    expect(toHex(env.encode())).toContain(`657573616765${c.cbor_hex}`);
  });
});

describe('bodies: rejects (decode outcomes)', () => {
  const decoders: Record<string, (bytes: Uint8Array) => any> = {
    'error-body': (b) => errorBodyTo(decodeAgentErrorBody(b), false),
    card: (b) => {
      const card = decodeAgentCard(b);
      // This section shows decoded cards in the reference's camelCase API form.
      return {
        capabilities: card.capabilities.map((cap) => ({
          skillId: cap.skillId,
          ...(cap.health === undefined ? {} : { health: healthToLogical(cap.health) }),
        })),
      };
    },
    presence: (b) => decodeAgentPresence(b),
    'dead-letter': (b) => deadLetterTo(decodeAgentDeadLetter(b)),
  };
  test.each(data.sections.rejects as any[])('$id $name', (c) => {
    const decoder = decoders[String(c.name).split('/')[0] as string];
    if (decoder === undefined) throw new Error(`no decoder for ${c.name}`);
    const bytes = fromHex(c.cbor_hex);
    if (c.ok === false || c.error) {
      const err = errorOf(() => decoder(bytes));
      expect(err?.class).toBe(c.error.class);
      expect(err?.message).toBe(c.error.message);
      if (c.error.surface !== undefined) expect(err?.context).toMatchObject({ surface: c.error.surface, operation: c.error.operation });
      if (c.error.context !== undefined) expect(err?.context).toMatchObject(c.error.context);
    } else {
      expect(decoder(bytes)).toEqual(c.decoded);
    }
  });
});
