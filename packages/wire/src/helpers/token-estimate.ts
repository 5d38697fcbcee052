import { InvalidError } from '../errors.js';

const encoder = new TextEncoder();

/**
 * The AGDX token estimate: `ceil(bytes / 4)`, where a string counts its UTF-8 bytes and a
 * number is taken as a byte count. Used for budgets when a model reports no usage.
 */
export function estimateTokens(input: Uint8Array | string | number): number {
  let bytes: number;
  if (typeof input === 'number') {
    if (!Number.isSafeInteger(input) || input < 0) throw new InvalidError(`byte count must be a non-negative integer, got ${input}`);
    bytes = input;
  } else if (typeof input === 'string') {
    bytes = encoder.encode(input).length;
  } else {
    bytes = input.length;
  }
  return Math.ceil(bytes / 4);
}
