/**
 * The error reply the runtime sends the requester of a command it dead-letters. Seed 000 makes a
 * correlated `error` envelope (an AgentErrorBody) the protocol's failed answer, and a requester
 * waits for a response or an error with its correlation; without this, a caller whose command was
 * dead-lettered learned nothing until its own timeout. The dead letter stays the durable record
 * for operators; the reply only tells the caller at once.
 */
import { AgdxError, AgentErrorCode, DeadLetterReason, type AgentErrorBody } from '@agdx/wire';

/** The longest reply message, in UTF-16 code units: the letter's detail holds the full text. */
const MAX_MESSAGE_CHARS = 1_024;

/** Readable names of the dead-letter reasons a reply can carry. */
const REASON_NAMES: ReadonlyMap<number, string> = new Map([
  [DeadLetterReason.RetryExhausted, 'retry exhausted'],
  [DeadLetterReason.Rejected, 'rejected'],
  [DeadLetterReason.DeadlineExceeded, 'deadline exceeded'],
]);

/** The error code for a non-retryable handler failure, by its kind; anything else is `Internal`. */
const CODE_BY_KIND: ReadonlyMap<string, number> = new Map([
  ['invalid', AgentErrorCode.InvalidRequest],
  ['codec', AgentErrorCode.InvalidRequest],
  ['typed-decode', AgentErrorCode.InvalidRequest],
  ['unsupported', AgentErrorCode.Unsupported],
  ['policy-blocked', AgentErrorCode.Unauthorized],
  ['authz', AgentErrorCode.Unauthorized],
  ['step-up-required', AgentErrorCode.Unauthorized],
  ['cancelled', AgentErrorCode.Cancelled],
]);

/** The AgentErrorCode of a dead letter: deadlines map to `DeadlineExceeded`, a non-retryable failure by its kind, the rest to `Internal`. */
export function deadLetterErrorCode(reason: number, failure: unknown): number {
  if (reason === DeadLetterReason.DeadlineExceeded) return AgentErrorCode.DeadlineExceeded;
  if (reason === DeadLetterReason.Rejected && AgdxError.is(failure)) return CODE_BY_KIND.get(failure.kind) ?? AgentErrorCode.Internal;
  return AgentErrorCode.Internal;
}

/**
 * The error body answering a dead-lettered command: the code, a message naming the dead-letter
 * reason and its detail (cut to 1,024 characters), `retryable` when sending the command again may
 * help (its failures were transient: attempts ran out, or handler attempts timed out), and
 * `detail` with the reason code and the attempts.
 */
export function deadLetterErrorBody(reason: number, attempts: number, detail: string, code: number, retryable: boolean): AgentErrorBody {
  const text = `dead-lettered (${REASON_NAMES.get(reason) ?? `reason ${reason}`}): ${detail}`;
  return {
    code,
    message: text.length > MAX_MESSAGE_CHARS ? `${text.slice(0, MAX_MESSAGE_CHARS)}…` : text,
    retryable,
    detail: new Map<string, number>([
      ['dead_letter_reason', reason],
      ['attempts', attempts],
    ]),
  };
}
