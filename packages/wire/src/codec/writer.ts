import { AgdxError, InvalidError } from '../errors.js';
import { toHalfBits } from './float16.js';
import { slabChunk, slabCommit, slabFreshChunk, slabOffset, SLAB_CHUNK_BYTES } from './output-slab.js';

import { utf8Length } from '../ids/utf8.js';

const encoder = new TextEncoder();
const scratch = new DataView(new ArrayBuffer(8));

/** Byte strings up to this length are copied with a loop: cheaper than `set` for ids and keys. */
const SMALL_COPY = 32;

/**
 * Bytes of a head whose argument is `arg` (a length, so below 2^53): reserving exactly this much
 * keeps a fixed target of the exact encoded size sufficient.
 */
function headLength(arg: number): number {
  return arg < 24 ? 1 : arg < 0x100 ? 2 : arg < 0x10000 ? 3 : arg < 0x100000000 ? 5 : 9;
}

/** Thrown inside a fixed writer that ran out of room; turned into an InvalidError at the API. @internal */
export class OutputFull extends Error {
  /** Bytes the encoding needed at least (it stopped at the first write that did not fit). */
  readonly atLeast: number;

  constructor(atLeast: number) {
    super('output full');
    this.atLeast = atLeast;
  }
}

/**
 * A one-pass CBOR writer: every field is visited once and written straight into `buf` from
 * `start`; when the room runs out the bytes written so far move to a larger buffer. Only canonical
 * forms are produced (definite lengths, minimal heads, shortest lossless floats).
 * @internal
 */
export class ByteWriter {
  /** Output buffer; the encoding occupies `[start, pos)`. */
  buf: Uint8Array;
  /** Where this encoding starts in `buf`. */
  start: number;
  /** Bytes written so far end here. */
  pos: number;
  /** When true the writer may not leave `buf` (a caller's array): running out of room throws {@link OutputFull}. */
  fixed = false;

  constructor(buf: Uint8Array, start = 0) {
    this.buf = buf;
    this.start = start;
    this.pos = start;
  }

  /** Points the writer at a new region (the writer objects are reused between encodings). */
  reset(buf: Uint8Array, start: number): void {
    this.buf = buf;
    this.start = start;
    this.pos = start;
  }

  /** Makes room for `n` more bytes. */
  ensure(n: number): void {
    if (this.pos + n > this.buf.length) this.grow(n);
  }

  // Rare: moves what was written so far to a fresh chunk (see slabFreshChunk for the sizing).
  private grow(n: number): void {
    if (this.fixed) throw new OutputFull(this.pos + n - this.start);
    const used = this.pos - this.start;
    const next = slabFreshChunk(Math.max(used + n, 2 * used));
    next.set(this.buf.subarray(this.start, this.pos));
    this.buf = next;
    this.start = 0;
    this.pos = used;
  }

  /** Raw bytes. */
  raw(bytes: Uint8Array): void {
    const n = bytes.length;
    this.ensure(n);
    const buf = this.buf;
    let p = this.pos;
    if (n <= SMALL_COPY) for (let i = 0; i < n; i++) buf[p++] = bytes[i] as number;
    else buf.set(bytes, p);
    this.pos += n;
  }

  /** One raw byte. */
  byte(b: number): void {
    this.ensure(1);
    this.buf[this.pos++] = b;
  }

  /** A head with a non-negative safe-integer argument. */
  head(major: number, arg: number): void {
    // The common case has room for any head; near the end of a fixed target reserve only what this
    // head takes, so a target of exactly the encoded size suffices.
    if (this.pos + 9 > this.buf.length) this.ensure(headLength(arg));
    this.putHead(major, arg);
  }

  // A head written into room the caller has already reserved (at most 9 bytes).
  private putHead(major: number, arg: number): void {
    const m = major << 5;
    const buf = this.buf;
    const p = this.pos;
    if (arg < 24) {
      buf[p] = m | arg;
      this.pos = p + 1;
    } else if (arg < 0x100) {
      buf[p] = m | 24;
      buf[p + 1] = arg;
      this.pos = p + 2;
    } else if (arg < 0x10000) {
      buf[p] = m | 25;
      buf[p + 1] = arg >>> 8;
      buf[p + 2] = arg & 0xff;
      this.pos = p + 3;
    } else if (arg < 0x100000000) {
      buf[p] = m | 26;
      buf[p + 1] = arg >>> 24;
      buf[p + 2] = (arg >>> 16) & 0xff;
      buf[p + 3] = (arg >>> 8) & 0xff;
      buf[p + 4] = arg & 0xff;
      this.pos = p + 5;
    } else {
      buf[p] = m | 27;
      this.be64(p + 1, Math.floor(arg / 0x100000000), arg >>> 0);
      this.pos = p + 9;
    }
  }

