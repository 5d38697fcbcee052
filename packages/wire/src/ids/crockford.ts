import { InvalidError } from '../errors.js';

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** ASCII code → 5-bit value, or -1. Lowercase is folded here so no Unicode case mapping ever runs. */
const DECODE: Int8Array = (() => {
  const table = new Int8Array(128).fill(-1);
  for (let i = 0; i < ALPHABET.length; i++) {
    const upper = ALPHABET.charCodeAt(i);
    table[upper] = i;
    if (upper >= 0x41) table[upper + 0x20] = i;
  }
  return table;
})();

const ALPHABET_CODES: readonly number[] = Array.from(ALPHABET, (c) => c.charCodeAt(0));
// The 26 character codes of the text being built: one flat string from fromCharCode is far
// cheaper than 26 concatenations that a later Map lookup must flatten.
const codes: number[] = new Array<number>(26).fill(0);

/**
 * Encodes 16 big-endian bytes as the 26-character canonical Crockford base32 text
 * (5 bits per character from the least significant end; the first character carries 3 bits).
 */
export function encodeCrockford(bytes16: Uint8Array): string {
  if (bytes16.length !== 16) {
    throw new InvalidError(`id bytes must be 16 bytes, got ${bytes16.length}`, { context: { got: bytes16.length } });
  }
  return encodeCrockfordAt(bytes16, 0);
}

/** {@link encodeCrockford} of the 16 bytes at `at` of `buf` (the caller checked they are there). @internal */
export function encodeCrockfordAt(buf: Uint8Array, at: number): string {
  // 130 bits of output over 128 bits of input: walk from the least significant end.
  let acc = 0;
  let bits = 0;
  let k = 25;
  for (let i = at + 15; i >= at; i--) {
    acc |= (buf[i] as number) << bits;
    bits += 8;
    while (bits >= 5) {
      codes[k--] = ALPHABET_CODES[acc & 31] as number;
      acc >>>= 5;
      bits -= 5;
    }
  }
  // 128 = 25 * 5 + 3: three bits remain for the leading character.
  codes[0] = ALPHABET_CODES[acc & 7] as number;
  return String.fromCharCode.apply(null, codes);
}

/**
 * Decodes 26-character Crockford base32 text into 16 big-endian bytes.
 *
 * Case folding is ASCII-only and Crockford aliases (I, L, O, U) are not mapped, so lookalikes such
 * as `ſ` (U+017F) are refused rather than silently read as `S`.
 * @throws InvalidError with the reference's messages for a wrong length, a foreign character or
 * a value above 128 bits.
 */
export function decodeCrockford(text: string): Uint8Array {
  if (text.length !== 26) {
    throw new InvalidError(`id must be 26 characters, got ${text.length}`, { context: { got: text.length } });
  }
  const values = new Uint8Array(26);
  for (let i = 0; i < 26; i++) {
    const code = text.charCodeAt(i);
    const v = code < 128 ? (DECODE[code] as number) : -1;
    if (v < 0) {
      const ch = String.fromCodePoint(text.codePointAt(i) as number);
      throw new InvalidError(`id contains invalid character \`${ch}\``, { context: { char: ch } });
    }
    values[i] = v;
  }
  if ((values[0] as number) > 7) {
    throw new InvalidError('id overflows 128 bits', { context: { text } });
  }
  const out = new Uint8Array(16);
  let acc = 0;
  let bits = 0;
  let pos = 15;
  for (let i = 25; i >= 0; i--) {
    acc |= (values[i] as number) << bits;
    bits += 5;
    if (bits >= 8) {
      out[pos--] = acc & 0xff;
      acc >>>= 8;
      bits -= 8;
    }
  }
  return out;
}
