import { InvalidError } from '../errors.js';
import { decodeCrockford, encodeCrockfordAt } from './crockford.js';
import { nextUlidBytes } from './ulid.js';

const U128_MAX = (1n << 128n) - 1n;

/** Where {@link MachineId.toString} lays out the bytes it encodes. */
const textScratch = new Uint8Array(16);

// The value lives in four int32 words under module-private symbols, assigned in one order by
// makeId, so every id of a class has one hidden class from birth to death and nothing is ever
// added to it later. Not `#private` fields: on Node 20 any private field (one is enough) made an id
// cost about five times as much to build (30-35 ns against 5-6 ns, measured in one process), and a
// decoder makes up to five ids per record. Symbol keys stay out of `Object.keys`, JSON and
// `for … in`; structural equality (a test's `toEqual`) compares them, so two ids compare by value.
//
// Every id, whichever path makes it, is made by makeId (`Object.create` of the class's prototype,
// then the four slots), never by the allocation `new` does for a subclass: a transform that
// redefines a class's `name` in a static block (esbuild's keep-names helper, which tsx applies,
// so `pnpm bench` and `pnpm test` run that code) turns `new` of a derived class that then adds
// ordinary properties into a runtime call of about 0.5 µs on Node 20 (13 ns without it, measured
// in one process), which made an agent round trip from source cost three times its CPU.
const W0: unique symbol = Symbol('w0');
const W1: unique symbol = Symbol('w1');
const W2: unique symbol = Symbol('w2');
const W3: unique symbol = Symbol('w3');

/** An id's own properties, typed here only: declaring them on the class would publish the symbols. */
interface IdSlots {
  [W0]: number;
  [W1]: number;
  [W2]: number;
  [W3]: number;
}

/** The id's slots (a cast: every MachineId has them from makeId). */
function slots(id: MachineId): IdSlots {
  return id as unknown as IdSlots;
}

/** An id of the class whose prototype is `proto`, holding the four words (see the note on W0). */
function makeId<T extends MachineId>(proto: object, w0: number, w1: number, w2: number, w3: number): T {
  const id = Object.create(proto) as IdSlots;
  id[W0] = w0;
  id[W1] = w1;
  id[W2] = w2;
  id[W3] = w3;
  return id as unknown as T;
}

// The Crockford text is cached outside the id, in a small direct-mapped table keyed by the id's
// lowest word: a text slot on the id would either make two equal ids differ structurally once one
// has been shown as text, or (defined non-enumerable on first use) change the id's hidden class,
// which cost an agent round trip twice its CPU when ids were shaped that way. The table holds at
// most TEXT_CACHE ids alive; a miss only recomputes the text.
const TEXT_CACHE = 64;
const textIds: (MachineId | undefined)[] = new Array<MachineId | undefined>(TEXT_CACHE).fill(undefined);
const texts: string[] = new Array<string>(TEXT_CACHE).fill('');

/** How util.inspect (Node, Deno) asks an object to describe itself; a plain registered symbol. */
const INSPECT = Symbol.for('nodejs.util.inspect.custom');

/** A concrete 128-bit identifier class (RecordId, ConversationId, CorrelationId, ChannelId). */
export interface MachineIdClass<T extends MachineId> {
  new (bytes: Uint8Array): T;
  /** @internal The decoder's path: the value as four int32 words (see {@link word}). */
  new (w0: number, w1: number, w2: number, w3: number): T;
  /** Class name, used in messages. */
  readonly name: string;
  /** What every id of the class inherits from (ids are made from it; see makeId). */
  readonly prototype: T;
}

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
  // (The words are symbol-keyed slots; see W0 above.)

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
  // Returns an object made by makeId (a constructor may return one): every id of a class, from
  // `new`, a static factory or the decoder, has the same hidden class, so the code that uses ids
  // (maps, comparisons, the encoder) sees at most four shapes. `new.target` keeps subclasses right.
  constructor(bytes: Uint8Array | number, w1?: number, w2?: number, w3?: number) {
    const proto = new.target.prototype as object;
    if (typeof bytes === 'number') {
      if (!isWord(bytes) || !isWord(w1) || !isWord(w2) || !isWord(w3)) {
        throw new InvalidError('id words must be four 32-bit integers', { context: { got: 'words' } });
      }
      return makeId(proto, bytes, w1, w2, w3);
    }
    if (!(bytes instanceof Uint8Array) || bytes.length !== 16) {
      const got = bytes instanceof Uint8Array ? bytes.length : 0;
      throw new InvalidError(`id bytes must be 16 bytes, got ${got}`, { context: { got } });
    }
    return makeId(proto, word(bytes, 0), word(bytes, 4), word(bytes, 8), word(bytes, 12));
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
    writeIdBytes(this, out, 0);
    return out;
  }

  /** The numeric value. */
  toBigInt(): bigint {
    let v = 0n;
    const id = slots(this);
    for (const w of [id[W0], id[W1], id[W2], id[W3]]) v = (v << 32n) | BigInt(w >>> 0);
    return v;
  }

  /** Canonical 26-character uppercase Crockford text. */
  toString(): string {
    const slot = slots(this)[W3] & (TEXT_CACHE - 1);
    if (textIds[slot] === this) return texts[slot] as string;
    // Through a scratch array: an id shown as text need not keep a byte copy of itself.
    writeIdBytes(this, textScratch, 0);
    const text = encodeCrockfordAt(textScratch, 0);
    textIds[slot] = this;
    texts[slot] = text;
    return text;
  }

  /** JSON form: the canonical Crockford text. */
  toJSON(): string {
    return this.toString();
  }

  /** True when both ids carry the same 128-bit value (ids compare by value, not by class). */
  equals(other: MachineId | undefined | null): boolean {
    if (other === undefined || other === null) return false;
    const a = slots(this);
    const b = slots(other);
    return a[W0] === b[W0] && a[W1] === b[W1] && a[W2] === b[W2] && a[W3] === b[W3];
  }
}

