import { InvalidError } from '../errors.js';

const U32_MAX = 0xffffffff;
const U64_MAX = (1n << 64n) - 1n;

function checkU32(name: string, v: number): void {
  if (!Number.isInteger(v) || v < 0 || v > U32_MAX) {
    throw new InvalidError(`log position \`${name}\` must be an unsigned 32-bit integer`, { context: { field: name } });
  }
}

/**
 * A record's place in the log: stream, topic and partition (u32 each) and offset (u64). On the wire it
 * is 20 big-endian bytes; it is deployment-local, so a reader that cannot interpret it falls back to
 * the record id.
 */
export class LogPosition {
  /** Numeric stream id. */
  readonly streamId: number;
  /** Numeric topic id. */
  readonly topicId: number;
  /** Partition id. */
  readonly partitionId: number;
  /** Offset within the partition. */
  readonly offset: bigint;

  /**
   * @throws InvalidError when a part is out of its range.
   */
  constructor(streamId: number, topicId: number, partitionId: number, offset: bigint) {
    checkU32('stream_id', streamId);
    checkU32('topic_id', topicId);
    checkU32('partition_id', partitionId);
    if (typeof offset !== 'bigint' || offset < 0n || offset > U64_MAX) {
      throw new InvalidError('log position `offset` must be an unsigned 64-bit integer', { context: { field: 'offset' } });
    }
    this.streamId = streamId;
    this.topicId = topicId;
    this.partitionId = partitionId;
    this.offset = offset;
  }

  /**
   * Reads the 20-byte big-endian form.
   * @throws InvalidError `log position must be 20 bytes, got N`.
   */
  static fromBytes(bytes: Uint8Array): LogPosition {
    if (!(bytes instanceof Uint8Array) || bytes.length !== 20) {
      const got = bytes instanceof Uint8Array ? bytes.length : 0;
      throw new InvalidError(`log position must be 20 bytes, got ${got}`, { context: { got } });
    }
    const view = new DataView(bytes.buffer, bytes.byteOffset, 20);
    return new LogPosition(view.getUint32(0), view.getUint32(4), view.getUint32(8), view.getBigUint64(12));
  }

  /** The 20-byte big-endian form (fresh). */
  toBytes(): Uint8Array {
    const out = new Uint8Array(20);
    this.writeTo(out, 0);
    return out;
  }

  /** Writes the 20-byte form at `at`. @internal */
  writeTo(out: Uint8Array, at: number): void {
    const view = new DataView(out.buffer, out.byteOffset + at, 20);
    view.setUint32(0, this.streamId);
    view.setUint32(4, this.topicId);
    view.setUint32(8, this.partitionId);
    view.setBigUint64(12, this.offset);
  }

  /** True when all four parts are equal. */
  equals(other: LogPosition | undefined | null): boolean {
    return (
      other !== undefined &&
      other !== null &&
      other.streamId === this.streamId &&
      other.topicId === this.topicId &&
      other.partitionId === this.partitionId &&
      other.offset === this.offset
    );
  }

  /** Readable form `stream/topic/partition@offset`. */
  toString(): string {
    return `${this.streamId}/${this.topicId}/${this.partitionId}@${this.offset}`;
  }
}
