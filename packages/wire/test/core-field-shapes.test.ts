import { describe, expect, test } from 'vitest';
import { AgdxError, AgentEnvelope, AgentId, ConversationId, CorrelationId, encodeEnvelope, InvalidError, RecordId } from '@agdx/wire';

const base = AgentEnvelope.command(
  RecordId.fromBigInt(1n),
  ConversationId.fromBigInt(2n),
  AgentId.new('planner'),
  CorrelationId.fromBigInt(3n),
  new Uint8Array([1]),
);

// Untyped callers (plain JavaScript, JSON casts) can put anything into a field; validation and the
// low-level encoder must answer with a typed error naming the field, never a platform TypeError.
const wrong: Array<[string, Record<string, unknown>]> = [
  ['conversation', { conversation: 'not-an-id' }],
  ['record', { record: 42 }],
  ['source', { source: 'planner' }],
  ['target', { target: { value: 'x' } }],
  ['cause_at', { causeAt: new Uint8Array(20) }],
  ['idempotency_key', { idempotencyKey: 'k' }],
  ['operation', { operation: 7 }],
  ['tool', { tool: {} }],
  ['metadata', { metadata: { a: 1 } }],
  ['metadata key', { metadata: new Map([[1, 'x']]) }],
  ['body', { body: 'text' }],
  ['last', { last: 'yes' }],
  ['key_id', { signature: { scheme: 1, keyId: 'abc', bytes: new Uint8Array(64) } }],
];

describe('field shapes', () => {
  test.each(wrong)('a wrongly typed %s is an InvalidError naming the field', (field, patch) => {
    const broken = Object.assign(Object.create(AgentEnvelope.prototype), base, patch) as AgentEnvelope;
    let caught: unknown;
    try {
      broken.validate();
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(InvalidError);
    expect((caught as InvalidError).context?.['field']).toBe(field);
    let encodeError: unknown;
    try {
      encodeEnvelope(broken);
    } catch (error) {
      encodeError = error;
    }
    // The low-level encoder skips validation; whatever it does, it never leaks an untyped error.
    if (encodeError !== undefined) expect(AgdxError.is(encodeError)).toBe(true);
  });

  test('a well-typed envelope still validates', () => {
    expect(() => base.validate()).not.toThrow();
    expect(base.source.asStr()).toBe('planner');
  });
});
