/** One known key: its interned name, its bytes and their hash. */
interface KeyEntry {
  readonly name: string;
  /** Position of the name in the list the table was built from. */
  readonly index: number;
  readonly bytes: Uint8Array;
  readonly hash: number;
}

/** Largest slot array tried while looking for a collision-free size. */
const MAX_SLOTS = 1 << 16;

/** Keys shorter than this (and starting with an ASCII byte) get a slot in the direct table. */
const DIRECT_MAX_LEN = 32;
/** Direct-table slot value: no known key has this length and first byte. */
const NONE = 0;

/**
 * Recognises known ASCII map keys straight from the input bytes and hands back an interned string,
 * so the decoder's hot path never allocates a string for a field name.
 *
 * Two lookups, both exact: a direct table indexed by (length, first byte), which for the envelope's
 * keys names one candidate (a few vocabularies have two, such as `card` and `chat`), so a lookup
 * is one array read and one comparison of the remaining bytes (no hashing, no scan); and for keys
 * too long for that table or not starting with an ASCII byte, a slot array sized so every known
 * key has a slot of its own (a perfect hash by table size).
 * @internal
 */
export class KeyTable {
  readonly #slots: (KeyEntry | undefined)[];
  readonly #mask: number;
  readonly #ordered: readonly KeyEntry[];
  /** (length << 7 | first byte) -> index + 1 of the one key there, or -(n + 1) for `#shared[n]`, or NONE. */
  readonly #direct: Int16Array;
  /** The indexes of the keys that share a direct slot. */
  readonly #shared: number[][] = [];

  constructor(names: readonly string[]) {
    const entries = names.map((name, index): KeyEntry => {
      const bytes = new Uint8Array(name.length);
      for (let i = 0; i < name.length; i++) bytes[i] = name.charCodeAt(i);
      return { name, index, bytes, hash: KeyTable.hash(bytes, 0, bytes.length) };
    });
    this.#ordered = entries;
    this.#direct = new Int16Array(DIRECT_MAX_LEN << 7);
    for (const e of entries) {
      const len = e.bytes.length;
      const first = e.bytes[0] as number;
      if (len === 0 || len >= DIRECT_MAX_LEN || first >= 0x80) continue;
      const slot = (len << 7) | first;
      const held = this.#direct[slot] as number;
      if (held === NONE) {
        this.#direct[slot] = e.index + 1;
      } else if (held > 0) {
        this.#shared.push([held - 1, e.index]);
        this.#direct[slot] = -this.#shared.length;
      } else {
        (this.#shared[-held - 1] as number[]).push(e.index);
      }
    }
    let slots: (KeyEntry | undefined)[] | undefined;
    let size = 8;
    for (; size <= MAX_SLOTS && slots === undefined; size *= 2) {
      const tried: (KeyEntry | undefined)[] = new Array<KeyEntry | undefined>(size).fill(undefined);
      if (entries.every((e) => (tried[e.hash & (size - 1)] === undefined ? ((tried[e.hash & (size - 1)] = e), true) : false))) slots = tried;
    }
    if (slots === undefined) throw new Error(`no collision-free key table up to ${MAX_SLOTS} slots`);
    this.#slots = slots;
    this.#mask = slots.length - 1;
  }

  /** A cheap 32-bit hash of `len` bytes at `start` (length-seeded FNV-1a). */
  static hash(buf: Uint8Array, start: number, len: number): number {
    let h = (0x811c9dc5 ^ len) >>> 0;
    for (let i = 0; i < len; i++) h = Math.imul(h ^ (buf[start + i] as number), 0x01000193);
    return h >>> 0;
  }

  /** The interned key when the bytes equal a known key exactly, else `undefined`. */
  match(buf: Uint8Array, start: number, len: number): string | undefined {
    const index = this.indexOf(buf, start, len);
    return index < 0 ? undefined : (this.#ordered[index] as KeyEntry).name;
  }

  /**
   * The position of the known key the `len` bytes at `start` spell (the caller has checked they
   * are within `buf`) in the list the table was built from, else -1. Lets a decoder dispatch with
   * a numeric `switch` (a jump table) instead of comparing strings.
   */
  indexOf(buf: Uint8Array, start: number, len: number): number {
    if (len > 0 && len < DIRECT_MAX_LEN) {
      const first = buf[start] as number;
      if (first < 0x80) {
        const slot = this.#direct[(len << 7) | first] as number;
        if (slot > 0) return this.#restMatches(slot - 1, buf, start, len) ? slot - 1 : -1;
        if (slot === NONE) return -1;
        for (const index of this.#shared[-slot - 1] as number[]) if (this.#restMatches(index, buf, start, len)) return index;
        return -1;
      }
    }
    const hit = this.#entry(buf, start, len);
    return hit === undefined ? -1 : hit.index;
  }

  /** Whether key `index`, whose length and first byte match, has the remaining bytes too. */
  #restMatches(index: number, buf: Uint8Array, start: number, len: number): boolean {
    const b = (this.#ordered[index] as KeyEntry).bytes;
    for (let j = 1; j < len; j++) if (b[j] !== buf[start + j]) return false;
    return true;
  }

  #entry(buf: Uint8Array, start: number, len: number): KeyEntry | undefined {
    if (len > 32) return undefined;
    const h = KeyTable.hash(buf, start, len);
    const hit = this.#slots[h & this.#mask];
    if (hit === undefined || hit.hash !== h || hit.bytes.length !== len) return undefined;
    const b = hit.bytes;
    for (let i = 0; i < len; i++) if (b[i] !== buf[start + i]) return undefined;
    return hit;
  }
}
