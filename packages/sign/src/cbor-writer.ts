// A tiny canonical CBOR writer for the few fixed-shape maps this package emits (stored key
// records, signature capsules). Hand-written so the key order is exactly the documented one.

/** Accumulates CBOR bytes. */
export class CborWriter {
  #bytes: number[] = [];

  /** Writes a major-type head with the shortest argument encoding. */
  head(major: number, value: number | bigint): this {
    const v = BigInt(value);
    const m = major << 5;
    if (v < 24n) this.#bytes.push(m | Number(v));
    else if (v < 0x100n) this.#bytes.push(m | 24, Number(v));
    else if (v < 0x10000n) this.#bytes.push(m | 25, Number(v >> 8n), Number(v & 0xffn));
    else if (v < 0x100000000n) {
      this.#bytes.push(m | 26);
      for (let shift = 24n; shift >= 0n; shift -= 8n) this.#bytes.push(Number((v >> shift) & 0xffn));
    } else {
      this.#bytes.push(m | 27);
      for (let shift = 56n; shift >= 0n; shift -= 8n) this.#bytes.push(Number((v >> shift) & 0xffn));
    }
    return this;
  }

  /** Unsigned integer (major 0). */
  uint(value: number | bigint): this {
    return this.head(0, value);
  }

  /** Map header (major 5) for `count` pairs. */
  map(count: number): this {
    return this.head(5, count);
  }

  /** Text string (major 3), UTF-8. */
  text(value: string): this {
    const bytes = new TextEncoder().encode(value);
    this.head(3, bytes.length);
    for (const b of bytes) this.#bytes.push(b);
    return this;
  }

  /** Byte string (major 2). */
  bytes(value: Uint8Array): this {
    this.head(2, value.length);
    for (const b of value) this.#bytes.push(b);
    return this;
  }

  /** Boolean simple value. */
  bool(value: boolean): this {
    this.#bytes.push(value ? 0xf5 : 0xf4);
    return this;
  }

  /** Appends already-encoded CBOR. */
  raw(value: Uint8Array): this {
    for (const b of value) this.#bytes.push(b);
    return this;
  }

  /** The bytes written so far. */
  finish(): Uint8Array {
    return Uint8Array.from(this.#bytes);
  }
}
