import { AgdxError, CodecError } from '../errors.js';

/** Where a skipped record sits: stream and topic names, partition and offset. */
export interface RecordPosition {
  readonly stream: string;
  readonly topic: string;
  readonly partition: number;
  readonly offset: bigint;
}

/**
 * The error a reader reports (to its `onError`) for a record it skipped because it could not use
 * it: a {@link CodecError} naming the position in its message and in `context` (`stream`, `topic`,
 * `partition`, `offset`, and `reason`, the kind of the underlying error), with that error as
 * `cause`. Readers report it and go on: one bad record must never stall or end a read.
 */
export function skippedRecordError(position: RecordPosition, cause: unknown): CodecError {
  const { stream, topic, partition, offset } = position;
  const reason = AgdxError.is(cause) ? cause.kind : 'unknown';
  return new CodecError(`skipped an unreadable record at ${stream}/${topic} ${partition}:${offset}`, {
    cause,
    context: { stream, topic, partition, offset, reason },
  });
}

/**
 * Receives a record a reader skipped: the {@link skippedRecordError} for it. Called once per
 * skipped record per read; the read goes on.
 */
export type SkippedRecordHandler = (error: CodecError) => void;

/**
 * Reports a skipped record to `onError` (when given). A handler that throws must not end the read
 * it reports on, so its own failure is dropped here.
 */
export function reportSkippedRecord(onError: SkippedRecordHandler | undefined, position: RecordPosition, cause: unknown): void {
  if (onError === undefined) return;
  try {
    onError(skippedRecordError(position, cause));
  } catch {
    // the handler's own failure is its business; the read goes on
  }
}
