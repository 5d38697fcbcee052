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

/**
 * Recognises known ASCII map keys straight from the input bytes and hands back an interned string,
 * so the decoder's hot path never allocates a string for a field name. The slot array is sized so
 * that every known key has a slot of its own (a perfect hash by table size): a lookup is one hash,
 * one array read and one byte comparison, no Map probe.
 * @internal
 */
export class KeyTable {
  readonly #slots: (KeyEntry | undefined)[];
  readonly #mask: number;
  readonly #ordered: readonly KeyEntry[];

  constructor(names: readonly string[]) {
    const entries = names.map((name, index): KeyEntry => {
      const bytes = new Uint8Array(name.length);
      for (let i = 0; i < name.length; i++) bytes[i] = name.charCodeAt(i);
      return { name, index, bytes, hash: KeyTable.hash(bytes, 0, bytes.length) };
    });
    this.#ordered = entries;
    for (let size = 8; size <= MAX_SLOTS; size *= 2) {
      const slots: (KeyEntry | undefined)[] = new Array<KeyEntry | undefined>(size).fill(undefined);
      if (entries.every((e) => (slots[e.hash & (size - 1)] === undefined ? ((slots[e.hash & (size - 1)] = e), true) : false))) {
        this.#slots = slots;
        this.#mask = size - 1;
        return;
      }
    }
    throw new Error(`no collision-free key table up to ${MAX_SLOTS} slots`);
  }

  /** A cheap 32-bit hash of `len` bytes at `start` (length-seeded FNV-1a). */
  static hash(buf: Uint8Array, start: number, len: number): number {
    let h = (0x811c9dc5 ^ len) >>> 0;
    for (let i = 0; i < len; i++) h = Math.imul(h ^ (buf[start + i] as number), 0x01000193);
    return h >>> 0;
  }

  /** The interned key when the bytes equal a known key exactly, else `undefined`. */
  match(buf: Uint8Array, start: number, len: number): string | undefined {
    return this.#entry(buf, start, len)?.name;
  }

  /**
   * The position of the known key the bytes spell in the list the table was built from, else -1.
   * Lets a decoder dispatch with a numeric `switch` (a jump table) instead of comparing strings.
   */
  indexOf(buf: Uint8Array, start: number, len: number): number {
    const hit = this.#entry(buf, start, len);
    return hit === undefined ? -1 : hit.index;
  }

  /**
   * {@link KeyTable.indexOf}, trying the keys from position `from` on in list order first: a
   * canonical encoder writes keys in that order, so the key that follows the previous one is
   * usually found by a length check and one comparison, without hashing. Keys out of that order
   * still resolve (through the hash), so the answer never depends on `from`.
   */
  indexFrom(buf: Uint8Array, start: number, len: number, from: number): number {
    const list = this.#ordered;
    const first = buf[start];
    for (let i = from; i < list.length; i++) {
      const b = (list[i] as KeyEntry).bytes;
      if (b.length !== len || b[0] !== first) continue;
      let j = 1;
      while (j < len && b[j] === buf[start + j]) j++;
      if (j === len) return i;
    }
    return this.indexOf(buf, start, len);
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
