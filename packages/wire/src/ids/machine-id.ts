import { InvalidError } from '../errors.js';
import { decodeCrockford, encodeCrockford } from './crockford.js';
import { nextUlidBytes } from './ulid.js';

const U128_MAX = (1n << 128n) - 1n;

/** Set for exactly one constructor call by {@link adoptIdBytes}: skips the defensive copy. */
let adopting = false;

/** A concrete 128-bit identifier class (RecordId, ConversationId, CorrelationId, ChannelId). */
export interface MachineIdClass<T extends MachineId> {
  new (bytes: Uint8Array): T;
  /** Class name, used in messages. */
  readonly name: string;
}

let peek: (id: MachineId) => Uint8Array;

/**
 * Base of the four 128-bit machine identifiers: an immutable unsigned 128-bit value, carried on the
 * wire as 16 big-endian bytes and shown as 26-character Crockford base32.
 */
export abstract class MachineId {
  readonly #bytes: Uint8Array;
  #text: string | undefined;

  static {
    peek = (id) => id.#bytes;
  }

  /**
   * Wraps 16 big-endian bytes (copied).
   * @throws InvalidError when `bytes` is not exactly 16 bytes long.
   */
  constructor(bytes: Uint8Array) {
    if (adopting) {
      adopting = false;
      this.#bytes = bytes;
      return;
    }
    if (!(bytes instanceof Uint8Array) || bytes.length !== 16) {
      const got = bytes instanceof Uint8Array ? bytes.length : 0;
      throw new InvalidError(`id bytes must be 16 bytes, got ${got}`, { context: { got } });
    }
    this.#bytes = bytes.slice();
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
    return this.#bytes.slice();
  }

  /** The numeric value. */
  toBigInt(): bigint {
    let v = 0n;
    for (let i = 0; i < 16; i++) v = (v << 8n) | BigInt(this.#bytes[i] as number);
    return v;
  }

  /** Canonical 26-character uppercase Crockford text. */
  toString(): string {
    if (this.#text === undefined) this.#text = encodeCrockford(this.#bytes);
    return this.#text;
  }

  /** JSON form: the canonical Crockford text. */
  toJSON(): string {
    return this.toString();
  }

  /** True when both ids carry the same 128-bit value (ids compare by value, not by class). */
  equals(other: MachineId | undefined | null): boolean {
    if (other === undefined || other === null) return false;
    const a = this.#bytes;
    const b = peek(other);
    for (let i = 0; i < 16; i++) if (a[i] !== b[i]) return false;
    return true;
  }
}

/**
 * Wraps bytes the caller has just allocated and will never touch again, without the defensive copy
 * (the decoder's hot path). Not part of the public API.
 * @internal
 */
export function adoptIdBytes<T extends MachineId>(cls: MachineIdClass<T>, bytes16: Uint8Array): T {
  if (bytes16.length !== 16) {
    throw new InvalidError(`id bytes must be 16 bytes, got ${bytes16.length}`, { context: { got: bytes16.length } });
  }
  adopting = true;
  try {
    return new cls(bytes16);
  } finally {
    adopting = false;
  }
}

/**
 * The id's own 16 bytes without a copy, for encoders that only read them. Not part of the public API.
 * @internal
 */
export function idBytesView(id: MachineId): Uint8Array {
  return peek(id);
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

