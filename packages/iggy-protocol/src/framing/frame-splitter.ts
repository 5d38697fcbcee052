/**
 * Incremental frame splitters: feed arbitrary byte chunks from a socket, get whole frames back.
 * Each splitter reads the frame length from a fixed-size prefix, rejects impossible sizes with a
 * typed error (and stays failed: the byte stream cannot be resynchronised), and buffers at most
 * one frame of `maxFrameSize` bytes.
 */

import { IggyCodecError, IggyInvalidError } from '../errors.js';
import { CLASSIC_DEFAULT_MAX_FRAME_SIZE } from './classic-frame.js';
import { VSR_DEFAULT_MAX_FRAME_SIZE, VSR_HEADER_SIZE } from './vsr-header.js';

/** Options of every splitter. */
export interface FrameSplitterOptions {
  /** The largest whole frame accepted, in bytes. */
  readonly maxFrameSize?: number;
}

/** The interface shared by the three splitters. */
export interface FrameSplitter {
  /** Appends a chunk and returns every frame it completed, in order (each an independent copy). */
  push(chunk: Uint8Array): Uint8Array[];
  /** Bytes held for an incomplete frame. */
  readonly buffered: number;
  /** The largest whole frame accepted. */
  readonly maxFrameSize: number;
}

abstract class PrefixSplitter implements FrameSplitter {
  readonly maxFrameSize: number;
  #buf: Uint8Array = new Uint8Array(0);
  #len = 0;
  #failure: IggyCodecError | undefined;

  constructor(options: FrameSplitterOptions | undefined, fallback: number) {
    const max = options?.maxFrameSize ?? fallback;
    if (!Number.isSafeInteger(max) || max < this.prefixSize() || max > 0xffff_ffff + 8) {
      throw new IggyInvalidError(`maxFrameSize must be an integer of at least ${this.prefixSize()}`, { context: { field: 'maxFrameSize' } });
    }
    this.maxFrameSize = max;
  }

  get buffered(): number {
    return this.#len;
  }

  /** Bytes needed before the frame size can be read. */
  protected abstract prefixSize(): number;
  /** The whole frame size, read from a complete prefix; throws for an impossible size. */
  protected abstract frameSize(view: DataView): number;

  push(chunk: Uint8Array): Uint8Array[] {
    if (this.#failure !== undefined) throw this.#failure;
    const frames: Uint8Array[] = [];
    let data = chunk;
    let pos = 0;
    if (this.#len > 0) {
      data = this.#append(chunk);
    }
    const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
    const prefix = this.prefixSize();
    for (;;) {
      const left = (this.#len > 0 ? this.#len : data.length) - pos;
      if (left < prefix) break;
      let size: number;
      try {
        size = this.frameSize(new DataView(view.buffer, view.byteOffset + pos, prefix));
        if (size > this.maxFrameSize) {
          throw new IggyCodecError(`frame of ${size} bytes exceeds the maximum of ${this.maxFrameSize}`, { context: { size, max: this.maxFrameSize } });
        }
      } catch (e) {
        this.#failure = e as IggyCodecError;
        this.#buf = new Uint8Array(0);
        this.#len = 0;
        throw e;
      }
      if (left < size) break;
      // A plain copy: `slice` on a Node Buffer would return a view sharing the caller's memory.
      frames.push(new Uint8Array(data.subarray(pos, pos + size)));
      pos += size;
    }
    const total = this.#len > 0 ? this.#len : data.length;
    const rest = total - pos;
    if (rest === 0) {
      this.#len = 0;
    } else if (this.#len > 0) {
      this.#buf.copyWithin(0, pos, total);
      this.#len = rest;
    } else {
      this.#buf = new Uint8Array(data.subarray(pos));
      this.#len = rest;
    }
    return frames;
  }

  #append(chunk: Uint8Array): Uint8Array {
    const need = this.#len + chunk.length;
    if (need > this.#buf.length) {
      // Grow geometrically but never past one maximal frame plus the chunk that completes it.
      const cap = Math.min(Math.max(need, this.#buf.length * 2), this.maxFrameSize + chunk.length);
      const next = new Uint8Array(Math.max(cap, need));
      next.set(this.#buf.subarray(0, this.#len));
      this.#buf = next;
    }
    this.#buf.set(chunk, this.#len);
    this.#len = need;
    return this.#buf;
  }
}

/** Splits VSR frames (either direction): the size is the u32 at offset 48, at least 256. */
export class VsrFrameSplitter extends PrefixSplitter {
  constructor(options?: FrameSplitterOptions) {
    super(options, VSR_DEFAULT_MAX_FRAME_SIZE);
  }
  protected prefixSize(): number {
    return 52;
  }
  protected frameSize(view: DataView): number {
    const size = view.getUint32(48, true);
    if (size < VSR_HEADER_SIZE) throw new IggyCodecError(`VSR frame size ${size} is below the 256-byte header`, { context: { size } });
    return size;
  }
}

/** Splits classic requests (server side): `[length u32]` with length ≥ 4 counts the code and payload. */
export class ClassicRequestSplitter extends PrefixSplitter {
  constructor(options?: FrameSplitterOptions) {
    super(options, CLASSIC_DEFAULT_MAX_FRAME_SIZE);
  }
  protected prefixSize(): number {
    return 8;
  }
  protected frameSize(view: DataView): number {
    const length = view.getUint32(0, true);
    if (length < 4) throw new IggyCodecError(`classic request length ${length} is below 4`, { context: { length } });
    return length + 4;
  }
}

/** Splits classic responses (client side): `[status u32][length u32]` then `length` bytes. */
export class ClassicResponseSplitter extends PrefixSplitter {
  constructor(options?: FrameSplitterOptions) {
    super(options, CLASSIC_DEFAULT_MAX_FRAME_SIZE);
  }
  protected prefixSize(): number {
    return 8;
  }
  protected frameSize(view: DataView): number {
    const status = view.getUint32(0, true);
    const length = view.getUint32(4, true);
    if (status !== 0 && length !== 0) throw new IggyCodecError(`classic response status ${status} with a ${length}-byte payload`, { context: { status, length } });
    return length + 8;
  }
}
