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

const NOTHING = new Uint8Array(0);

/** Frames up to this size get their whole buffer as soon as their size is known. */
const EXACT_UP_TO = 1024 * 1024;

/**
 * The buffer size for a partial frame of `size` bytes that must hold `need` bytes now. A larger
 * frame's buffer grows with the bytes that arrive (doubling, capped at the frame), so a peer that
 * announces a huge frame and sends little of it cannot make the splitter allocate it all.
 */
function capacityFor(size: number, need: number, current: number): number {
  if (size <= EXACT_UP_TO) return size;
  return Math.min(size, Math.max(need, current * 2, EXACT_UP_TO));
}

/**
 * Whole frames inside one chunk are copied out of it. A frame that spans chunks is gathered in a
 * buffer sized to exactly that frame once its size is known and passed the limit (above 1 MiB the
 * buffer grows with the bytes that arrive, capped at the frame), and that buffer is then handed
 * out as the frame itself: large frames, which always span chunks, are copied once rather than
 * into a growing buffer and out again.
 */
abstract class PrefixSplitter implements FrameSplitter {
  readonly maxFrameSize: number;
  /** The partial frame being gathered (its prefix, or the whole frame once its size is known). */
  #buf: Uint8Array = NOTHING;
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

  /** The checked size of the frame whose prefix starts at `pos` of `bytes`; a failure is final. */
  #sizeAt(bytes: Uint8Array, pos: number): number {
    try {
      const size = this.frameSize(new DataView(bytes.buffer, bytes.byteOffset + pos, this.prefixSize()));
      if (size > this.maxFrameSize) {
        throw new IggyCodecError(`frame of ${size} bytes exceeds the maximum of ${this.maxFrameSize}`, { context: { size, max: this.maxFrameSize } });
      }
      return size;
    } catch (e) {
      this.#failure = e as IggyCodecError;
      this.#buf = NOTHING;
      this.#len = 0;
      throw e;
    }
  }

  push(chunk: Uint8Array): Uint8Array[] {
    if (this.#failure !== undefined) throw this.#failure;
    const frames: Uint8Array[] = [];
    const prefix = this.prefixSize();
    let pos = 0;
    // First complete the frame gathered from earlier chunks, if any.
    if (this.#len > 0) {
      if (this.#len < prefix) {
        const take = Math.min(prefix - this.#len, chunk.length);
        this.#buf.set(chunk.subarray(0, take), this.#len);
        this.#len += take;
        pos = take;
        if (this.#len < prefix) return frames;
      }
      const size = this.#sizeAt(this.#buf, 0);
      const need = this.#len + (chunk.length - pos);
      if (this.#buf.length < size && this.#buf.length < need) {
        const next = new Uint8Array(capacityFor(size, need, this.#buf.length));
        next.set(this.#buf.subarray(0, this.#len));
        this.#buf = next;
      }
      const take = Math.min(size - this.#len, chunk.length - pos);
      this.#buf.set(chunk.subarray(pos, pos + take), this.#len);
      this.#len += take;
      pos += take;
      if (this.#len < size) return frames;
      // The buffer holds exactly this frame and nothing else refers to it: hand it over.
      frames.push(this.#buf.length === size ? this.#buf : this.#buf.slice(0, size));
      this.#buf = NOTHING;
      this.#len = 0;
    }
    // Then every whole frame inside the chunk, each copied out of it.
    for (;;) {
      const left = chunk.length - pos;
      if (left === 0) return frames;
      if (left < prefix) {
        this.#buf = new Uint8Array(prefix);
        break;
      }
      const size = this.#sizeAt(chunk, pos);
      if (left < size) {
        this.#buf = new Uint8Array(capacityFor(size, left, 0));
        break;
      }
      // A plain copy: `slice` on a Node Buffer would return a view sharing the caller's memory.
      frames.push(new Uint8Array(chunk.subarray(pos, pos + size)));
      pos += size;
    }
    this.#buf.set(chunk.subarray(pos), 0);
    this.#len = chunk.length - pos;
    return frames;
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
