import { encodeSignatureContext, InvalidError } from '@agdx/wire';
import type { SignatureContext } from '@agdx/wire';

function checkUint(name: string, value: number, max: number): void {
  if (!Number.isInteger(value) || value < 0 || value > max) {
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
  if (typeof ctx !== 'object' || ctx === null) throw new InvalidError('signature context must be an object');
  if (ctx.contentType !== undefined) checkUint('content_type', ctx.contentType, 0xff);
  if (ctx.agentVersion !== undefined) checkUint('agent_version', ctx.agentVersion, 0xffffffff);
  return encodeSignatureContext(ctx);
}