  private be64(p: number, hi: number, lo: number): void {
    const buf = this.buf;
    buf[p] = hi >>> 24;
    buf[p + 1] = (hi >>> 16) & 0xff;
    buf[p + 2] = (hi >>> 8) & 0xff;
    buf[p + 3] = hi & 0xff;
    buf[p + 4] = lo >>> 24;
    buf[p + 5] = (lo >>> 16) & 0xff;
    buf[p + 6] = (lo >>> 8) & 0xff;
    buf[p + 7] = lo & 0xff;
  }

  /** A head with a bigint argument (0 ≤ arg < 2^64). */
  headBig(major: number, arg: bigint): void {
    if (arg <= 0xffffffffn) {
      this.head(major, Number(arg));
      return;
    }
    this.ensure(9);
    this.buf[this.pos] = (major << 5) | 27;
    this.be64(this.pos + 1, Number(arg >> 32n), Number(arg & 0xffffffffn));
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

  /** A byte string, copied once into the output (head and payload in one reservation). */
  bytes(b: Uint8Array): void {
    const n = b.length;
    this.ensure(headLength(n) + n);
    this.putHead(2, n);
    const buf = this.buf;
    let p = this.pos;
    if (n <= SMALL_COPY) for (let i = 0; i < n; i++) buf[p++] = b[i] as number;
    else buf.set(b, p);
    this.pos += n;
  }

  /**
   * A text string. ASCII (the usual agent names, operations and metadata keys) is copied in the one
   * scan that also finds its length; other text is measured once and written by `encodeInto`.
   */
  text(s: string): void {
    const n = s.length;
    // Room for head and payload first: reserving may move the output to a larger buffer, and a
    // move copies only what is before `pos`, so nothing may be written beyond `pos` before it.
    this.ensure(headLength(n) + n);
    this.putHead(3, n);
    const buf = this.buf;
    const start = this.pos;
    for (let i = 0; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c >= 0x80) {
        // Not ASCII: drop the head written for n bytes and write the exact UTF-8 length instead.
        this.pos = start - headLength(n);
        this.textUtf8(s);
        return;
      }
      buf[start + i] = c;
    }
    this.pos = start + n;
  }

  private textUtf8(s: string): void {
    const byteLength = utf8Length(s);
    this.head(3, byteLength);
    this.ensure(byteLength);
    encoder.encodeInto(s, this.buf.subarray(this.pos, this.pos + byteLength));
    this.pos += byteLength;
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
    const single = half < 0 && Math.fround(v) === v;
    // Exactly the width written (see `head`).
    this.ensure(half >= 0 ? 3 : single ? 5 : 9);
    const buf = this.buf;
    const p = this.pos;
    if (half >= 0) {
      buf[p] = 0xf9;
      buf[p + 1] = half >>> 8;
      buf[p + 2] = half & 0xff;
      this.pos = p + 3;
    } else if (single) {
      buf[p] = 0xfa;
      scratch.setFloat32(0, v);
      for (let i = 0; i < 4; i++) buf[p + 1 + i] = scratch.getUint8(i);
      this.pos = p + 5;
    } else {
      buf[p] = 0xfb;
      scratch.setFloat64(0, v);
      for (let i = 0; i < 8; i++) buf[p + 1 + i] = scratch.getUint8(i);
      this.pos = p + 9;
    }
  }
}

/** A scratch buffer that grew past this is dropped after use rather than kept. */
const MAX_KEPT_SCRATCH = 1024 * 1024;

// One writer for the shared slab and one for the scratch that `allocate` copies from. `busy` makes
// a nested encoding (an `allocate` callback or a hostile getter that encodes again) use a writer of
// its own instead of scribbling over the bytes of the encoding in progress.
const slabWriter = new ByteWriter(slabChunk(), 0);
const intoWriter = new ByteWriter(new Uint8Array(0), 0);
const scratchWriter = new ByteWriter(new Uint8Array(SLAB_CHUNK_BYTES), 0);
let busy = false;

function exactCopy(w: ByteWriter, allocate: (byteLength: number) => Uint8Array): Uint8Array {
  const size = w.pos - w.start;
  let out: Uint8Array;
  try {
    out = allocate(size);
  } catch (error) {
    throw new InvalidError(`allocate(${size}) failed`, { context: { field: 'allocate' }, cause: error });
  }
  if (!(out instanceof Uint8Array) || out.length !== size) {
    throw new InvalidError(`allocate(${size}) must return a Uint8Array of exactly that length`, { context: { field: 'allocate' } });
  }
  out.set(w.buf.subarray(w.start, w.pos));
  return out;
}

