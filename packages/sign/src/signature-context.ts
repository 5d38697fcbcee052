import { encodeSignatureContext, InvalidError } from '@agdx/wire';
import type { SignatureContext } from '@agdx/wire';

function checkUint(name: string, value: number, max: number): void {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > max) {
    throw new InvalidError(`signature context ${name} must be an integer in 0..${max}`, { context: { field: name } });
  }
}

/**
 * Canonical CBOR of a signature context: a map with `content_type` then `agent_version`,
 * each only when present. This is the middle part of the signing input.
 *
 * @throws InvalidError when a value is outside its u8 / u32 range.
 */
export function encodeContextBytes(ctx: SignatureContext): Uint8Array {
  return sharedContextBytes(ctx).slice();
}

// Almost every record binds the same few (content type, version) pairs, so their encodings are
// kept; the map is bounded so hostile variety cannot grow it.
const cache = new Map<string, Uint8Array>();
const CACHE_LIMIT = 512;

/** Package-internal: the context encoding, possibly shared (callers copy it, never mutate it). */
export function sharedContextBytes(ctx: SignatureContext): Uint8Array {
  if (typeof ctx !== 'object' || ctx === null) throw new InvalidError('signature context must be an object');
  if (ctx.contentType !== undefined) checkUint('content_type', ctx.contentType, 0xff);
  if (ctx.agentVersion !== undefined) checkUint('agent_version', ctx.agentVersion, 0xffffffff);
  const key = `${String(ctx.contentType)}|${String(ctx.agentVersion)}`;
  let bytes = cache.get(key);
  if (bytes === undefined) {
    bytes = encodeSignatureContext(ctx);
    if (cache.size >= CACHE_LIMIT) cache.clear();
    cache.set(key, bytes);
  }
  return bytes;
}
