import { InvalidError } from '@agdx/wire';

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

function uintHead(value: number): number[] {
  if (value < 24) return [value];
  if (value < 0x100) return [0x18, value];
  if (value < 0x10000) return [0x19, value >> 8, value & 0xff];
  return [0x1a, (value >>> 24) & 0xff, (value >>> 16) & 0xff, (value >>> 8) & 0xff, value & 0xff];
}

// "content_type" and "agent_version" as CBOR text strings.
const CONTENT_TYPE_KEY = [0x6c, ...'content_type'].map((c) => (typeof c === 'number' ? c : c.charCodeAt(0)));
const AGENT_VERSION_KEY = [0x6d, ...'agent_version'].map((c) => (typeof c === 'number' ? c : c.charCodeAt(0)));

/**
 * Canonical CBOR of a signature context: a map with `content_type` then `agent_version`,
 * each only when present. This is the middle part of the signing input.
 *
 * @throws InvalidError when a value is outside its u8 / u32 range.
 */
export function encodeContextBytes(ctx: SignatureContextFields): Uint8Array {
  const out: number[] = [];
  let count = 0;
  if (ctx.contentType !== undefined) {
    checkUint('content_type', ctx.contentType, 0xff);
    out.push(...CONTENT_TYPE_KEY, ...uintHead(ctx.contentType));
    count++;
  }
  if (ctx.agentVersion !== undefined) {
    checkUint('agent_version', ctx.agentVersion, 0xffffffff);
    out.push(...AGENT_VERSION_KEY, ...uintHead(ctx.agentVersion));
    count++;
  }
  return Uint8Array.from([0xa0 + count, ...out]);
}