function encodeOnce<T>(
  write: (w: ByteWriter, value: T) => void,
  value: T,
  allocate: ((byteLength: number) => Uint8Array) | undefined,
  atLeast: number,
): Uint8Array {
  if (busy) {
    const own = new ByteWriter(new Uint8Array(256), 0);
    write(own, value);
    return allocate === undefined ? own.buf.slice(0, own.pos) : exactCopy(own, allocate);
  }
  busy = true;
  try {
    if (allocate === undefined) {
      const w = slabWriter;
      let chunk = slabChunk();
      let at = slabOffset();
      // An output known to outgrow the chunk's tail starts in a fresh chunk: written into the tail
      // first, its head would be copied again when the writer moves on.
      if (at + atLeast > chunk.length) {
        chunk = slabFreshChunk(atLeast);
        at = 0;
      }
      w.reset(chunk, at);
      write(w, value);
      slabCommit(w.buf, w.pos);
      // Every chunk is a whole ArrayBuffer of its own (byteOffset 0), so a view is built straight
      // on its buffer: cheaper than `subarray`, which looks up a species constructor per call.
      return new Uint8Array(w.buf.buffer, w.start, w.pos - w.start);
    }
    const w = scratchWriter;
    w.reset(w.buf.length > MAX_KEPT_SCRATCH ? new Uint8Array(SLAB_CHUNK_BYTES) : w.buf, 0);
    write(w, value);
    return exactCopy(w, allocate);
  } finally {
    busy = false;
  }
}

/**
 * Writes `value` once with `write` and returns the exact bytes: by default a view carved out of the
 * shared output slab (never reused, so it may be kept; its `buffer` is shared with other
 * encodings), or, with `allocate`, a copy in the array `allocate` returns for the exact size. The
 * value is passed through rather than captured so a hot caller needs no closure per encoding.
 * `atLeast`, a lower bound of the output size the caller knows for free (an envelope's body
 * length), lets a slab output that cannot fit the current chunk's tail start in a fresh chunk.
 * @internal
 */
export function encodeWith<T>(
  write: (w: ByteWriter, value: T) => void,
  value: T,
  allocate?: (byteLength: number) => Uint8Array,
  atLeast = 0,
): Uint8Array {
  try {
    return encodeOnce(write, value, allocate, atLeast);
  } catch (error) {
    // The low-level encoders skip validation for speed; a field of the wrong runtime type must
    // still surface as a typed error, never as a platform TypeError or RangeError.
    if (AgdxError.is(error)) throw error;
    throw new InvalidError('cannot encode a value of the wrong type; validate the envelope first', { cause: error });
  }
}

/**
 * Writes `value` once with `write` straight into `target` from `offset` (no intermediate buffer,
 * nothing allocated) and returns the number of bytes written. The send path of a publisher that
 * manages its own pooled buffers uses this; on failure the bytes from `offset` on may have been
 * overwritten.
 * @throws InvalidError (`context.field` = `target`) when `target` is not a Uint8Array, `offset` is
 * not an integer within it, or the encoding does not fit; any encoder error as from
 * {@link encodeWith}.
 * @internal
 */
export function encodeIntoWith<T>(write: (w: ByteWriter, value: T) => void, value: T, target: Uint8Array, offset: number): number {
  if (!(target instanceof Uint8Array)) throw new InvalidError('`target` must be a Uint8Array', { context: { field: 'target' } });
  if (!Number.isInteger(offset) || offset < 0 || offset > target.length) {
    throw new InvalidError(`\`offset\` must be an integer from 0 to ${target.length}`, { context: { field: 'target', offset } });
  }
  // A nested encoding (a hostile getter encoding again) gets a writer of its own.
  const w = busy ? new ByteWriter(target, offset) : intoWriter;
  const wasBusy = busy;
  busy = true;
  w.reset(target, offset);
  w.fixed = true;
  try {
    write(w, value);
    return w.pos - offset;
  } catch (error) {
    if (error instanceof OutputFull) {
      const room = target.length - offset;
      throw new InvalidError(`the encoding needs at least ${error.atLeast} bytes, only ${room} are left in \`target\``, {
        context: { field: 'target', room, atLeast: error.atLeast },
      });
    }
    if (AgdxError.is(error)) throw error;
    throw new InvalidError('cannot encode a value of the wrong type; validate the envelope first', { cause: error });
  } finally {
    busy = wasBusy;
    // Drop the reference so the writer never keeps a caller's array alive.
    if (w === intoWriter) w.reset(EMPTY_TARGET, 0);
  }
}

const EMPTY_TARGET = new Uint8Array(0);
