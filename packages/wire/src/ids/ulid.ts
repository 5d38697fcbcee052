import { InvalidError } from '../errors.js';

/** Where ULID minting takes its clock and its randomness; swap it in tests. */
export interface UlidSource {
  /** Current Unix time in milliseconds (only the low 48 bits are used). */
  nowMilliseconds(): number;
  /** Fills `bytes` with random bytes (10 at a time). */
  fillRandom(bytes: Uint8Array): void;
}

// Randomness is drawn from the CSPRNG a pool at a time: one getRandomValues call costs about as
// much as minting several ids, and an id needs only 10 bytes. Ids are public values, so holding
// their future randomness in memory exposes nothing a reader of the log will not see anyway.
const POOL_BYTES = 2560;
const pool = new Uint8Array(POOL_BYTES);
let poolAt = POOL_BYTES;

/** The platform source: `Date.now()` and `crypto.getRandomValues` (drawn a pool at a time). */
export const systemUlidSource: UlidSource = {
  nowMilliseconds: () => Date.now(),
  fillRandom: (bytes) => {
    const n = bytes.length;
    if (n > POOL_BYTES) {
      crypto.getRandomValues(bytes as Uint8Array<ArrayBuffer>);
      return;
    }
    if (poolAt + n > POOL_BYTES) {
      crypto.getRandomValues(pool);
      poolAt = 0;
    }
    // Each pooled byte is handed out once.
    for (let i = 0; i < n; i++) bytes[i] = pool[poolAt + i] as number;
    poolAt += n;
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

let advance: (generator: UlidGenerator) => Uint8Array;

/**
 * A monotonic ULID generator: a new millisecond draws fresh randomness; within the same millisecond
 * (or if the clock steps back) the previous random part is incremented by one, so ids minted by one
 * generator always sort in minting order.
 */
export class UlidGenerator {
  readonly #source: UlidSource;
  #lastMs = -1;
  readonly #last = new Uint8Array(16);
  // Reused for every draw: minting allocates nothing but the id the caller keeps.
  readonly #random = new Uint8Array(10);

  static {
    advance = (generator) => generator.#advance();
  }

  /** A generator over `source` (default: the platform clock and CSPRNG). */
  constructor(source: UlidSource = systemUlidSource) {
    this.#source = source;
  }

  /** The next ULID as 16 fresh big-endian bytes. */
  next(): Uint8Array {
    return this.#advance().slice();
  }

  /** Moves to the next ULID and returns the generator's own 16 bytes (overwritten by the next call). */
  #advance(): Uint8Array {
    const now = Math.floor(this.#source.nowMilliseconds()) % MS_MASK;
    const last = this.#last;
    if (this.#lastMs >= 0 && now <= this.#lastMs) {
      if (!incrementRandom(last)) {
        // 80 random bits exhausted in one millisecond: borrow the next millisecond.
        this.#lastMs = (this.#lastMs + 1) % MS_MASK;
        this.#draw(this.#lastMs);
      }
      return last;
    }
    this.#lastMs = now;
    this.#draw(now);
    return last;
  }

  /** Lays out `ms` and 10 fresh random bytes in `#last`. */
  #draw(ms: number): void {
    const random = this.#random;
    this.#source.fillRandom(random);
    const last = this.#last;
    let rest = ms < 0 ? ms + MS_MASK : ms;
    for (let i = 5; i >= 0; i--) {
      last[i] = rest % 256;
      rest = Math.floor(rest / 256);
    }
    for (let i = 0; i < 10; i++) last[6 + i] = random[i] as number;
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

/**
 * The next ULID of the process-wide generator as the generator's own 16 bytes: valid until the
 * next mint, so read them at once (an id constructor copies them into its words). @internal
 */
export function nextUlidBytes(): Uint8Array {
  return advance(current);
}
