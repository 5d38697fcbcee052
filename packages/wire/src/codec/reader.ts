import { CodecError } from '../errors.js';
import { asciiText, MAX_ASCII_TEXT } from './ascii-text.js';
import { fromHalfBits } from './float16.js';
import type { KeyTable } from './key-table.js';

const fatalDecoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Byte strings up to this length are copied by a loop into a fresh array. */
const SMALL_COPY = 64;

/** Text up to this many bytes is decoded in JS when it is ASCII. */
const SHORT_TEXT = MAX_ASCII_TEXT;

/** Nesting bound: deeper input is refused instead of exhausting the stack. */
export const MAX_DEPTH = 64;

/**
 * Item bound for one decode (a map entry counts as two): far above the largest valid envelope
 * (metadata caps allow about 8,200 items) and session body, small enough that skipping unknown
 * fields or refusing an oversized declared count stays within a few milliseconds.
 */
export const MAX_ITEMS = 65_536;

/**
 * Bytes of map keys one decode may copy into strings to compare them by their exact bytes (every
 * key of a skipped map, the non-text keys of read ones), per input byte. A key that is itself a
 * map (or holds one) is copied once for every map it sits in, so without a bound a record of
 * nested maps-as-keys around one large byte string cost its size times the nesting depth (an
 * 8 MiB record took seconds); flat and once-nested keys fit, and no envelope, body or capsule
 * schema has a non-text key at all.
 */
export const KEY_BYTES_PER_INPUT_BYTE = 2;

/** How many small bigints {@link smallBigInt} hands out from its table (chunk sequences, counts). @internal */
export const SMALL_BIGINTS = 1024;
const smallBigInts: readonly bigint[] = Array.from({ length: SMALL_BIGINTS }, (_, i) => BigInt(i));

/**
 * `BigInt(n)` for an integer 0 <= n < 1024 without allocating one: a bigint is an immutable heap
 * value, so a decoder can hand out the same one for every chunk sequence number it reads. @internal
 */
export function smallBigInt(n: number): bigint {
  return smallBigInts[n] as bigint;
}

/** Major types. @internal */
export const MAJOR_UINT: number = 0;
/** @internal */
export const MAJOR_NINT: number = 1;
/** @internal */
export const MAJOR_BYTES: number = 2;
/** @internal */
export const MAJOR_TEXT: number = 3;
/** @internal */
export const MAJOR_ARRAY: number = 4;
/** @internal */
export const MAJOR_MAP: number = 5;
/** @internal */
export const MAJOR_TAG: number = 6;
/** @internal */
export const MAJOR_SIMPLE: number = 7;

/** Raised for malformed CBOR; callers wrap it as `failed to decode <surface>`. @internal */
export class CborFormatError extends Error {}

/**
 * A cap crossed while decoding, as opposed to malformed bytes. Kept apart so the caller can report
 * the cap in the error context. @internal
 */
export class CborLimitError extends CborFormatError {
  /** Which limit: `items`, `depth` or `key-bytes` (see {@link KEY_BYTES_PER_INPUT_BYTE}). */
  readonly limit: 'items' | 'depth' | 'key-bytes';
  /** The cap that was crossed. */
  readonly cap: number;

  constructor(limit: 'items' | 'depth' | 'key-bytes', cap: number) {
    super(
      limit === 'items' ? `more than ${cap} CBOR items` : limit === 'depth' ? `nesting deeper than ${cap}` : `more than ${cap} bytes of map keys to compare`,
    );
    this.limit = limit;
    this.cap = cap;
  }
}

/**
 * A strict CBOR reader over one buffer: minimal heads only, no indefinite-length strings, no tags
 * (callers decide what a tag means where a type is expected), no simple values but false, true, null
 * and undefined, every length checked against the remaining bytes before anything is read.
 * @internal
 */
