import { CAPSULE_LIMITS } from '../cbor/capsule-limits.js';
import { FieldReader } from '../cbor/fields.js';
import { encodeCbor, type CborValue } from '../cbor/strict.js';
import { CodecError, InvalidError } from '../errors.js';
import { cborToJson, jsonToCbor } from './json-cbor.js';
import { MAX_STATE_DOCUMENT_BYTES, parseJsonPatch, type JsonPatchOperation } from './json-patch.js';
import { isJsonObject, type JsonValue } from './json-value.js';

/** Most operations in one state delta. */
export const MAX_STATE_PATCH_OPS = 256;
/** Largest compact-JSON size of a state patch or document. */
export const MAX_STATE_JSON_BYTES: number = MAX_STATE_DOCUMENT_BYTES;

/** Status operation of a state snapshot event. */
export const STATE_SNAPSHOT_OPERATION = 'state_snapshot';
/** Status operation of a state delta event. */
export const STATE_DELTA_OPERATION = 'state_delta';

/** A state delta record body ([U] CBOR). */
export interface StateDelta {
  /** The revision the writer patched. */
  readonly baseRevision: bigint;
  /** RFC 6902 operations (≤ 256). */
  readonly patch: readonly JsonPatchOperation[];
  /** Writer-chosen id; a repeated id applies once. */
  readonly opId: string;
}

/** A state snapshot record body ([U] CBOR). */
export interface StateSnapshot {
  /** The revision the snapshot was written against. */
  readonly baseRevision: bigint;
  /** The whole state document (a JSON object). */
  readonly document: JsonValue;
}

const encoder = new TextEncoder();

function checkJsonSize(value: unknown, what: string): void {
  const bytes = encoder.encode(JSON.stringify(value)).length;
  if (bytes > MAX_STATE_JSON_BYTES) {
    throw new InvalidError(`\`${what}\` is ${bytes}B, exceeds cap ${MAX_STATE_JSON_BYTES}B`, { context: { field: what, bytes, cap: MAX_STATE_JSON_BYTES } });
  }
}

/** Checks the documented StateDelta rules (InvalidError). */
export function validateStateDelta(delta: StateDelta): void {
  if (typeof delta.opId !== 'string' || delta.opId.length === 0) throw new InvalidError('`op_id` must not be empty', { context: { field: 'op_id' } });
  parseJsonPatch(delta.patch);
  if (delta.patch.length > MAX_STATE_PATCH_OPS) {
    throw new InvalidError(`\`patch\` is ${delta.patch.length} operations, exceeds cap ${MAX_STATE_PATCH_OPS}`, { context: { field: 'patch' } });
  }
  checkJsonSize(delta.patch, 'patch');
}

/** Checks the documented StateSnapshot rules (InvalidError). */
export function validateStateSnapshot(snapshot: StateSnapshot): void {
  if (!isJsonObject(snapshot.document)) throw new InvalidError('a state snapshot must be a JSON object', { context: { field: 'document' } });
  checkJsonSize(snapshot.document, 'document');
}

function opToCbor(op: JsonPatchOperation): CborValue {
  const map = new Map<CborValue, CborValue>([['op', op.op]]);
  if (op.op === 'move' || op.op === 'copy') map.set('from', op.from ?? '');
  map.set('path', op.path);
  if (op.op === 'add' || op.op === 'replace' || op.op === 'test') map.set('value', jsonToCbor(op.value ?? null));
  return map;
}

/** Validates and encodes a StateDelta: `base_revision`, `patch`, `op_id`. */
export function encodeStateDelta(delta: StateDelta): Uint8Array {
  validateStateDelta(delta);
  return encodeCbor(
    new Map<CborValue, CborValue>([
      ['base_revision', delta.baseRevision],
      ['patch', delta.patch.map(opToCbor)],
      ['op_id', delta.opId],
    ]),
  );
}

/** Validates and encodes a StateSnapshot: `base_revision`, `document`. */
export function encodeStateSnapshot(snapshot: StateSnapshot): Uint8Array {
  validateStateSnapshot(snapshot);
  return encodeCbor(
    new Map<CborValue, CborValue>([
      ['base_revision', snapshot.baseRevision],
      ['document', jsonToCbor(snapshot.document)],
    ]),
  );
}

/** Decodes and validates a StateDelta (CodecError on bad bytes, InvalidError on broken rules). */
export function decodeStateDelta(bytes: Uint8Array): StateDelta {
  const r = FieldReader.decode(bytes, 'state delta', CAPSULE_LIMITS.stateDelta);
  const baseRevision = r.u64('base_revision');
  const rawPatch = r.array('patch');
  if (rawPatch.length > MAX_STATE_PATCH_OPS) {
    throw new InvalidError(`\`patch\` is ${rawPatch.length} operations, exceeds cap ${MAX_STATE_PATCH_OPS}`, { context: { field: 'patch' } });
  }
  const patch = rawPatch.map((item) => {
    if (!(item instanceof Map)) throw new CodecError('expected a CBOR map for state delta.patch', { context: { surface: 'state delta.patch', operation: 'expect-map' } });
    return cborToJson(item, 'state delta.patch');
  });
  const delta: StateDelta = { baseRevision, patch: parseJsonPatch(patch), opId: r.text('op_id') };
  validateStateDelta(delta);
  return delta;
}

/** Decodes and validates a StateSnapshot. */
export function decodeStateSnapshot(bytes: Uint8Array): StateSnapshot {
  const r = FieldReader.decode(bytes, 'state snapshot', CAPSULE_LIMITS.stateSnapshot);
  const baseRevision = r.u64('base_revision');
  const raw = r.raw('document');
  if (raw === undefined) throw r.error('document', 'missing required field `document` in state snapshot');
  const snapshot: StateSnapshot = { baseRevision, document: cborToJson(raw, 'state snapshot.document') };
  validateStateSnapshot(snapshot);
  return snapshot;
}

