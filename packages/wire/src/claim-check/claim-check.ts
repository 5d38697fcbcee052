import { sha256 } from '@noble/hashes/sha2.js';
import { IntegrityError, InvalidError } from '../errors.js';
import { BlobNotFoundError, type BlobStore } from './blob-store.js';
import { decodeBodyRef, encodeBodyRef, type BodyRef } from './body-ref.js';

/** Content type code `ref`: the body is an encoded BodyRef. */
export const CONTENT_TYPE_REF = 8;

/** The outcome of {@link checkIn}. */
export interface CheckedIn {
  /** The body to send: the original payload, or the encoded BodyRef. */
  readonly payload: Uint8Array;
  /** True when the payload went to the store. */
  readonly stored: boolean;
  /** `ref` (8) when stored; undefined means "keep your content type". */
  readonly contentType: number | undefined;
  /** The BodyRef, when stored. */
  readonly bodyRef: BodyRef | undefined;
}

/**
 * Claim check: a payload of at least `threshold` bytes is stored and replaced by a BodyRef
 * (content type `ref`); a smaller one stays inline untouched.
 */
export async function checkIn(store: BlobStore, threshold: number, payload: Uint8Array): Promise<CheckedIn> {
  if (!Number.isSafeInteger(threshold) || threshold < 0) {
    throw new InvalidError(`claim-check threshold must be a non-negative integer, got ${threshold}`);
  }
  if (payload.length < threshold) return { payload, stored: false, contentType: undefined, bodyRef: undefined };
  const digest = sha256(payload);
  const reference = await store.put(payload);
  const bodyRef: BodyRef = { reference, sizeBytes: BigInt(payload.length), sha256: digest };
  return { payload: encodeBodyRef(bodyRef), stored: true, contentType: CONTENT_TYPE_REF, bodyRef };
}

/** Compares two byte strings in time that depends only on their lengths. */
export function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= (a[i] as number) ^ (b[i] as number);
  return diff === 0;
}

/**
 * Resolves a claim-checked body: decodes the BodyRef, fetches the blob, then checks the size
 * and the SHA-256 (constant-time). A mismatch is IntegrityError `blob at `ref` failed integrity
 * verification`; a missing blob is {@link BlobNotFoundError}; bad BodyRef bytes are CodecError.
 */
export async function resolveBody(store: BlobStore, payload: Uint8Array): Promise<Uint8Array> {
  const ref = decodeBodyRef(payload);
  const bytes = await store.get(ref.reference);
  if (bytes === undefined) {
    throw new BlobNotFoundError(`blob at \`${ref.reference}\` was not found`, { context: { reference: ref.reference } });
  }
  const fail = (): IntegrityError =>
    new IntegrityError(`blob at \`${ref.reference}\` failed integrity verification`, { context: { reference: ref.reference } });
  if (BigInt(bytes.length) !== ref.sizeBytes) throw fail();
  if (!constantTimeEqual(sha256(bytes), ref.sha256)) throw fail();
  return bytes;
}