// What util.inspect (Node, Deno) shows for an id: its class and Crockford text, not the symbol slots.
Object.defineProperty(MachineId.prototype, INSPECT, {
  value(this: MachineId): string {
    return `${this.constructor.name}(${this.toString()})`;
  },
});

/**
 * Wraps a 16-byte array as an id (the array is read, not kept). Not part of the public API.
 * @internal
 */
export function adoptIdBytes<T extends MachineId>(cls: MachineIdClass<T>, bytes16: Uint8Array): T {
  if (bytes16.length !== 16) {
    throw new InvalidError(`id bytes must be 16 bytes, got ${bytes16.length}`, { context: { got: bytes16.length } });
  }
  return makeId(cls.prototype, word(bytes16, 0), word(bytes16, 4), word(bytes16, 8), word(bytes16, 12));
}

/**
 * An id read straight from the 16 bytes at `at` of `buf` (the caller has checked they are there):
 * the decoder's hot path, which allocates nothing but the id object. Not part of the public API.
 * @internal
 */
export function idAt<T extends MachineId>(cls: MachineIdClass<T>, buf: Uint8Array, at: number): T {
  return makeId(cls.prototype, word(buf, at), word(buf, at + 4), word(buf, at + 8), word(buf, at + 12));
}

/**
 * The id's 16 bytes for code that only reads them (a fresh array: an id keeps no byte copy of
 * itself). Not part of the public API.
 * @internal
 */
export function idBytesView(id: MachineId): Uint8Array {
  return id.toBytes();
}

/** Writes the id's 16 bytes into `out` at `at` (the encoder's hot path; no array made). @internal */
export function writeIdBytes(id: MachineId, out: Uint8Array, at: number): void {
  const s = slots(id);
  putWord(out, at, s[W0]);
  putWord(out, at + 4, s[W1]);
  putWord(out, at + 8, s[W2]);
  putWord(out, at + 12, s[W3]);
}

/** True when the id's value is the four big-endian words given (see {@link word}). @internal */
export function idHasWords(id: MachineId, w0: number, w1: number, w2: number, w3: number): boolean {
  const s = slots(id);
  return s[W0] === w0 && s[W1] === w1 && s[W2] === w2 && s[W3] === w3;
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

// One function per class rather than one shared maker: each has its own allocation site with a fixed
// prototype, which the JIT allocates inline; a site shared by the four classes measured about 10 ns
// slower per id (Node 20).
/** {@link IdMaker} for RecordId. @internal */
export const recordIdOf: IdMaker<RecordId> = (w0, w1, w2, w3) => makeId(RecordId.prototype, w0, w1, w2, w3);
/** {@link IdMaker} for ConversationId. @internal */
export const conversationIdOf: IdMaker<ConversationId> = (w0, w1, w2, w3) => makeId(ConversationId.prototype, w0, w1, w2, w3);
/** {@link IdMaker} for CorrelationId. @internal */
export const correlationIdOf: IdMaker<CorrelationId> = (w0, w1, w2, w3) => makeId(CorrelationId.prototype, w0, w1, w2, w3);
/** {@link IdMaker} for ChannelId. @internal */
export const channelIdOf: IdMaker<ChannelId> = (w0, w1, w2, w3) => makeId(ChannelId.prototype, w0, w1, w2, w3);
