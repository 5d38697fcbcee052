import { CAPSULE_LIMITS } from '../cbor/capsule-limits.js';
import { FieldReader } from '../cbor/fields.js';
import { encodeCbor, type CborValue } from '../cbor/strict.js';
import { InvalidError } from '../errors.js';

/** Largest BodyRef `reference`, in UTF-8 bytes. */
export const MAX_BODY_REF_REFERENCE_BYTES = 1024;

/** A claim-check pointer: the body lives in a blob store, the envelope carries this instead. */
export interface BodyRef {
  /** URI, object key or KV key of the stored bytes (1–1024 UTF-8 bytes). */
  readonly reference: string;
  /** Exact length of the stored bytes. */
  readonly sizeBytes: bigint;
  /** SHA-256 of the stored bytes (32 bytes). */
  readonly sha256: Uint8Array;
  /** Encryption scheme code; absent means plaintext (no codes are assigned yet). */
  readonly encryption?: number;
}

const SURFACE = 'body ref';
const encoder = new TextEncoder();

/** Checks the documented BodyRef rules (InvalidError with `context.field`). */
export function validateBodyRef(ref: BodyRef): void {
  const bytes = encoder.encode(ref.reference).length;
  if (bytes === 0) throw new InvalidError('reference must not be empty', { context: { field: 'reference' } });
  if (bytes > MAX_BODY_REF_REFERENCE_BYTES) {
    throw new InvalidError(`reference is ${bytes}B, exceeds cap ${MAX_BODY_REF_REFERENCE_BYTES}B`, { context: { field: 'reference' } });
  }
  if (ref.sha256.length !== 32) {
    throw new InvalidError(`digest must be 32 bytes, got ${ref.sha256.length}`, { context: { field: 'sha256' } });
  }
}

/** Encodes a BodyRef in the documented key order: reference, size_bytes, sha256, encryption. */
export function encodeBodyRef(ref: BodyRef): Uint8Array {
  const map = new Map<CborValue, CborValue>([
    ['reference', ref.reference],
    ['size_bytes', ref.sizeBytes],
    ['sha256', ref.sha256],
  ]);
  if (ref.encryption !== undefined) map.set('encryption', BigInt(ref.encryption));
  return encodeCbor(map);
}

/** Decodes a BodyRef (shape only; call {@link validateBodyRef} for the rules). CodecError on bad bytes. */
export function decodeBodyRef(bytes: Uint8Array): BodyRef {
  const r = FieldReader.decode(bytes, SURFACE, CAPSULE_LIMITS.bodyRef);
  const reference = r.text('reference');
  const sizeBytes = r.u64('size_bytes');
  const sha256 = r.bytes('sha256');
  const encryption = r.u8Opt('encryption');
  return encryption === undefined ? { reference, sizeBytes, sha256 } : { reference, sizeBytes, sha256, encryption };
}
