import { InvalidError } from '@agdx/wire';

/** A JSON value whose integers were read exactly as bigints (other numbers stay numbers). */
export type ExactJson = null | boolean | number | bigint | string | readonly ExactJson[] | { readonly [key: string]: ExactJson };

const MAX_DEPTH = 64;

/**
 * Parses JSON text keeping every integer literal exact as a bigint, because `JSON.parse` would
 * round offsets above 2^53 and Node 20 has neither `JSON.rawJSON` nor reviver source access.
 * @throws InvalidError `a checkpoint must be JSON` for anything that is not one JSON text.
 */
export function parseExactJson(text: string): ExactJson {
  let i = 0;
  const fail = (): never => {
    throw new InvalidError('a checkpoint must be JSON', { context: { at: i } });
  };
  const ws = (): void => {
    while (i < text.length) {
      const c = text.charCodeAt(i);
      if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) i++;
      else break;
    }
  };
  const str = (): string => {
    const start = i;
    i++;
    let simple = true;
    while (i < text.length) {
      const c = text.charCodeAt(i);
      if (c === 0x22) break;
      if (c < 0x20) fail();
      if (c === 0x5c) {
        simple = false;
        i += 2;
        continue;
      }
      i++;
    }
    if (i >= text.length) fail();
    i++;
    const raw = text.slice(start, i);
    if (simple) return raw.slice(1, -1);
    try {
      return JSON.parse(raw) as string;
    } catch {
      return fail();
    }
  };
  const num = (): number | bigint => {
    const match = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/.exec(text.slice(i, i + 400));
    if (match === null) return fail();
    i += match[0].length;
    if (match[2] === undefined && match[3] === undefined) return BigInt(match[0]);
    return Number(match[0]);
  };
  const value = (depth: number): ExactJson => {
    if (depth > MAX_DEPTH) fail();
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      const out: Record<string, ExactJson> = Object.create(null) as Record<string, ExactJson>;
      ws();
      if (text[i] === '}') {
        i++;
        return out;
      }
      for (;;) {
        ws();
        if (text[i] !== '"') fail();
        const key = str();
        ws();
        if (text[i] !== ':') fail();
        i++;
        out[key] = value(depth + 1);
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === '}') {
          i++;
          return out;
        }
        return fail();
      }
    }
    if (c === '[') {
      i++;
      const out: ExactJson[] = [];
      ws();
      if (text[i] === ']') {
        i++;
        return out;
      }
      for (;;) {
        out.push(value(depth + 1));
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === ']') {
          i++;
          return out;
        }
        return fail();
      }
    }
    if (c === '"') return str();
    if (text.startsWith('true', i)) {
      i += 4;
      return true;
    }
    if (text.startsWith('false', i)) {
      i += 5;
      return false;
    }
    if (text.startsWith('null', i)) {
      i += 4;
      return null;
    }
    return num();
  };
  if (typeof text !== 'string') return fail();
  const result = value(0);
  ws();
  if (i !== text.length) fail();
  return result;
}
