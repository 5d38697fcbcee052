import { InvalidError } from '../errors.js';
import { decodeCrockford, encodeCrockfordAt } from './crockford.js';
import { nextUlidBytes } from './ulid.js';

const U128_MAX = (1n << 128n) - 1n;

/**
 * Set for exactly one constructor call by {@link idAt}: the constructor then reads its 16 bytes from
 * this offset of the array it is given (the decoder's input) instead of checking a 16-byte array.
 */
let readAt = -1;

/** Where {@link MachineId.toString} lays out the bytes it encodes. */
const textScratch = new Uint8Array(16);

/** A concrete 128-bit identifier class (RecordId, ConversationId, CorrelationId, ChannelId). */
export interface MachineIdClass<T extends MachineId> {
  new (bytes: Uint8Array): T;
  /** Class name, used in messages. */
  readonly name: string;
}

let words: (id: MachineId) => readonly [number, number, number, number];
let bytesOf: (id: MachineId) => Uint8Array;
let sameWords: (a: MachineId, b: MachineId) => boolean;
let writeWords: (id: MachineId, out: Uint8Array, at: number) => void;
let wordsEqualBytes: (id: MachineId, buf: Uint8Array, at: number) => boolean;

function word(b: Uint8Array, at: number): number {
  return (((b[at] as number) << 24) | ((b[at + 1] as number) << 16) | ((b[at + 2] as number) << 8) | (b[at + 3] as number)) | 0;
}

function putWord(out: Uint8Array, at: number, w: number): void {
  out[at] = w >>> 24;
  out[at + 1] = (w >>> 16) & 0xff;
  out[at + 2] = (w >>> 8) & 0xff;
  out[at + 3] = w & 0xff;
}

/**
 * Base of the four 128-bit machine identifiers: an immutable unsigned 128-bit value, carried on the
 * wire as 16 big-endian bytes and shown as 26-character Crockford base32.
 */
export abstract class MachineId {
  // The value as four big-endian 32-bit words rather than a 16-byte array: a decoder makes several
  // ids per record, and a typed array per id cost about four times as much as the id object itself.
  readonly #w0: number;
  readonly #w1: number;
  readonly #w2: number;
  readonly #w3: number;
  #bytes: Uint8Array | undefined;
  #text: string | undefined;