export class CborReader {
  /** The input (replaced only by {@link CborReader.restart}). */
  buf: Uint8Array;
  pos: number;
  /** Major type of the last head read. */
  major = 0;
  /** Additional info of the last head read. */
  info = 0;
  /** Argument of the last head when it fits a safe integer; -1 for indefinite. */
  arg = 0;
  /** Argument of the last head when it is an 8-byte value beyond 2^53 − 1 (else undefined). */
  bigArg: bigint | undefined = undefined;
  /** Raw bytes (binary string) of the last non-text key read by {@link CborReader.mapKey}. */
  rawKey = '';
  /** The last unknown key {@link CborReader.mapKeyIndex} read: its text, or undefined when not text. */
  otherKey: string | undefined = undefined;
  /** Items this decode may still read; every head takes one. */
  itemsLeft: number;
  /** The item cap this reader started with. */
  readonly maxItems: number;
  /** Bytes {@link CborReader.rawKeyOf} may still copy in this decode. */
  keyBytesLeft: number;
  #view: DataView | undefined;

  constructor(buf: Uint8Array, pos = 0, maxItems: number = MAX_ITEMS) {
    this.buf = buf;
    this.pos = pos;
    this.itemsLeft = maxItems;
    this.maxItems = maxItems;
    this.keyBytesLeft = buf.length * KEY_BYTES_PER_INPUT_BYTE;
  }

  /**
   * Points this reader at a new input from its start with a full item budget, so a decoder that
   * never runs inside itself can keep one reader instead of allocating one per record.
   */
  restart(buf: Uint8Array): void {
    this.buf = buf;
    this.pos = 0;
    this.itemsLeft = this.maxItems;
    this.keyBytesLeft = buf.length * KEY_BYTES_PER_INPUT_BYTE;
    this.#view = undefined;
    this.bigArg = undefined;
    this.otherKey = undefined;
    this.rawKey = '';
  }

  /**
   * The exact bytes at `start..end` of the input as a string key for a duplicate check, charged
   * to {@link CborReader.keyBytesLeft} before the string is built.
   */
  rawKeyOf(start: number, end: number): string {
    const n = end - start;
    if (n > this.keyBytesLeft) throw new CborLimitError('key-bytes', this.buf.length * KEY_BYTES_PER_INPUT_BYTE);
    this.keyBytesLeft -= n;
    return latin1(this.buf, start, end);
  }

