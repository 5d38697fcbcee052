import { SignatureError } from '../errors.js';

const MAX_DEPTH = 200;

/** A JSON value an Agent Card may hold. */
export type CardJson = string | number | boolean | null | readonly CardJson[] | { readonly [key: string]: CardJson };

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

// Keys sort by UTF-16 code unit (RFC 8785), which is what the default comparison does.
// The 0.1.1 reference used locale collation instead; see the README's Conformance section.
function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function write(value: unknown, depth: number, out: string[]): void {
  if (depth > MAX_DEPTH) throw new SignatureError('card nests too deeply to canonicalize');
  if (value === null) {
    out.push('null');
  } else if (typeof value === 'string') {
    out.push(JSON.stringify(value));
  } else if (typeof value === 'boolean') {
    out.push(value ? 'true' : 'false');
  } else if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) throw new SignatureError('card canonicalization only accepts safe integers');
    out.push(String(value));
  } else if (Array.isArray(value)) {
    out.push('[');
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out.push(',');
      write(value[i], depth + 1, out);
    }
    out.push(']');
  } else if (isPlainObject(value)) {
    out.push('{');
    let first = true;
    for (const key of Object.keys(value).sort(compareCodeUnits)) {
      const member = value[key];
      if (member === undefined) continue;
      if (!first) out.push(',');
      first = false;
      out.push(JSON.stringify(key), ':');
      write(member, depth + 1, out);
    }
    out.push('}');
  } else {
    throw new SignatureError(`card canonicalization does not accept ${typeof value} values`);
  }
}

/**
 * Canonical JSON of an Agent Card, the JWS payload: the top-level `signatures` member removed,
 * no whitespace, object keys sorted by UTF-16 code unit (RFC 8785), arrays in order, JSON string
 * escaping, numbers restricted to safe integers. Members whose value is `undefined` are left
 * out, as JSON.stringify does.
 *
 * @throws SignatureError `agent card must be an object`,
 *   `card canonicalization only accepts safe integers`, or for values JSON cannot carry.
 */
export function canonicalCardJson(card: unknown): string {
  if (!isPlainObject(card)) throw new SignatureError('agent card must be an object');
  const { signatures: _signatures, ...rest } = card;
  const out: string[] = [];
  write(rest, 0, out);
  return out.join('');
}
