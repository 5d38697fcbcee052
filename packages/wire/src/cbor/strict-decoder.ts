import { CborFormatError, CborLimitError, CborReader, MAJOR_ARRAY, MAJOR_BYTES, MAJOR_MAP, MAJOR_NINT, MAJOR_SIMPLE, MAJOR_TAG, MAJOR_TEXT, MAJOR_UINT } from '../codec/reader.js';
import type { CborValue } from './strict.js';

/** Limits one strict decode runs under; all are checked before anything is allocated. @internal */
export interface StrictDecodeLimits {
  /** Deepest accepted nesting (the top-level item is depth 0). */
  readonly maxDepth: number;
  /** Most data items in the whole input (a map entry counts as two: key and value). */
  readonly maxItems: number;
}

/**
 * One linear pass over the input that builds the value tree directly. cbor2 spends about 0.4 µs per
 * array item and 4.5 µs per map entry and allocates before it can see a cap, so a 16 MiB array of
 * zeros took seconds; this reader checks every declared count against both the bytes left and the
 * item budget before it creates the container, which bounds time and memory by the caps.
 */
class StrictDecoder {
  readonly #r: CborReader;
  readonly #maxDepth: number;

  // The reader counts every head against the item cap and checks declared counts with `fits`.
  constructor(bytes: Uint8Array, limits: StrictDecodeLimits) {
    this.#r = new CborReader(bytes, 0, limits.maxItems);
    this.#maxDepth = limits.maxDepth;
  }

  decodeAll(): CborValue {
    const r = this.#r;
    if (r.atEnd()) throw new CborFormatError('did not find any content to decode');
    const value = this.#item(0);
    if (!r.atEnd()) throw new CborFormatError('unexpected data after the item');
    return value;
  }

  #item(depth: number): CborValue {
    if (depth > this.#maxDepth) throw new CborLimitError('depth', this.#maxDepth);
    const r = this.#r;
    r.head();
    switch (r.major) {
      case MAJOR_UINT:
        return r.argBig();
      case MAJOR_NINT:
        return -1n - r.argBig();
      case MAJOR_BYTES:
        this.#definite();
        return r.bytesPayload();
      case MAJOR_TEXT:
        this.#definite();
        return r.textPayload();
      case MAJOR_ARRAY:
        return this.#array(depth);
      case MAJOR_MAP:
        return this.#map(depth);
      case MAJOR_TAG:
        throw new CborFormatError(`tag ${r.argBig()} not supported`);
      default:
        return this.#simple();
    }
  }

  #definite(): void {
    const r = this.#r;
    if (r.arg < 0) throw new CborFormatError('indefinite-length items are not supported');
    if (r.bigArg !== undefined) throw new CborFormatError('not enough data');
  }

  #array(depth: number): CborValue[] {
    this.#definite();
    const r = this.#r;
    const n = r.arg;
    // Checked against the bytes left (one per item at least) and the item cap before allocating.
    r.fits(n);
    const out = new Array<CborValue>(n);
    for (let i = 0; i < n; i++) out[i] = this.#item(depth + 1);
    return out;
  }

  #map(depth: number): Map<CborValue, CborValue> {
    this.#definite();
    const r = this.#r;
    const n = r.arg;
    r.fits(2 * n);
    const out = new Map<CborValue, CborValue>();
    let rawKeys: Set<string> | undefined;
    for (let i = 0; i < n; i++) {
      const start = r.pos;
      const key = this.#item(depth + 1);
      if (typeof key === 'string') {
        if (out.has(key)) throw new CborFormatError(`duplicate map key ${JSON.stringify(key)}`);
      } else if (typeof key !== 'object' || key === null) {
        // Integers, floats, booleans and null compare by value, as the Map that holds them does:
        // 1.0 written in two widths is one key (RFC 8949 does not tell widths apart), and 0.0
        // beside -0.0 or two NaNs would fold into one entry here, so the map would lose one.
        if (out.has(key)) throw new CborFormatError('duplicate map key');
      } else {
        // Byte strings, arrays and maps are compared by their exact bytes (shortest heads make
        // those unique).
        rawKeys ??= new Set<string>();
        const raw = r.rawKeyOf(start, r.pos);
        if (rawKeys.has(raw)) throw new CborFormatError('duplicate map key');
        rawKeys.add(raw);
      }
      out.set(key, this.#item(depth + 1));
    }
    return out;
  }

  #simple(): CborValue {
    const r = this.#r;
    switch (r.info) {
      case 20:
        return false;
      case 21:
        return true;
      case 22:
        return null;
      case 25:
      case 26:
      case 27:
        return r.readFloat();
      case 31:
        throw new CborFormatError('indefinite-length items are not supported');
      default:
        throw new CborFormatError(r.major === MAJOR_SIMPLE ? `simple value ${r.info} not supported` : 'unsupported CBOR item');
    }
  }
}

/** Decodes exactly one item under the strict profile and the given limits. @internal */
export function decodeStrictItem(bytes: Uint8Array, limits: StrictDecodeLimits): CborValue {
  return new StrictDecoder(bytes, limits).decodeAll();
}