  get view(): DataView {
    if (this.#view === undefined) this.#view = new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.byteLength);
    return this.#view;
  }

  /** True when every byte has been consumed. */
  atEnd(): boolean {
    return this.pos >= this.buf.length;
  }

  /** Fails unless `n` more bytes are available. */
  need(n: number): void {
    if (n > this.buf.length - this.pos) throw new CborFormatError('not enough data');
  }

  /**
   * Fails unless a container declaring `n` entries (map entries count twice) fits both the bytes
   * left (each item takes at least one byte) and the item budget: checked at the head, before the
   * caller allocates anything for it.
   */
  fits(n: number): void {
    this.need(n);
    if (n > this.itemsLeft) throw new CborLimitError('items', this.maxItems);
  }

  /** Peeks the next initial byte. */
  peek(): number {
    if (this.pos >= this.buf.length) throw new CborFormatError('not enough data');
    return this.buf[this.pos] as number;
  }

  /**
   * Reads an initial byte and its argument into `major`, `info`, `arg`, `bigArg`. Floats and simple
   * values (major 7) leave their payload unread: use {@link CborReader.readSimpleTail}.
   */
  head(): void {
    const buf = this.buf;
    if (this.pos >= buf.length) throw new CborFormatError('not enough data');
    if (--this.itemsLeft < 0) throw new CborLimitError('items', this.maxItems);
    const ib = buf[this.pos++] as number;
    const major = ib >>> 5;
    const info = ib & 31;
    this.major = major;
    this.info = info;
    this.bigArg = undefined;
    if (major === MAJOR_SIMPLE) {
      this.arg = info;
      return;
    }
    if (info < 24) {
      this.arg = info;
      return;
    }
    switch (info) {
      case 24: {
        this.need(1);
        const v = buf[this.pos++] as number;
        if (v < 24) throw new CborFormatError('non-minimal integer');
        this.arg = v;
        return;
      }
      case 25: {
        this.need(2);
        const v = ((buf[this.pos] as number) << 8) | (buf[this.pos + 1] as number);
        this.pos += 2;
        if (v < 0x100) throw new CborFormatError('non-minimal integer');
        this.arg = v;
        return;
      }
      case 26: {
        this.need(4);
        const v = this.view.getUint32(this.pos);
        this.pos += 4;
        if (v < 0x10000) throw new CborFormatError('non-minimal integer');
        this.arg = v;
        return;
      }
      case 27: {
        this.need(8);
        const hi = this.view.getUint32(this.pos);
        const lo = this.view.getUint32(this.pos + 4);
        this.pos += 8;
        if (hi === 0) throw new CborFormatError('non-minimal integer');
        if (hi < 0x200000) {
          this.arg = hi * 0x100000000 + lo;
        } else {
          this.arg = Number.MAX_SAFE_INTEGER;
          this.bigArg = (BigInt(hi) << 32n) | BigInt(lo);
        }
        return;
      }
      case 31:
        if (major === MAJOR_ARRAY || major === MAJOR_MAP) {
          this.arg = -1;
          return;
        }
        if (major === MAJOR_BYTES || major === MAJOR_TEXT) throw new CborFormatError('indefinite-length strings are not supported');
        throw new CborFormatError('invalid indefinite length');
      default:
        throw new CborFormatError('reserved additional information');
    }
  }

  /** The last head's argument as a bigint (small values shared from {@link smallBigInt}'s table). */
  argBig(): bigint {
    const arg = this.arg;
    return this.bigArg ?? (arg >= 0 && arg < SMALL_BIGINTS ? (smallBigInts[arg] as bigint) : BigInt(arg));
  }

  /** After a major-7 head: the float value, or the simple value code (20..23) for non-floats. */
  readFloat(): number {
    const info = this.info;
    if (info === 25) {
      this.need(2);
      const h = ((this.buf[this.pos] as number) << 8) | (this.buf[this.pos + 1] as number);
      this.pos += 2;
      return fromHalfBits(h);
    }
    if (info === 26) {
      this.need(4);
      const v = this.view.getFloat32(this.pos);
      this.pos += 4;
      return v;
    }
    this.need(8);
    const v = this.view.getFloat64(this.pos);
    this.pos += 8;
    return v;
  }

  /** Checks a major-7 head is something we accept (false/true/null/undefined/float/break). */
  checkSimple(): void {
    const info = this.info;
    if (info >= 20 && info <= 23) return;
    if (info >= 25 && info <= 27) return;
    if (info === 31) return;
    throw new CborFormatError('simple values are not supported');
  }

  /** Byte string payload of the last head (a fresh copy, always a plain Uint8Array). */
  bytesPayload(): Uint8Array {
    const n = this.arg;
    this.need(n);
    const buf = this.buf;
    const start = this.pos;
    this.pos = start + n;
    if (n > SMALL_COPY) {
      // Not `buf.slice`: on a Node Buffer input that is a view sharing the caller's memory, so a
      // decoded value would change when the caller reuses its buffer.
      const copy = new Uint8Array(n);
      copy.set(buf.subarray(start, start + n));
      return copy;
    }
    // Ids, key ids and signatures: a plain constructor plus a loop is several times cheaper than
    // `slice` (species lookup, builtin call) for a handful of bytes.
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i++) out[i] = buf[start + i] as number;
    return out;
  }

  /** Byte string payload of the last head as a zero-copy view into the input. */
  bytesView(): Uint8Array {
    const n = this.arg;
    this.need(n);
    // The constructor form skips subarray's species lookup: measurably cheaper per record.
    const buf = this.buf;
    const out = new Uint8Array(buf.buffer, buf.byteOffset + this.pos, n);
    this.pos += n;
    return out;
  }

