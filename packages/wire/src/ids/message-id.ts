import { InvalidError } from '../errors.js';

const PATTERN = /^(0|[1-9][0-9]*):(0|[1-9][0-9]*)$/;

/**
 * A record's address inside one topic, shown as `<partition_id>:<offset>` in canonical decimal (no
 * signs, no leading zeros). The text form does not bound the numbers, as in the reference.
 */
export class MessageId {
  /** Partition id. */
  readonly partitionId: number;
  /** Offset within the partition. */
  readonly offset: bigint;

  /** A message id from its parts. */
  constructor(partitionId: number, offset: bigint) {
    this.partitionId = partitionId;
    this.offset = offset;
  }

  /**
   * Parses `<partition_id>:<offset>`.
   * @throws InvalidError ``invalid message id `X`, expected `<partition_id>:<offset>` ``.
   */
  static parse(text: string): MessageId {
    const m = typeof text === 'string' ? PATTERN.exec(text) : null;
    if (m === null) {
      throw new InvalidError(`invalid message id \`${String(text)}\`, expected \`<partition_id>:<offset>\``, {
        context: { text },
      });
    }
    return new MessageId(Number(m[1]), BigInt(m[2] as string));
  }

  /** `<partition_id>:<offset>`. */
  toString(): string {
    return `${this.partitionId}:${this.offset}`;
  }
}
