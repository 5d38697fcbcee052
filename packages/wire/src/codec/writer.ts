import { AgdxError, InvalidError } from '../errors.js';
import { toHalfBits } from './float16.js';

import { utf8Length } from '../ids/utf8.js';

const encoder = new TextEncoder();
const scratch = new DataView(new ArrayBuffer(8));

/**
 * A two-pass CBOR writer: run the same write sequence once with no buffer to measure the exact
 * size, allocate once, then run it again to fill the buffer. Only canonical forms are produced
 * (definite lengths, minimal heads, shortest lossless floats).
 * @internal
 */
export class ByteWriter {
  /** Output buffer, or null while measuring. */
  readonly buf: Uint8Array | null;
  /** Bytes written (or measured) so far. */
  pos = 0;

  constructor(buf: Uint8Array | null) {
    this.buf = buf;
  }

  /** Raw bytes. */
  raw(bytes: Uint8Array): void {
    if (this.buf !== null) this.buf.set(bytes, this.pos);
    this.pos += bytes.length;
  }

  /** One raw byte. */
  byte(b: number): void {
    if (this.buf !== null) this.buf[this.pos] = b;
    this.pos += 1;
  }

  /** A head with a non-negative safe-integer argument. */
  head(major: number, arg: number): void {
    const m = major << 5;
    const buf = this.buf;
    if (arg < 24) {
      if (buf !== null) buf[this.pos] = m | arg;
      this.pos += 1;
    } else if (arg < 0x100) {
      if (buf !== null) {
        buf[this.pos] = m | 24;
        buf[this.pos + 1] = arg;
      }
      this.pos += 2;
    } else if (arg < 0x10000) {
      if (buf !== null) {
        buf[this.pos] = m | 25;
        buf[this.pos + 1] = arg >>> 8;
        buf[this.pos + 2] = arg & 0xff;
      }
      this.pos += 3;
    } else if (arg < 0x100000000) {
      if (buf !== null) {
        buf[this.pos] = m | 26;
        buf[this.pos + 1] = arg >>> 24;
        buf[this.pos + 2] = (arg >>> 16) & 0xff;
        buf[this.pos + 3] = (arg >>> 8) & 0xff;
        buf[this.pos + 4] = arg & 0xff;
      }
      this.pos += 5;
    } else {
      if (buf !== null) {
        buf[this.pos] = m | 27;
        const hi = Math.floor(arg / 0x100000000);
        const lo = arg >>> 0;
        buf[this.pos + 1] = hi >>> 24;
        buf[this.pos + 2] = (hi >>> 16) & 0xff;
        buf[this.pos + 3] = (hi >>> 8) & 0xff;
        buf[this.pos + 4] = hi & 0xff;
        buf[this.pos + 5] = lo >>> 24;
        buf[this.pos + 6] = (lo >>> 16) & 0xff;
        buf[this.pos + 7] = (lo >>> 8) & 0xff;
        buf[this.pos + 8] = lo & 0xff;
      }
      this.pos += 9;
    }
  }

  /** A head with a bigint argument (0 ≤ arg < 2^64). */
  headBig(major: number, arg: bigint): void {
    if (arg <= 0xffffffffn) {
      this.head(major, Number(arg));
      return;
    }
    if (this.buf !== null) {
      this.buf[this.pos] = (major << 5) | 27;
      new DataView(this.buf.buffer, this.buf.byteOffset).setBigUint64(this.pos + 1, arg);
    }
    this.pos += 9;
  }

  /** An unsigned integer (major 0). */
  uint(v: bigint): void {
    this.headBig(0, v);
  }

  /** A signed integer (major 0 or 1); the caller keeps it within −2^64 … 2^64 − 1. */
  int(v: bigint): void {
    if (v >= 0n) this.headBig(0, v);
    else this.headBig(1, -1n - v);
  }

  /** A byte string. */
  bytes(b: Uint8Array): void {
    this.head(2, b.length);
    this.raw(b);
  }

  /** A text string whose UTF-8 length the caller already knows. */
  textKnown(s: string, byteLength: number): void {
    this.head(3, byteLength);
    const buf = this.buf;
    if (buf !== null) {
      if (byteLength === s.length) {
        let p = this.pos;
        for (let i = 0; i < s.length; i++) buf[p++] = s.charCodeAt(i);
      } else {
        encoder.encodeInto(s, buf.subarray(this.pos, this.pos + byteLength));
      }
    }
    this.pos += byteLength;
  }

  /** A text string. */
  text(s: string): void {
    this.textKnown(s, utf8Length(s));
  }

  /** A boolean. */
  bool(v: boolean): void {
    this.byte(v ? 0xf5 : 0xf4);
  }

  /** `null`. */
  nil(): void {
    this.byte(0xf6);
  }

  /** A float in the shortest width that keeps its value (f16, f32 or f64). */
  float(v: number): void {
    const half = toHalfBits(v);
    const buf = this.buf;
    if (half >= 0) {
      if (buf !== null) {
        buf[this.pos] = 0xf9;
        buf[this.pos + 1] = half >>> 8;
        buf[this.pos + 2] = half & 0xff;
      }
      this.pos += 3;
    } else if (Math.fround(v) === v) {
      if (buf !== null) {
        buf[this.pos] = 0xfa;
        scratch.setFloat32(0, v);
        for (let i = 0; i < 4; i++) buf[this.pos + 1 + i] = scratch.getUint8(i);
      }
      this.pos += 5;
    } else {
      if (buf !== null) {
        buf[this.pos] = 0xfb;
        scratch.setFloat64(0, v);
        for (let i = 0; i < 8; i++) buf[this.pos + 1 + i] = scratch.getUint8(i);
      }
      this.pos += 9;
    }
  }
}

/**
 * Runs `write` twice (measure, then fill) and returns the exact-size result, in a fresh array or
 * in what `allocate` returns for the size. @internal
 */
export function encodeWith(write: (w: ByteWriter) => void, allocate?: (byteLength: number) => Uint8Array): Uint8Array {
  let out: Uint8Array;
  try {
    const measure = new ByteWriter(null);
    write(measure);
    if (allocate === undefined) out = new Uint8Array(measure.pos);
    else {
      try {
        out = allocate(measure.pos);
      } catch (error) {
        throw new InvalidError(`allocate(${measure.pos}) failed`, { context: { field: 'allocate' }, cause: error });
      }
      if (!(out instanceof Uint8Array) || out.length !== measure.pos) {
        throw new InvalidError(`allocate(${measure.pos}) must return a Uint8Array of exactly that length`, { context: { field: 'allocate' } });
      }
    }
    const w = new ByteWriter(out);
    write(w);
    return out;
  } catch (error) {
    // The low-level encoders skip validation for speed; a field of the wrong runtime type must
    // still surface as a typed error, never as a platform TypeError or RangeError.
    if (AgdxError.is(error)) throw error;
    throw new InvalidError('cannot encode a value of the wrong type; validate the envelope first', { cause: error });
  }
}