  /**
   * Reads one map key: returns a text key's string; any other key is skipped (strictly) and
   * `undefined` returned, with its exact bytes left in {@link CborReader.rawKey}.
   */
  mapKey(depth: number, known?: KeyTable): string | undefined {
    const start = this.pos;
    this.head();
    if (this.major === MAJOR_TEXT) {
      if (known !== undefined) {
        const n = this.arg;
        this.need(n);
        const hit = known.match(this.buf, this.pos, n);
        if (hit !== undefined) {
          this.pos += n;
          return hit;
        }
      }
      return this.textPayload();
    }
    if (this.major === MAJOR_SIMPLE && this.info === 31) throw new CborFormatError('unexpected break');
    this.pos = start;
    this.skip(depth + 1);
    this.rawKey = this.rawKeyOf(start, this.pos);
    return undefined;
  }

  /**
   * Reads one map key against a table of known keys: returns the key's index in `known` (see
   * {@link KeyTable.indexOf}); for any other key returns -1 with the key in
   * {@link CborReader.otherKey} (a text key's string, or `undefined` for a non-text key, whose
   * exact bytes are then in {@link CborReader.rawKey}).
   */
  mapKeyIndex(depth: number, known: KeyTable): number {
    const start = this.pos;
    this.head();
    if (this.major === MAJOR_TEXT) {
      const n = this.arg;
      this.need(n);
      const index = known.indexOf(this.buf, this.pos, n);
      if (index >= 0) {
        this.pos += n;
        return index;
      }
      this.otherKey = this.textPayload();
      return -1;
    }
    if (this.major === MAJOR_SIMPLE && this.info === 31) throw new CborFormatError('unexpected break');
    this.pos = start;
    this.skip(depth + 1);
    this.rawKey = this.rawKeyOf(start, this.pos);
    this.otherKey = undefined;
    return -1;
  }

  /**
   * {@link CborReader.mapKeyIndex} with the common case read in place: a known key of 1..23 bytes
   * sits behind a one-byte text head (0x61..0x77), so that head is taken straight from the input
   * (one item of the budget, as {@link CborReader.head} would) without filling in `major`, `arg`
   * and the rest. Anything else, including a short key the table does not know, goes through
   * {@link CborReader.mapKeyIndex} from the same position, so the answer and the errors are the same.
   */
  keyIndexAt(depth: number, known: KeyTable): number {
    const buf = this.buf;
    const p = this.pos;
    if (p < buf.length && this.itemsLeft > 0) {
      const n = (buf[p] as number) - 0x60;
      if (n > 0 && n < 24 && n < buf.length - p) {
        const index = known.indexOf(buf, p + 1, n);
        if (index >= 0) {
          this.itemsLeft--;
          this.pos = p + 1 + n;
          return index;
        }
      }
    }
    return this.mapKeyIndex(depth, known);
  }

  /**
   * Takes a one-byte head equal to `initial` (major type and a length below 24 in one byte) with
   * its `len` payload bytes when both are there and the item budget allows: true and the head
   * consumed (the payload is left for the caller at {@link CborReader.pos}); false and nothing
   * consumed otherwise, so the caller falls back to {@link CborReader.head} and its checks.
   */
  takeShortHead(initial: number, len: number): boolean {
    const buf = this.buf;
    const p = this.pos;
    if (p < buf.length && buf[p] === initial && len < buf.length - p && this.itemsLeft > 0) {
      this.itemsLeft--;
      this.pos = p + 1;
      return true;
    }
    return false;
  }

