import { InvalidError } from '../errors.js';
import { AgentId } from '../ids/agent-id.js';
import { IdempotencyKey } from '../ids/idempotency-key.js';
import { LogPosition } from '../ids/log-position.js';
import { MachineId } from '../ids/machine-id.js';
import type { AgentEnvelope } from './agent-envelope.js';

// Envelopes can be built from untyped JavaScript (or cast data), so validation first proves every
// field has the runtime type the codec relies on; otherwise a wrong type would surface as a
// platform TypeError from deep inside the encoder instead of a typed InvalidError naming the field.

function wrongType(field: string, expected: string): InvalidError {
  return new InvalidError(`\`${field}\`: must be ${expected}`, { context: { field } });
}

function checkId(value: unknown, field: string, required: boolean): void {
  if (value === undefined && !required) return;
  if (!(value instanceof MachineId)) throw wrongType(field, 'a 128-bit id');
}

function checkAgent(value: unknown, field: string, required: boolean): void {
  if (value === undefined && !required) return;
  if (!(value instanceof AgentId)) throw wrongType(field, 'an AgentId');
}

function checkText(value: unknown, field: string): void {
  if (value !== undefined && typeof value !== 'string') throw wrongType(field, 'a string');
}

function checkBytes(value: unknown, field: string): void {
  if (!(value instanceof Uint8Array)) throw wrongType(field, 'a Uint8Array');
}

function checkUsage(value: unknown): void {
  if (value === undefined) return;
  if (typeof value !== 'object' || value === null) throw wrongType('usage', 'a TokenUsage object');
}

function checkMetadata(value: unknown): void {
  if (value === undefined) return;
  if (!(value instanceof Map)) throw wrongType('metadata', 'a Map of string keys');
  // forEach with a shared callback: no iterator object per envelope.
  value.forEach(checkMetadataKeyType);
}

function checkMetadataKeyType(_value: unknown, key: unknown): void {
  if (typeof key !== 'string') throw wrongType('metadata key', 'a string');
}

function checkSignature(value: unknown): void {
  if (value === undefined) return;
  if (typeof value !== 'object' || value === null) throw wrongType('signature', 'a Signature object');
  const sig = value as { keyId?: unknown; bytes?: unknown; context?: unknown };
  checkBytes(sig.keyId, 'key_id');
  checkBytes(sig.bytes, 'bytes');
  if (sig.context !== undefined && (typeof sig.context !== 'object' || sig.context === null)) {
    throw wrongType('context', 'a SignatureContext object');
  }
}

/**
 * Proves each field of `e` has the runtime type its declaration promises.
 * @throws InvalidError naming the first field of the wrong type.
 */
export function checkFieldShapes(e: AgentEnvelope): void {
  checkId(e.record, 'record', false);
  checkId(e.conversation, 'conversation', true);
  checkId(e.parent, 'parent', false);
  checkId(e.root, 'root', false);
  checkAgent(e.source, 'source', true);
  checkAgent(e.target, 'target', false);
  checkId(e.cause, 'cause', false);
  if (e.causeAt !== undefined && !(e.causeAt instanceof LogPosition)) throw wrongType('cause_at', 'a LogPosition');
  checkId(e.correlation, 'correlation', false);
  checkId(e.channel, 'channel', false);
  if (e.idempotencyKey !== undefined && !(e.idempotencyKey instanceof IdempotencyKey)) {
    throw wrongType('idempotency_key', 'an IdempotencyKey');
  }
  if (typeof e.last !== 'boolean') throw wrongType('last', 'a boolean');
  checkText(e.finishReason, 'finish_reason');
  checkText(e.operation, 'operation');
  checkText(e.tool, 'tool');
  checkUsage(e.usage);
  checkMetadata(e.metadata);
  checkBytes(e.body, 'body');
  checkSignature(e.signature);
}
