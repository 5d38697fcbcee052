/**
 * Iggy's text form of `max_topic_size` (`MaxTopicSize::from_str`, then `IggyByteSize::from_str`):
 * a few exact keywords, else a `byte-unit` 5 size such as `"10 MB"`, `"1.5GiB"` or `"80 Mb"`.
 * The grammar follows byte-unit's `Byte::from_str` (case-sensitive: a lowercase `b` means bits):
 * the text is trimmed the Rust way (U+FEFF is not whitespace there, so a leading BOM is refused,
 * as on Iggy), only ASCII spaces may stand between the number and the unit, a fraction rounds
 * the byte count up, and the result must fit in a u64.
 */

import { SIZE_UNLIMITED } from '@agdx/iggy-protocol';
import { rustTrim } from './rust-whitespace.js';

/** Bytes per unit prefix (decimal, then binary with `i`). */
const PREFIX_BYTES: ReadonlyMap<string, readonly [bigint, bigint]> = new Map([
  ['K', [1_000n, 1n << 10n]],
  ['M', [1_000_000n, 1n << 20n]],
  ['G', [1_000_000_000n, 1n << 30n]],
  ['T', [1_000_000_000_000n, 1n << 40n]],
  ['P', [1_000_000_000_000_000n, 1n << 50n]],
  ['E', [1_000_000_000_000_000_000n, 1n << 60n]],
]);
const U64_MAX = (1n << 64n) - 1n;
/** rust_decimal keeps at most 28 fraction digits. */
const MAX_FRACTION_DIGITS = 28;
/** Keywords `IggyByteSize::from_str` reads as zero bytes (so: the server default). */
const ZERO_KEYWORDS: ReadonlySet<string> = new Set(['0', 'unlimited', 'Unlimited', 'none', 'None']);

/**
 * The unit after the number, as byte-unit's `read_xib` reads it without ignoring case and
 * preferring bytes: `[bits per unit, 8]` as a fraction of a byte, or `undefined` if refused.
 */
function unitBits(unit: string): bigint | undefined {
  if (unit === '') return 8n;
  // "b"/"B" with an optional "it"/"its" tail; a lowercase b (or any "bit") means bits.
  const base = (tail: string, upper: boolean): boolean | undefined => {
    if (tail === '') return upper;
    return /^it[s]?$/i.test(tail) ? false : undefined;
  };
  const first = unit[0] as string;
  if (first === 'b' || first === 'B') {
    const byte = base(unit.slice(1), first === 'B');
    return byte === undefined ? undefined : byte ? 8n : 1n;
  }
  const prefix = PREFIX_BYTES.get(first.toUpperCase());
  if (prefix === undefined) return undefined;
  let rest = unit.slice(1);
  const binary = rest[0] === 'i' || rest[0] === 'I';
  if (binary) rest = rest.slice(1);
  const bytes = binary ? prefix[1] : prefix[0];
  // No base after the prefix: bytes ("10K", "10Ki").
  if (rest === '') return bytes * 8n;
  if (rest[0] !== 'b' && rest[0] !== 'B') return undefined;
  const byte = base(rest.slice(1), rest[0] === 'B');
  return byte === undefined ? undefined : byte ? bytes * 8n : bytes;
}

/** A byte-unit size in bytes, or `undefined` where `Byte::from_str` returns an error. */
export function parseByteSize(text: string): bigint | undefined {
  const match = /^(\d+)(?:\.(\d+))?( *)(.*)$/su.exec(rustTrim(text));
  if (match === null) return undefined;
  const [, whole = '', fraction = '', , unit = ''] = match;
  if (fraction.length > MAX_FRACTION_DIGITS) return undefined;
  const bits = unitBits(unit);
  if (bits === undefined) return undefined;
  // value × bits ÷ 8, rounded up, exactly: (whole.fraction × 10^k) × bits ÷ (8 × 10^k).
  const scale = 10n ** BigInt(fraction.length);
  const numerator = BigInt(whole + fraction) * bits;
  const denominator = 8n * scale;
  const bytes = (numerator + denominator - 1n) / denominator;
  return bytes > U64_MAX ? undefined : bytes;
}

/**
 * `max_topic_size` text as Iggy reads it, in bytes: {@link SIZE_UNLIMITED} for `"unlimited"` or
 * u64::MAX bytes, 0 (the server default) for its zero keywords and a zero size; `undefined`
 * when Iggy refuses it (the caller answers InvalidOptionValue).
 */
export function parseTopicSizeText(text: string): bigint | undefined {
  if (text === 'unlimited') return SIZE_UNLIMITED;
  if (text === 'server_default' || ZERO_KEYWORDS.has(text)) return 0n;
  const bytes = parseByteSize(text);
  if (bytes === undefined) return undefined;
  return bytes === U64_MAX ? SIZE_UNLIMITED : bytes;
}
