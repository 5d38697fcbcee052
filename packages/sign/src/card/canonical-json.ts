import { SignatureError } from '../errors.js';

const MAX_DEPTH = 200;

/** A JSON value an Agent Card may hold. */
export type CardJson = string | number | boolean | null | readonly CardJson[] | { readonly [key: string]: CardJson };

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

// Keys sort by Unicode code point, which is also UTF-8 byte order, so the payload matches the Rust
// SDK's byte-sorted maps. It differs from plain UTF-16 comparison only when a key holds a character
// above U+FFFF (a surrogate pair) where another holds one in U+E000..U+FFFF. The 0.1.1 reference
// used locale collation instead; see the README's Conformance section.
function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // Both surrogate (or both not): UTF-16 order already equals code point order.
    const xs = x >= 0xd800 && x <= 0xdfff;
    const ys = y >= 0xd800 && y <= 0xdfff;
    if (xs === ys) return x - y;
    // A surrogate starts a code point above U+FFFF, which sorts after every BMP character.
    return xs ? 1 : -1;
  }
  return a.length - b.length;
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
    for (const key of Object.keys(value).sort(compareCodePoints)) {
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
 * no whitespace, object keys sorted by Unicode code point (UTF-8 byte order), arrays in order, JSON string
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
