import { CodecError } from '@agdx/wire';
import { decode } from 'cbor2';
import { isBytes } from './bytes.js';
import { CborWriter } from './cbor-writer.js';
import { encodeContextBytes } from './signature-context.js';
import type { Signature } from '@agdx/wire';
import { MAX_SIGNATURE_BYTES } from './cbor-caps.js';

/** Scheme code of Ed25519, the only scheme this package signs and verifies. */
export const ED25519_SCHEME = 1;

const SURFACE = 'signature';

function fail(message: string): CodecError {
  return new CodecError(message, { context: { surface: SURFACE } });
}

function uint(value: unknown, name: string, max: number): number {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 && value <= max) return value;
  if (typeof value === 'bigint' && value >= 0n && value <= BigInt(max)) return Number(value);
  throw fail(`field \`${name}\` in signature must be an unsigned integer up to ${max}`);
}

/** Reads a decoded Signature map (as cbor2 returns it with `preferMap`). */
export function signatureFromMap(value: unknown): Signature {
  if (!(value instanceof Map)) throw fail('signature must be a CBOR map');
  const scheme = value.get('scheme');
  const keyId = value.get('key_id');
  const bytes = value.get('bytes');
  if (scheme === undefined) throw fail('missing required field `scheme` in signature');
  if (!isBytes(keyId)) throw fail('field `key_id` in signature must be a byte string');
  if (!isBytes(bytes)) throw fail('field `bytes` in signature must be a byte string');
  const base = { scheme: uint(scheme, 'scheme', 0xff), keyId: keyId.slice(), bytes: bytes.slice() };
  const ctx = value.get('context');
  if (ctx === undefined) return base;
  if (!(ctx instanceof Map)) throw fail('field `context` in signature must be a map');
  const ct = ctx.get('content_type');
  const av = ctx.get('agent_version');
  const context: { contentType?: number; agentVersion?: number } = {};
  if (ct !== undefined) context.contentType = uint(ct, 'content_type', 0xff);
  if (av !== undefined) context.agentVersion = uint(av, 'agent_version', 0xffffffff);
  return { ...base, context };
}

/**
 * Decodes a standalone Signature capsule (`{scheme, key_id, bytes, context?}`).
 *
 * @throws CodecError for malformed CBOR, fields of the wrong type, or more than
 *   {@link MAX_SIGNATURE_BYTES} bytes (refused before decoding).
 */
export function decodeSignatureCapsule(bytes: Uint8Array): Signature {
  if (!isBytes(bytes)) throw fail('signature must be bytes');
  if (bytes.length > MAX_SIGNATURE_BYTES) throw fail(`signature is ${bytes.length}B, exceeds cap ${MAX_SIGNATURE_BYTES}B`);
  let value: unknown;
  try {
    value = decode(bytes, { preferMap: true, rejectDuplicateKeys: true, rejectStreaming: true });
  } catch (cause) {
    throw new CodecError('signature is not valid CBOR', { cause, context: { surface: SURFACE } });
  }
  return signatureFromMap(value);
}

/** Canonical CBOR of a Signature capsule: `scheme`, `key_id`, `bytes`, then `context` when bound. */
export function encodeSignatureCapsule(signature: Signature): Uint8Array {
  const w = new CborWriter().map(signature.context === undefined ? 3 : 4);
  w.text('scheme').uint(signature.scheme);
  w.text('key_id').bytes(signature.keyId);
  w.text('bytes').bytes(signature.bytes);
  if (signature.context !== undefined) w.text('context').raw(encodeContextBytes(signature.context));
  return w.finish();
}
