/**
 * Recognises known ASCII map keys straight from the input bytes and hands back an interned string,
 * so the decoder's hot path never allocates a string for a field name.
 * @internal
 */
export class KeyTable {
  readonly #byHash = new Map<number, { readonly name: string; readonly bytes: Uint8Array }>();

  constructor(names: readonly string[]) {
    for (const name of names) {
      const bytes = new Uint8Array(name.length);
      for (let i = 0; i < name.length; i++) bytes[i] = name.charCodeAt(i);
      const h = KeyTable.hash(bytes, 0, bytes.length);
      if (this.#byHash.has(h)) throw new Error(`key hash collision: ${name}`);
      this.#byHash.set(h, { name, bytes });
    }
  }

  /** A cheap 32-bit hash of `len` bytes at `start` (length-seeded FNV-1a). */
  static hash(buf: Uint8Array, start: number, len: number): number {
    let h = (0x811c9dc5 ^ len) >>> 0;
    for (let i = 0; i < len; i++) h = Math.imul(h ^ (buf[start + i] as number), 0x01000193);
    return h >>> 0;
  }

  /** The interned key when the bytes equal a known key exactly, else `undefined`. */
  match(buf: Uint8Array, start: number, len: number): string | undefined {
    if (len > 32) return undefined;
    const hit = this.#byHash.get(KeyTable.hash(buf, start, len));
    if (hit === undefined || hit.bytes.length !== len) return undefined;
    const b = hit.bytes;
    for (let i = 0; i < len; i++) if (b[i] !== buf[start + i]) return undefined;
    return hit.name;
  }
}
