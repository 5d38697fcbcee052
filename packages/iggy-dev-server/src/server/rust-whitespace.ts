/**
 * Whitespace as Iggy's Rust parsers see it: `char::is_whitespace` and `str::trim` use Unicode's
 * White_Space property. JavaScript's `trim()` and `\s` use another set: they also strip U+FEFF
 * (the byte order mark, not White_Space) and miss U+0085 (NEXT LINE, which is). Text the server
 * parses must be trimmed the Rust way, or `"\ufeff15m"` would pass here and fail on Iggy.
 */

const WHITE_SPACE = /^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]$/u;
const LEADING = /^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/u;
const TRAILING = /[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+$/u;

/** Rust's `char::is_whitespace` for one code point. */
export function isRustWhitespace(char: string): boolean {
  return WHITE_SPACE.test(char);
}

/** Rust's `str::trim`: strips White_Space code points (never U+FEFF) from both ends. */
export function rustTrim(text: string): string {
  return text.replace(LEADING, '').replace(TRAILING, '');
}
