/**
 * Whitespace as Iggy's Rust parsers see it: `char::is_whitespace` and `str::trim` use Unicode's
 * White_Space property. JavaScript's `trim()` and `\s` use another set: they also strip U+FEFF
 * (the byte order mark, not White_Space) and miss U+0085 (NEXT LINE, which is). Text the server
 * parses must be trimmed the Rust way, or `"\ufeff15m"` would pass here and fail on Iggy.
 */

// Unicode's White_Space code points, as one character class for the three patterns below.
const CLASS = '[\\t\\n\\v\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]';
const WHITE_SPACE = new RegExp(`^${CLASS}$`, 'u');
const LEADING = new RegExp(`^${CLASS}+`, 'u');
const TRAILING = new RegExp(`${CLASS}+$`, 'u');

/** Rust's `char::is_whitespace` for one code point. */
export function isRustWhitespace(char: string): boolean {
  return WHITE_SPACE.test(char);
}

/** Rust's `str::trim`: strips White_Space code points (never U+FEFF) from both ends. */
export function rustTrim(text: string): string {
  return text.replace(LEADING, '').replace(TRAILING, '');
}
