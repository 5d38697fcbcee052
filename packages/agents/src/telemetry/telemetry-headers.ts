/**
 * Adds a telemetry hook's string headers (trace context) to a record's header block without
 * disturbing the AGDX headers or breaking the header-block limits.
 */
import { checkHeaderValue, HEADER_FRAMING_BYTES, HEADER_SOFT_CAP, HEADER_VALUE_MAX, headerBlockSize, sortHeaders, type HeaderValue, type RecordHeaders } from '@agdx/wire';

/** At most this many pairs are taken from a hook, so a runaway hook cannot bloat every record. */
export const MAX_TELEMETRY_HEADERS = 4;

const encoder = new TextEncoder();

/**
 * A new header block, sorted by key like every AGDX block: `headers` plus up to
 * {@link MAX_TELEMETRY_HEADERS} string pairs from `extra`. A pair is skipped when the block
 * already has its key, when its key or value is empty, longer than 255 UTF-8 bytes or holds
 * control characters, or when it would push the block over the 1,024-byte soft cap: telemetry
 * may lose its context, a record never fails because of it.
 */
export function withTelemetryHeaders(headers: RecordHeaders, extra: ReadonlyArray<readonly [string, string]>): RecordHeaders {
  const out = new Map<string, HeaderValue>(headers);
  let total = headerBlockSize(headers);
  let taken = 0;
  for (const pair of extra) {
    if (taken >= MAX_TELEMETRY_HEADERS) break;
    const [key, value] = pair;
    if (typeof key !== 'string' || typeof value !== 'string' || out.has(key)) continue;
    if (key.length === 0 || key.length > HEADER_VALUE_MAX || value.length > HEADER_VALUE_MAX) continue;
    const keyBytes = encoder.encode(key).length;
    const header: HeaderValue = { kind: 'string', value: encoder.encode(value) };
    if (keyBytes > HEADER_VALUE_MAX || !validValue(key, header)) continue;
    const size = keyBytes + header.value.length + HEADER_FRAMING_BYTES;
    if (total + size > HEADER_SOFT_CAP) continue;
    out.set(key, header);
    total += size;
    taken++;
  }
  return taken === 0 ? headers : sortHeaders(out);
}

function validValue(key: string, value: HeaderValue): boolean {
  try {
    checkHeaderValue(key, value);
    return true;
  } catch {
    return false;
  }
}