  static {
    words = (id) => [id.#w0, id.#w1, id.#w2, id.#w3];
    bytesOf = (id) => {
      if (id.#bytes === undefined) {
        const out = new Uint8Array(16);
        writeWords(id, out, 0);
        id.#bytes = out;
      }
      return id.#bytes;
    };
    sameWords = (a, b) => a.#w0 === b.#w0 && a.#w1 === b.#w1 && a.#w2 === b.#w2 && a.#w3 === b.#w3;
    writeWords = (id, out, at) => {
      putWord(out, at, id.#w0);
      putWord(out, at + 4, id.#w1);
      putWord(out, at + 8, id.#w2);
      putWord(out, at + 12, id.#w3);
    };
    wordsEqualBytes = (id, buf, at) =>
      id.#w0 === word(buf, at) && id.#w1 === word(buf, at + 4) && id.#w2 === word(buf, at + 8) && id.#w3 === word(buf, at + 12);
  }

  /**
   * Wraps 16 big-endian bytes (read, never kept: later changes to `bytes` do not affect the id).
   * @throws InvalidError when `bytes` is not exactly 16 bytes long.
   */
  constructor(bytes: Uint8Array) {
    let at = readAt;
    if (at >= 0) {
      readAt = -1;
    } else {
      if (!(bytes instanceof Uint8Array) || bytes.length !== 16) {
        const got = bytes instanceof Uint8Array ? bytes.length : 0;
        throw new InvalidError(`id bytes must be 16 bytes, got ${got}`, { context: { got } });
      }
      at = 0;
    }
    this.#w0 = word(bytes, at);
    this.#w1 = word(bytes, at + 4);
    this.#w2 = word(bytes, at + 8);
    this.#w3 = word(bytes, at + 12);
    this.#bytes = undefined;
    this.#text = undefined;
  }

  /**
   * Parses 26-character Crockford text (ASCII case-insensitive, no aliases, first character ≤ `7`).
   * @throws InvalidError on a wrong length, a foreign character or overflow.
   */
  static parse<T extends MachineId>(this: MachineIdClass<T>, text: string): T {
    return adoptIdBytes(this, decodeCrockford(text));
  }

  /** Like {@link MachineId.parse} but returns `undefined` instead of throwing. */
  static tryParse<T extends MachineId>(this: MachineIdClass<T>, text: string): T | undefined {
    try {
      return adoptIdBytes(this, decodeCrockford(text));
    } catch {
      return undefined;
    }
  }

  /**
   * Reads 16 big-endian bytes (copied).
   * @throws InvalidError when the length is not 16.
   */
  static fromBytes<T extends MachineId>(this: MachineIdClass<T>, bytes16: Uint8Array): T {
    return new this(bytes16);
  }

  /**
   * Builds an id from its numeric value.
   * @throws InvalidError when `value` is negative or needs more than 128 bits.
   */
  static fromBigInt<T extends MachineId>(this: MachineIdClass<T>, value: bigint): T {
    if (typeof value !== 'bigint' || value < 0n || value > U128_MAX) {
      throw new InvalidError('id value must be an unsigned 128-bit integer', { context: { value: String(value) } });
    }
    const out = new Uint8Array(16);
    let v = value;
    for (let i = 15; i >= 0; i--) {
      out[i] = Number(v & 0xffn);
      v >>= 8n;
    }
    return adoptIdBytes(this, out);
  }

  /** The 16 big-endian bytes (a fresh copy each call). */
  toBytes(): Uint8Array {
    const out = new Uint8Array(16);
    writeWords(this, out, 0);
    return out;
  }

  /** The numeric value. */
  toBigInt(): bigint {
    let v = 0n;
    for (const w of words(this)) v = (v << 32n) | BigInt(w >>> 0);
    return v;
  }

  /** Canonical 26-character uppercase Crockford text. */
  toString(): string {
    if (this.#text === undefined) {
      // Through a scratch array: an id shown as text need not keep a byte copy of itself.
      writeWords(this, textScratch, 0);
      this.#text = encodeCrockfordAt(textScratch, 0);
    }
    return this.#text;
  }

  /** JSON form: the canonical Crockford text. */
  toJSON(): string {
    return this.toString();
  }

  /** True when both ids carry the same 128-bit value (ids compare by value, not by class). */
  equals(other: MachineId | undefined | null): boolean {
    if (other === undefined || other === null) return false;
    return sameWords(this, other);
  }
}

/**
 * Wraps a 16-byte array as an id (the array is read, not kept). Not part of the public API.
 * @internal
 */
export function adoptIdBytes<T extends MachineId>(cls: MachineIdClass<T>, bytes16: Uint8Array): T {
  if (bytes16.length !== 16) {
    throw new InvalidError(`id bytes must be 16 bytes, got ${bytes16.length}`, { context: { got: bytes16.length } });
  }
  return new cls(bytes16);
}

/**
 * An id read straight from the 16 bytes at `at` of `buf` (the caller has checked they are there):
 * the decoder's hot path, which allocates nothing but the id object. Not part of the public API.
 * @internal
 */
export function idAt<T extends MachineId>(cls: MachineIdClass<T>, buf: Uint8Array, at: number): T {
  // No try/finally: the constructor clears `readAt` before anything that could throw.
  readAt = at;
  return new cls(buf);
}

/**
 * The id's 16 bytes, made once per id and shared, for code that only reads them. Not part of the
 * public API.
 * @internal
 */
export function idBytesView(id: MachineId): Uint8Array {
  return bytesOf(id);
}

/** Writes the id's 16 bytes into `out` at `at` (the encoder's hot path; no array made). @internal */
export function writeIdBytes(id: MachineId, out: Uint8Array, at: number): void {
  writeWords(id, out, at);
}

/** True when the 16 bytes at `at` of `buf` are this id's bytes. @internal */
export function idEqualsBytes(id: MachineId, buf: Uint8Array, at: number): boolean {
  return wordsEqualBytes(id, buf, at);
}

/** Producer-assigned identity of one record (a ULID); required on every kind except chunk. */
export class RecordId extends MachineId {
  /** Type brand: keeps the four id classes from being structurally interchangeable. */
  declare private readonly recordIdBrand: void;
}

/** Conversation identity: also the partition key, the trace id and the session id. */
export class ConversationId extends MachineId {
  declare private readonly conversationIdBrand: void;

  /** A fresh ULID conversation id (from the current {@link MintUlid} source). */
  static new(): ConversationId {
    return adoptIdBytes(ConversationId, nextUlidBytes());
  }

  /**
   * Derives a stable conversation id from text: two FNV-1a 64 passes over
   * `[1 (derive version), salt, UTF-8(seed)]`, salt `0x1d` for the high half and `0x9e` for the low half.
   * `sessions().create(id)` uses this.
   */
  static derive(seed: string): ConversationId {
    const bytes = new TextEncoder().encode(seed);
    const out = new Uint8Array(16);
    writeU64(out, 0, fnv1a64([1, 0x1d], bytes));
    writeU64(out, 8, fnv1a64([1, 0x9e], bytes));
    return adoptIdBytes(ConversationId, out);
  }
}

/** Request/reply pairing; an A2A task id maps onto it. */
export class CorrelationId extends MachineId {
  declare private readonly correlationIdBrand: void;
}

/** One chunk stream. */
export class ChannelId extends MachineId {
  declare private readonly channelIdBrand: void;
}

const FNV_OFFSET = 0xcbf29ce484222325n;
const FNV_PRIME = 0x100000001b3n;
const U64 = (1n << 64n) - 1n;

/** FNV-1a 64 over a prefix then the given byte segments. */
export function fnv1a64(prefix: readonly number[], ...segments: readonly Uint8Array[]): bigint {
  let h = FNV_OFFSET;
  for (const b of prefix) h = ((h ^ BigInt(b)) * FNV_PRIME) & U64;
  for (const seg of segments) for (const b of seg) h = ((h ^ BigInt(b)) * FNV_PRIME) & U64;
  return h;
}

function writeU64(out: Uint8Array, at: number, v: bigint): void {
  let x = v;
  for (let i = 7; i >= 0; i--) {
    out[at + i] = Number(x & 0xffn);
    x >>= 8n;
  }
}


/** Reads an id of one class from 16 bytes of a buffer (see {@link idAt}). @internal */
export type IdReader<T extends MachineId> = (buf: Uint8Array, at: number) => T;

// One function per class rather than `idAt(cls, …)`: each has its own `new` site with a fixed
// class, which the JIT allocates inline; a site shared by the four classes measured about 10 ns
// slower per id (Node 20).
/** {@link idAt} for RecordId. @internal */
export const recordIdAt: IdReader<RecordId> = (buf, at) => {
  readAt = at;
  return new RecordId(buf);
};
/** {@link idAt} for ConversationId. @internal */
export const conversationIdAt: IdReader<ConversationId> = (buf, at) => {
  readAt = at;
  return new ConversationId(buf);
};
/** {@link idAt} for CorrelationId. @internal */
export const correlationIdAt: IdReader<CorrelationId> = (buf, at) => {
  readAt = at;
  return new CorrelationId(buf);
};
/** {@link idAt} for ChannelId. @internal */
export const channelIdAt: IdReader<ChannelId> = (buf, at) => {
  readAt = at;
  return new ChannelId(buf);
};
