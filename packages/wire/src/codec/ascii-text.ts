/**
 * Short ASCII text straight from input bytes. Agent names, operations and metadata keys are mostly
 * under 17 bytes; for those one `String.fromCharCode` call with the bytes as direct arguments costs
 * about half of `String.fromCharCode.apply` over a gathered array (measured on Node 20), which is
 * why the argument lists below are spelled out per length.
 * @internal
 */

/** Longest text {@link asciiText} accepts. */
export const MAX_ASCII_TEXT = 48;

/** One reusable char-code array per length above the spelled-out ones, so `apply` sees the exact count. */
const units: number[][] = Array.from({ length: MAX_ASCII_TEXT + 1 }, (_, n) => new Array<number>(n).fill(0));

const c = String.fromCharCode;

/**
 * The string of the `n` (at most {@link MAX_ASCII_TEXT}) bytes at `s` of `b`, which the caller has
 * checked are all below 0x80 and within the array.
 */
export function asciiText(b: Uint8Array, s: number, n: number): string {
  const x = b as unknown as number[];
  switch (n) {
    case 0: return '';
    case 1: return c(x[s]!);
    case 2: return c(x[s]!, x[s + 1]!);
    case 3: return c(x[s]!, x[s + 1]!, x[s + 2]!);
    case 4: return c(x[s]!, x[s + 1]!, x[s + 2]!, x[s + 3]!);
    case 5: return c(x[s]!, x[s + 1]!, x[s + 2]!, x[s + 3]!, x[s + 4]!);
    case 6: return c(x[s]!, x[s + 1]!, x[s + 2]!, x[s + 3]!, x[s + 4]!, x[s + 5]!);
    case 7: return c(x[s]!, x[s + 1]!, x[s + 2]!, x[s + 3]!, x[s + 4]!, x[s + 5]!, x[s + 6]!);
    case 8: return c(x[s]!, x[s + 1]!, x[s + 2]!, x[s + 3]!, x[s + 4]!, x[s + 5]!, x[s + 6]!, x[s + 7]!);
    case 9: return c(x[s]!, x[s + 1]!, x[s + 2]!, x[s + 3]!, x[s + 4]!, x[s + 5]!, x[s + 6]!, x[s + 7]!, x[s + 8]!);
    case 10: return c(x[s]!, x[s + 1]!, x[s + 2]!, x[s + 3]!, x[s + 4]!, x[s + 5]!, x[s + 6]!, x[s + 7]!, x[s + 8]!, x[s + 9]!);
    case 11: return c(x[s]!, x[s + 1]!, x[s + 2]!, x[s + 3]!, x[s + 4]!, x[s + 5]!, x[s + 6]!, x[s + 7]!, x[s + 8]!, x[s + 9]!, x[s + 10]!);
    case 12: return c(x[s]!, x[s + 1]!, x[s + 2]!, x[s + 3]!, x[s + 4]!, x[s + 5]!, x[s + 6]!, x[s + 7]!, x[s + 8]!, x[s + 9]!, x[s + 10]!, x[s + 11]!);
    case 13: return c(x[s]!, x[s + 1]!, x[s + 2]!, x[s + 3]!, x[s + 4]!, x[s + 5]!, x[s + 6]!, x[s + 7]!, x[s + 8]!, x[s + 9]!, x[s + 10]!, x[s + 11]!, x[s + 12]!);
    case 14: return c(x[s]!, x[s + 1]!, x[s + 2]!, x[s + 3]!, x[s + 4]!, x[s + 5]!, x[s + 6]!, x[s + 7]!, x[s + 8]!, x[s + 9]!, x[s + 10]!, x[s + 11]!, x[s + 12]!, x[s + 13]!);
    case 15: return c(x[s]!, x[s + 1]!, x[s + 2]!, x[s + 3]!, x[s + 4]!, x[s + 5]!, x[s + 6]!, x[s + 7]!, x[s + 8]!, x[s + 9]!, x[s + 10]!, x[s + 11]!, x[s + 12]!, x[s + 13]!, x[s + 14]!);
    case 16: return c(x[s]!, x[s + 1]!, x[s + 2]!, x[s + 3]!, x[s + 4]!, x[s + 5]!, x[s + 6]!, x[s + 7]!, x[s + 8]!, x[s + 9]!, x[s + 10]!, x[s + 11]!, x[s + 12]!, x[s + 13]!, x[s + 14]!, x[s + 15]!);
    default: {
      const u = units[n] as number[];
      for (let i = 0; i < n; i++) u[i] = x[s + i]!;
      return c.apply(null, u);
    }
  }
}
