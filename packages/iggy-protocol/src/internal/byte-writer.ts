/**
 * A growable little-endian writer for control-plane bodies. The message hot paths size their
 * output exactly and write with a DataView instead.
 */

const UTF8 = new TextEncoder();

/** Encodes a string as UTF-8. */
export function encodeUtf8(text: string): Uint8Array {
  return UTF8.encode(text);
}

/** Appends little-endian fields to a buffer that grows by doubling. */
export class ByteWriter {
  #buf: Uint8Array;
  #view: DataView;
  /** Bytes written so far. */
  length = 0;

  constructor(capacity = 64) {
    this.#buf = new Uint8Array(capacity);
    this.#view = new DataView(this.#buf.buffer);
  }

  #ensure(n: number): void {
    const need = this.length + n;
    if (need <= this.#buf.length) return;
    let cap = this.#buf.length * 2;
    while (cap < need) cap *= 2;
    const next = new Uint8Array(cap);
    next.set(this.#buf.subarray(0, this.length));
    this.#buf = next;
    this.#view = new DataView(next.buffer);
  }

  /** Writes a u8. */
  u8(v: number): this {
    this.#ensure(1);
    this.#buf[this.length++] = v;
    return this;
  }

  /** Writes a u32 LE. */
  u32(v: number): this {
    this.#ensure(4);
    this.#view.setUint32(this.length, v, true);
    this.length += 4;
    return this;
  }

  /** Writes a u64 LE. */
  u64(v: bigint): this {
    this.#ensure(8);
    this.#view.setBigUint64(this.length, v, true);
    this.length += 8;
    return this;
  }

  /** Writes a u128 LE (low 64 bits first). */
  u128(v: bigint): this {
    this.#ensure(16);
    this.#view.setBigUint64(this.length, v & 0xffff_ffff_ffff_ffffn, true);
    this.#view.setBigUint64(this.length + 8, v >> 64n, true);
    this.length += 16;
    return this;
  }

  /** Writes an f32 LE. */
  f32(v: number): this {
    this.#ensure(4);
    this.#view.setFloat32(this.length, v, true);
    this.length += 4;
    return this;
  }

  /** Writes raw bytes. */
  bytes(b: Uint8Array): this {
    this.#ensure(b.length);
    this.#buf.set(b, this.length);
    this.length += b.length;
    return this;
  }

  /** Returns the written bytes (a view over the internal buffer). */
  finish(): Uint8Array {
    return this.#buf.subarray(0, this.length);
  }
}
