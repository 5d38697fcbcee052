/**
 * A bounds-checked little-endian reader. Every read checks the remaining length first, so hostile
 * input ends in an {@link IggyCodecError} and never in a RangeError or an allocation sized by an
 * unchecked length (byte fields are returned as views, never copied).
 */

import { IggyCodecError } from '../errors.js';

/**
 * The package's one UTF-8 decoder: strict, and a leading U+FEFF kept. TextDecoder's default drops
 * it, which read the name `\ufeffdemo` (or the header key `\ufeffagdx.av`) as `demo`, another name
 * than the one the server holds. Not streamed, so one decoder serves every call.
 */
export const STRICT_UTF8: TextDecoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Decodes UTF-8 strictly (a leading U+FEFF kept), mapping the decoder's TypeError to a codec error. */
export function decodeUtf8(bytes: Uint8Array, field: string): string {
  try {
    return STRICT_UTF8.decode(bytes);
  } catch (cause) {
    throw new IggyCodecError(`${field} is not valid UTF-8`, { cause, context: { field } });
  }
}

/** Sequential reader over one decoded unit (a frame, a body, a payload). */
export class ByteReader {
  /** The bytes being read. */
  readonly bytes: Uint8Array;
  readonly #view: DataView;
  readonly #what: string;
  /** The current read position. */
  pos: number;

  constructor(bytes: Uint8Array, what: string, pos = 0) {
    this.bytes = bytes;
    this.#view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.#what = what;
    this.pos = pos;
  }

  /** Bytes left after the current position. */
  get remaining(): number {
    return this.bytes.length - this.pos;
  }

  /** Throws a codec error unless `n` more bytes are available. */
  need(n: number, field: string): void {
    if (n > this.bytes.length - this.pos) {
      throw new IggyCodecError(`${this.#what}: truncated at ${field} (need ${n} bytes, have ${this.bytes.length - this.pos})`, {
        context: { field, offset: this.pos, need: n, have: this.bytes.length - this.pos },
      });
    }
  }

  /** Reads a u8. */
  u8(field: string): number {
    this.need(1, field);
    return this.bytes[this.pos++] as number;
  }

  /** Reads a u32 LE. */
  u32(field: string): number {
    this.need(4, field);
    const v = this.#view.getUint32(this.pos, true);
    this.pos += 4;
    return v;
  }

  /** Reads a u64 LE. */
  u64(field: string): bigint {
    this.need(8, field);
    const v = this.#view.getBigUint64(this.pos, true);
    this.pos += 8;
    return v;
  }

  /** Reads a u128 LE (low 64 bits first). */
  u128(field: string): bigint {
    this.need(16, field);
    const lo = this.#view.getBigUint64(this.pos, true);
    const hi = this.#view.getBigUint64(this.pos + 8, true);
    this.pos += 16;
    return (hi << 64n) | lo;
  }

  /** Reads an f32 LE. */
  f32(field: string): number {
    this.need(4, field);
    const v = this.#view.getFloat32(this.pos, true);
    this.pos += 4;
    return v;
  }

  /** Returns a view of the next `n` bytes (no copy). */
  bytesView(n: number, field: string): Uint8Array {
    this.need(n, field);
    const v = this.bytes.subarray(this.pos, this.pos + n);
    this.pos += n;
    return v;
  }

  /** Returns a view of everything left. */
  rest(): Uint8Array {
    const v = this.bytes.subarray(this.pos);
    this.pos = this.bytes.length;
    return v;
  }

  /** Reads a WireName: `[len u8 1..255][utf8]`. */
  wireName(field: string): string {
    const len = this.u8(field);
    if (len === 0) throw this.invalid(`${field} has length 0`, field);
    return decodeUtf8(this.bytesView(len, field), field);
  }

  /** Reads `[len u8][utf8]` where 0 is allowed (an absent optional string). */
  shortString(field: string): string {
    const len = this.u8(field);
    return decodeUtf8(this.bytesView(len, field), field);
  }

  /** Reads `[len u32][utf8]`. */
  longString(field: string): string {
    const len = this.u32(field);
    return decodeUtf8(this.bytesView(len, field), field);
  }

  /** Reads a boolean byte that must be 0 or 1. */
  bool(field: string): boolean {
    const b = this.u8(field);
    if (b > 1) throw this.fail(`${field} must be 0 or 1, got ${b}`, field);
    return b === 1;
  }

  /** Throws unless every byte was consumed. */
  end(): void {
    if (this.pos !== this.bytes.length) {
      throw new IggyCodecError(`${this.#what}: ${this.bytes.length - this.pos} trailing bytes`, {
        context: { offset: this.pos, trailing: this.bytes.length - this.pos },
      });
    }
  }

  /** Builds a codec error naming this unit, the field and the position. */
  fail(message: string, field: string): IggyCodecError {
    return new IggyCodecError(`${this.#what}: ${message}`, { context: { field, offset: this.pos } });
  }

  /**
   * Builds a codec error for bytes that are all there but hold a value the layout forbids (an
   * empty name, an identifier or partitioning whose length does not fit its kind). It carries
   * `context.validation: true` because Iggy 0.8 answers these with InvalidFormat (4) where a
   * truncated or unknown-kind body gets InvalidCommand (3) (`WireError::Validation` in
   * core/server/src/binary/dispatch.rs `decode`).
   */
  invalid(message: string, field: string): IggyCodecError {
    return new IggyCodecError(`${this.#what}: ${message}`, { context: { field, offset: this.pos, validation: true } });
  }
}
