/**
 * Iggy's text form of `message_expiry` (`IggyExpiry::from_str`): a few exact keywords, else a
 * `humantime` duration such as `"15m"` or `"1h 30m"`, at most u32::MAX seconds. The duration
 * grammar follows humantime 2 (the version Iggy 0.9 builds with): whitespace (Rust's set) may
 * stand before and after the whole and between the numbers and the units, even inside a number;
 * units are case-sensitive (`M` is months, `m` minutes); any other character is an error. So a
 * leading U+FEFF is refused, as on Iggy, and so are padded keywords (`" unlimited"`).
 */

import { EXPIRY_NEVER } from '@agdx/iggy-protocol';
import { isRustWhitespace } from './rust-whitespace.js';

/** Nanoseconds per unit, by humantime's unit names. */
const UNIT_NANOS: ReadonlyMap<string, bigint> = new Map([
  ...['nanos', 'nsec', 'ns'].map((u) => [u, 1n] as const),
  ...['usec', 'us', 'µs'].map((u) => [u, 1_000n] as const),
  ...['millis', 'msec', 'ms'].map((u) => [u, 1_000_000n] as const),
  ...['seconds', 'second', 'secs', 'sec', 's'].map((u) => [u, 1_000_000_000n] as const),
  ...['minutes', 'minute', 'min', 'mins', 'm'].map((u) => [u, 60_000_000_000n] as const),
  ...['hours', 'hour', 'hr', 'hrs', 'h'].map((u) => [u, 3_600_000_000_000n] as const),
  ...['days', 'day', 'd'].map((u) => [u, 86_400_000_000_000n] as const),
  ...['weeks', 'week', 'wk', 'wks', 'w'].map((u) => [u, 604_800_000_000_000n] as const),
  // humantime's month is 30.44 days and its year 365.25 days.
  ...['months', 'month', 'M'].map((u) => [u, 2_630_016_000_000_000n] as const),
  ...['years', 'year', 'yr', 'yrs', 'y'].map((u) => [u, 31_557_600_000_000_000n] as const),
]);

const NEVER_KEYWORDS: ReadonlySet<string> = new Set(['unlimited', 'none', 'None', 'Unlimited', 'never_expire']);
const DEFAULT_KEYWORDS: ReadonlySet<string> = new Set(['default', 'server_default', 'Default', 'Server_default']);
const MAX_SECONDS = 4_294_967_295n;
const U64_MAX = (1n << 64n) - 1n;

const isDigit = (c: string): boolean => c >= '0' && c <= '9';
const isUnitChar = (c: string): boolean => (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c === 'µ';

/** A humantime duration in nanoseconds, or `undefined` where humantime returns an error. */
export function parseHumanDuration(text: string): bigint | undefined {
  const chars = [...text];
  let i = 0;
  // The next number's first digit, past whitespace; null at the end; undefined on anything else.
  const firstDigit = (): bigint | null | undefined => {
    for (; i < chars.length; i++) {
      const c = chars[i] as string;
      if (isDigit(c)) return BigInt(chars[i++] as string);
      if (!isRustWhitespace(c)) return undefined;
    }
    return null;
  };
  let n = firstDigit();
  if (n === null || n === undefined) return undefined;
  let total = 0n;
  for (;;) {
    // The number: digits, with whitespace allowed between them, up to the unit's first letter.
    for (; i < chars.length; i++) {
      const c = chars[i] as string;
      if (isDigit(c)) {
        n = n * 10n + BigInt(c);
        if (n > U64_MAX) return undefined;
      } else if (isUnitChar(c)) break;
      else if (!isRustWhitespace(c)) return undefined;
    }
    // The unit: letters up to whitespace, the next number's digit, or the end.
    const start = i;
    while (i < chars.length && isUnitChar(chars[i] as string)) i++;
    const scale = UNIT_NANOS.get(chars.slice(start, i).join(''));
    if (scale === undefined) return undefined;
    total += n * scale;
    if (i < chars.length && isDigit(chars[i] as string)) {
      n = BigInt(chars[i++] as string);
      continue;
    }
    if (i < chars.length && !isRustWhitespace(chars[i] as string)) return undefined;
    const next = firstDigit();
    if (next === undefined) return undefined;
    if (next === null) return total;
    n = next;
  }
}

/**
 * `message_expiry` text as Iggy reads it, in µs: {@link EXPIRY_NEVER} for its never keywords,
 * 0 (the server default) for its default keywords and for a zero duration; `undefined` when
 * Iggy refuses it (the caller answers InvalidOptionValue).
 */
export function parseExpiryText(text: string): bigint | undefined {
  if (NEVER_KEYWORDS.has(text)) return EXPIRY_NEVER;
  if (DEFAULT_KEYWORDS.has(text)) return 0n;
  const nanos = parseHumanDuration(text);
  if (nanos === undefined || nanos / 1_000_000_000n > MAX_SECONDS) return undefined;
  return nanos / 1_000n;
}
