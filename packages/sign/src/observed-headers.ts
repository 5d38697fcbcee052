import type { HeaderValue, RecordHeaders, SignatureContext } from '@agdx/wire';

/**
 * The record headers a reader observed, in either shape: the Iggy header map
 * (`RecordHeaders` of @agdx/wire: `ReadonlyMap<string, {kind, value}>`, numbers little-endian),
 * or the already-parsed `{contentType?, agentVersion?}`.
 */
export type ObservedHeaders = RecordHeaders | SignatureContext;

const UNSIGNED_KINDS: ReadonlySet<string> = new Set(['uint8', 'uint16', 'uint32', 'uint64']);

// A present but unreadable header can never equal a signed value, so it maps to NaN.
function headerUint(headers: RecordHeaders, name: string): number | undefined {
  const header: HeaderValue | undefined = headers.get(name);
  if (header === undefined) return undefined;
  if (typeof header !== 'object' || header === null || !(header.value instanceof Uint8Array)) return Number.NaN;
  if (!UNSIGNED_KINDS.has(header.kind)) return Number.NaN;
  const bytes = header.value;
  if (bytes.length === 0 || bytes.length > 8) return Number.NaN;
  let value = 0n;
  for (let i = bytes.length - 1; i >= 0; i--) value = (value << 8n) | BigInt(bytes[i]!);
  return value > BigInt(Number.MAX_SAFE_INTEGER) ? Number.NaN : Number(value);
}

/** The `agdx.ct` / `agdx.av` values of observed headers, in context form. */
export function observedContext(headers: ObservedHeaders): { contentType: number | undefined; agentVersion: number | undefined } {
  // Any map-like object counts (a transport may hand over its own ReadonlyMap implementation).
  if (typeof (headers as { get?: unknown } | undefined)?.get === 'function') {
    const map = headers as RecordHeaders;
    return { contentType: headerUint(map, 'agdx.ct'), agentVersion: headerUint(map, 'agdx.av') };
  }
  const plain = (headers ?? {}) as SignatureContext;
  return { contentType: plain.contentType, agentVersion: plain.agentVersion };
}
