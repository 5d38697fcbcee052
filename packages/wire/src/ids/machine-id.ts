import { InvalidError } from '../errors.js';
import { decodeCrockford, encodeCrockfordAt } from './crockford.js';
import { nextUlidBytes } from './ulid.js';

const U128_MAX = (1n << 128n) - 1n;

/** Where {@link MachineId.toString} lays out the bytes it encodes. */
const textScratch = new Uint8Array(16);

/** A concrete 128-bit identifier class (RecordId, ConversationId, CorrelationId, ChannelId). */
export interface MachineIdClass<T extends MachineId> {
  new (bytes: Uint8Array): T;
  /** @internal The decoder's path: the value as four int32 words (see {@link word}). */
  new (w0: number, w1: number, w2: number, w3: number): T;
  /** Class name, used in messages. */
  readonly name: string;
}

let words: (id: MachineId) => readonly [number, number, number, number];
let bytesOf: (id: MachineId) => Uint8Array;
let sameWords: (a: MachineId, b: MachineId) => boolean;
let writeWords: (id: MachineId, out: Uint8Array, at: number) => void;
let hasWords: (id: MachineId, w0: number, w1: number, w2: number, w3: number) => boolean;

/** The big-endian 32-bit word at `at` of `b`, as a signed int32 (how ids hold their value). @internal */
export function word(b: Uint8Array, at: number): number {
  return (((b[at] as number) << 24) | ((b[at + 1] as number) << 16) | ((b[at + 2] as number) << 8) | (b[at + 3] as number)) | 0;
}

/** True for an int32 number only: `| 0` turns anything else (fractions, NaN, strings, undefined) into a different value. */
function isWord(w: unknown): w is number {
  return ((w as number) | 0) === w;
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
    hasWords = (id, w0, w1, w2, w3) => id.#w0 === w0 && id.#w1 === w1 && id.#w2 === w2 && id.#w3 === w3;
  }

  /**
   * Wraps 16 big-endian bytes (read, never kept: later changes to `bytes` do not affect the id).
   * @throws InvalidError when `bytes` is not exactly 16 bytes long.
   */
  constructor(bytes: Uint8Array);
  /**
   * The value as four big-endian 32-bit words, each an int32 (the decoder's path: it reads the words
   * once, compares them with its cached id and builds a new id from them on a miss; see {@link word}).
   * @throws InvalidError when a word is not an int32.
   * @internal
   */
  constructor(w0: number, w1: number, w2: number, w3: number);
  // The fields stay `#private` and keep one layout whichever path builds the id: ids are made once
  // and then used everywhere (maps, comparisons, text, the encoder), and a representation cheaper
  // to build (symbol-keyed slots, a text slot defined on first use) measured to double the CPU of
  // an agent round trip.
  constructor(bytes: Uint8Array | number, w1?: number, w2?: number, w3?: number) {
    if (typeof bytes === 'number') {
      if (!isWord(bytes) || !isWord(w1) || !isWord(w2) || !isWord(w3)) {
        throw new InvalidError('id words must be four 32-bit integers', { context: { got: 'words' } });
      }
      this.#w0 = bytes;
      this.#w1 = w1;
      this.#w2 = w2;
      this.#w3 = w3;
    } else {
      if (!(bytes instanceof Uint8Array) || bytes.length !== 16) {
        const got = bytes instanceof Uint8Array ? bytes.length : 0;
        throw new InvalidError(`id bytes must be 16 bytes, got ${got}`, { context: { got } });
      }
      this.#w0 = word(bytes, 0);
      this.#w1 = word(bytes, 4);
      this.#w2 = word(bytes, 8);
      this.#w3 = word(bytes, 12);
    }
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
  return new cls(word(buf, at), word(buf, at + 4), word(buf, at + 8), word(buf, at + 12));
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

/** True when the id's value is the four big-endian words given (see {@link word}). @internal */
export function idHasWords(id: MachineId, w0: number, w1: number, w2: number, w3: number): boolean {
  return hasWords(id, w0, w1, w2, w3);
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


/**
 * Makes an id of one class from its four big-endian words (see {@link word}): the decoder reads the
 * words once, compares them with its cached id and, on a miss, builds the id from them. @internal
 */
export type IdMaker<T extends MachineId> = (w0: number, w1: number, w2: number, w3: number) => T;

// One function per class rather than `new cls(…)` at one shared site: each has its own `new` site
// with a fixed class, which the JIT allocates inline; a site shared by the four classes measured
// about 10 ns slower per id (Node 20).
/** {@link IdMaker} for RecordId. @internal */
export const recordIdOf: IdMaker<RecordId> = (w0, w1, w2, w3) => new RecordId(w0, w1, w2, w3);
/** {@link IdMaker} for ConversationId. @internal */
export const conversationIdOf: IdMaker<ConversationId> = (w0, w1, w2, w3) => new ConversationId(w0, w1, w2, w3);
/** {@link IdMaker} for CorrelationId. @internal */
export const correlationIdOf: IdMaker<CorrelationId> = (w0, w1, w2, w3) => new CorrelationId(w0, w1, w2, w3);
/** {@link IdMaker} for ChannelId. @internal */
export const channelIdOf: IdMaker<ChannelId> = (w0, w1, w2, w3) => new ChannelId(w0, w1, w2, w3);
