/** Oracle header lists ({name, kind, value | value_hex_le}) → Iggy RecordHeaders. */
import type { HeaderKind, HeaderValue, RecordHeaders } from '@agdx/wire';
import { fromHex } from './fixtures.js';

/** One oracle header. */
export interface OracleHeader {
  name: string;
  kind: string;
  value?: number | string | boolean;
  value_hex_le?: string;
}

const WIDTH: Record<string, number> = { uint8: 1, uint16: 2, uint32: 4, uint64: 8, int8: 1, int16: 2, int32: 4, int64: 8 };

function headerValue(h: OracleHeader): HeaderValue {
  if (h.value_hex_le !== undefined) return { kind: h.kind as HeaderKind, value: fromHex(h.value_hex_le) };
  if (h.kind === 'string') return { kind: 'string', value: new TextEncoder().encode(String(h.value)) };
  const width = WIDTH[h.kind];
  if (width === undefined) throw new Error(`unhandled oracle header kind ${h.kind}`);
  const out = new Uint8Array(width);
  let v = BigInt(h.value as number);
  for (let i = 0; i < width; i++) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return { kind: h.kind as HeaderKind, value: out };
}

/** Converts an oracle header list to a header map (insertion order kept). */
export function oracleHeaders(list: readonly OracleHeader[]): RecordHeaders {
  return new Map(list.map((h) => [h.name, headerValue(h)]));
}