  /** Text payload of the last head, refusing invalid UTF-8. */
  textPayload(): string {
    const n = this.arg;
    this.need(n);
    const buf = this.buf;
    const start = this.pos;
    const end = start + n;
    this.pos = end;
    if (n <= SHORT_TEXT) {
      // Short ASCII (keys, agent names, operations): built in JS, far cheaper than TextDecoder here.
      let i = start;
      while (i < end && (buf[i] as number) < 0x80) i++;
      if (i === end) return asciiText(buf, start, n);
    }
    try {
      return fatalDecoder.decode(buf.subarray(start, end));
    } catch {
      throw new CborFormatError('invalid UTF-8 in text string');
    }
  }

  /** True (and consumed) when the next byte is a break, inside an indefinite container. */
  takeBreak(): boolean {
    if (this.pos >= this.buf.length) throw new CborFormatError('not enough data');
    if (this.buf[this.pos] === 0xff) {
      this.pos++;
      return true;
    }
    return false;
  }

  /**
   * Skips one well-formed item under the same strictness (duplicate map keys, invalid UTF-8, tags and
   * unsupported simple values are refused even inside ignored fields).
   */
  skip(depth: number): void {
    if (depth > MAX_DEPTH) throw new CborFormatError('nesting too deep');
    this.head();
    switch (this.major) {
      case MAJOR_UINT:
      case MAJOR_NINT:
        return;
      case MAJOR_BYTES:
        this.need(this.arg);
        this.pos += this.arg;
        return;
      case MAJOR_TEXT:
        this.textPayload();
        return;
      case MAJOR_ARRAY: {
        const n = this.arg;
        if (n < 0) {
          while (!this.takeBreak()) this.skip(depth + 1);
        } else {
          this.fits(n);
          for (let i = 0; i < n; i++) this.skip(depth + 1);
        }
        return;
      }
      case MAJOR_MAP: {
        const n = this.arg;
        const seen = new Set<string>();
        const entry = (): void => {
          const keyStart = this.pos;
          this.skip(depth + 1);
          const key = this.rawKeyOf(keyStart, this.pos);
          if (seen.has(key)) throw new CborFormatError('found repeat map key');
          seen.add(key);
          this.skip(depth + 1);
        };
        if (n < 0) {
          while (!this.takeBreak()) entry();
        } else {
          this.fits(n * 2);
          for (let i = 0; i < n; i++) entry();
        }
        return;
      }
      case MAJOR_TAG:
        throw new CborFormatError(`tag not supported (${this.arg})`);
      default:
        this.checkSimple();
        if (this.info === 31) throw new CborFormatError('unexpected break');
        if (this.info >= 25) this.readFloat();
        return;
    }
  }
}

/** Keys up to this many bytes are built a char at a time; longer ones a chunk at a time. */
const LATIN1_LOOP = 64;
/** Bytes per `String.fromCharCode` call for a long key: well under any engine's argument limit. */
const LATIN1_CHUNK = 4096;

/**
 * Raw bytes as a binary string: a cheap exact key for duplicate detection. A long key (a
 * megabyte byte string used as a map key, which anyone who can append a record may send) is
 * built from flat chunks: appending a char at a time made a rope node per byte, about 32 bytes of
 * heap and a string operation for every input byte (an 8 MiB key took a second of CPU and
 * 200+ MB of heap before its duplicate check ran).
 */
export function latin1(buf: Uint8Array, start: number, end: number): string {
  if (end - start <= LATIN1_LOOP) {
    let s = '';
    for (let i = start; i < end; i++) s += String.fromCharCode(buf[i] as number);
    return s;
  }
  const parts: string[] = [];
  for (let at = start; at < end; at += LATIN1_CHUNK) {
    parts.push(String.fromCharCode.apply(null, buf.subarray(at, Math.min(end, at + LATIN1_CHUNK)) as unknown as number[]));
  }
  return parts.join('');
}

/** Wraps a format failure as the reference's `failed to decode <surface>` CodecError. @internal */
export function formatFailure(surface: string, cause: unknown): CodecError {
  return new CodecError(`failed to decode ${surface}`, {
    cause,
    context: { surface, operation: 'decode' },
  });
}
