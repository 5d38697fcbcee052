import { InvalidError } from '../errors.js';

/** Where ULID minting takes its clock and its randomness; swap it in tests. */
export interface UlidSource {
  /** Current Unix time in milliseconds (only the low 48 bits are used). */
  nowMilliseconds(): number;
  /** Fills `bytes` with random bytes (10 at a time). */
  fillRandom(bytes: Uint8Array): void;
}

/** The platform source: `Date.now()` and `crypto.getRandomValues`. */
export const systemUlidSource: UlidSource = {
  nowMilliseconds: () => Date.now(),
  fillRandom: (bytes) => {
    crypto.getRandomValues(bytes as Uint8Array<ArrayBuffer>);
  },
};

const MS_MASK = 2 ** 48;

/**
 * Lays out a ULID: 48-bit milliseconds in the top six bytes, then 80 random bits (10 bytes, big-endian).
 * @throws InvalidError when `random10` is not 10 bytes.
 */
export function ulidBytes(nowMs: number, random10: Uint8Array): Uint8Array {
  if (random10.length !== 10) {
    throw new InvalidError(`ULID randomness must be 10 bytes, got ${random10.length}`, { context: { got: random10.length } });
  }
  const out = new Uint8Array(16);
  let ms = Math.floor(nowMs) % MS_MASK;
  if (ms < 0) ms += MS_MASK;
  for (let i = 5; i >= 0; i--) {
    out[i] = ms % 256;
    ms = Math.floor(ms / 256);
  }
  out.set(random10, 6);
  return out;
}

/**
 * A monotonic ULID generator: a new millisecond draws fresh randomness; within the same millisecond
 * (or if the clock steps back) the previous random part is incremented by one, so ids minted by one
 * generator always sort in minting order.
 */
export class UlidGenerator {
  readonly #source: UlidSource;
  #lastMs = -1;
  readonly #last = new Uint8Array(16);

  /** A generator over `source` (default: the platform clock and CSPRNG). */
  constructor(source: UlidSource = systemUlidSource) {
    this.#source = source;
  }

  /** The next ULID as 16 fresh big-endian bytes. */
  next(): Uint8Array {
    const now = Math.floor(this.#source.nowMilliseconds()) % MS_MASK;
    if (this.#lastMs >= 0 && now <= this.#lastMs) {
      if (!incrementRandom(this.#last)) {
        // 80 random bits exhausted in one millisecond: borrow the next millisecond.
        this.#lastMs = (this.#lastMs + 1) % MS_MASK;
        const fresh = new Uint8Array(10);
        this.#source.fillRandom(fresh);
        this.#last.set(ulidBytes(this.#lastMs, fresh));
      }
      return this.#last.slice();
    }
    const random = new Uint8Array(10);
    this.#source.fillRandom(random);
    this.#lastMs = now;
    this.#last.set(ulidBytes(now, random));
    return this.#last.slice();
  }
}

/** Adds one to the 80-bit random tail in place; false on overflow. */
function incrementRandom(id: Uint8Array): boolean {
  for (let i = 15; i >= 6; i--) {
    const v = (id[i] as number) + 1;
    if (v < 256) {
      id[i] = v;
      return true;
    }
    id[i] = 0;
  }
  return false;
}

let current = new UlidGenerator();

/** Replaces the process-wide ULID source (pass `undefined` to restore the platform source). */
export function setUlidSource(source: UlidSource | undefined): void {
  current = new UlidGenerator(source ?? systemUlidSource);
}

/** The next ULID bytes from the process-wide generator. @internal */
export function nextUlidBytes(): Uint8Array {
  return current.next();
}
