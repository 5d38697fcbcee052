import type { SeededRandom } from './seeded-random.js';

// Length fields are where decoders go wrong, so mutations favour the values around limits.
const INTERESTING_U32: readonly number[] = [0, 1, 0x7f, 0x80, 0xff, 0x100, 0xffff, 0x10000, 0x7fffffff, 0x80000000, 0xffffffff];

function writeU32(bytes: Uint8Array, at: number, value: number): void {
  for (let i = 0; i < 4 && at + i < bytes.length; i++) bytes[at + i] = (value >>> (8 * i)) & 0xff;
}

/**
 * A mutated copy of `input`: bit flips, byte overwrites, extreme little-endian length words,
 * truncation, extension, duplicated or deleted spans (one to four of them). The input is left
 * untouched.
 */
export function mutateBytes(random: SeededRandom, input: Uint8Array): Uint8Array {
  let bytes = input.slice();
  const rounds = 1 + random.int(4);
  for (let r = 0; r < rounds; r++) {
    const at = bytes.length === 0 ? 0 : random.int(bytes.length);
    switch (random.int(7)) {
      case 0:
        if (bytes.length > 0) bytes[at] = (bytes[at] ?? 0) ^ (1 << random.int(8));
        break;
      case 1:
        if (bytes.length > 0) bytes[at] = random.int(256);
        break;
      case 2:
        writeU32(bytes, at, random.pick(INTERESTING_U32));
        break;
      case 3:
        bytes = bytes.slice(0, at);
        break;
      case 4: {
        const extra = random.bytes(1 + random.int(64));
        const grown = new Uint8Array(bytes.length + extra.length);
        grown.set(bytes.subarray(0, at));
        grown.set(extra, at);
        grown.set(bytes.subarray(at), at + extra.length);
        bytes = grown;
        break;
      }
      case 5: {
        const end = Math.min(bytes.length, at + 1 + random.int(32));
        const span = bytes.slice(at, end);
        const grown = new Uint8Array(bytes.length + span.length);
        grown.set(bytes.subarray(0, end));
        grown.set(span, end);
        grown.set(bytes.subarray(end), end + span.length);
        bytes = grown;
        break;
      }
      default: {
        const end = Math.min(bytes.length, at + 1 + random.int(32));
        const shrunk = new Uint8Array(bytes.length - (end - at));
        shrunk.set(bytes.subarray(0, at));
        shrunk.set(bytes.subarray(end), at);
        bytes = shrunk;
      }
    }
  }
  return bytes;
}
