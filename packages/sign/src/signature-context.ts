import { encodeSignatureContext, InvalidError } from '@agdx/wire';

/**
 * Record headers a signature binds: `agdx.ct` (content type code, u8) and `agdx.av` (agent
 * protocol version, u32). Structurally identical to @agdx/wire's `SignatureContext`.
 */
export interface SignatureContextFields {
  /** The `agdx.ct` content type code (u8). */
  readonly contentType?: number;
  /** The `agdx.av` agent protocol version (u32). */
  readonly agentVersion?: number;
}

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
export function encodeContextBytes(ctx: SignatureContextFields): Uint8Array {
  if (typeof ctx !== 'object' || ctx === null) throw new InvalidError('signature context must be an object');
  if (ctx.contentType !== undefined) checkUint('content_type', ctx.contentType, 0xff);
  if (ctx.agentVersion !== undefined) checkUint('agent_version', ctx.agentVersion, 0xffffffff);
  return encodeSignatureContext(ctx);
}
