/**
 * Error text on spans. An error's message can come from far away (a remote agent's error body,
 * a bridge's JSON-RPC answer) and be as long as a record, and the SDK keeps attribute values
 * whole by default: each text is cut here. Reading an error never throws, whatever was thrown.
 */
import type { Exception } from '@opentelemetry/api';

/** The most characters of an error's message (or name) a span keeps. */
export const MAX_ERROR_TEXT_CHARS = 1024;
// A stack is longer by nature; its top frames are the useful ones.
const MAX_STACK_CHARS = 4 * MAX_ERROR_TEXT_CHARS;

/** `text` cut to `max` characters (an ellipsis marks the cut), never splitting a surrogate pair. */
export function boundedText(text: string, max: number = MAX_ERROR_TEXT_CHARS): string {
  if (text.length <= max) return text;
  let end = max - 1;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}…`;
}

/** The message of anything thrown or handed over (an `Error`, an AGDX error body, any value), bounded. */
export function errorMessageOf(error: unknown): string | undefined {
  if (error === undefined) return undefined;
  try {
    const message = (error as { message?: unknown } | null)?.message;
    return boundedText(typeof message === 'string' ? message : String(error));
  } catch {
    // A getter that throws, or a value with no text form (`Object.create(null)`).
    return 'unprintable error';
  }
}

/** An `Error` as a bounded exception for `span.recordException`, or `undefined` for anything else. */
export function exceptionOf(error: unknown): Exception | undefined {
  if (!(error instanceof Error)) return undefined;
  try {
    const exception: { name: string; message: string; stack?: string } = { name: boundedText(String(error.name)), message: boundedText(String(error.message)) };
    if (typeof error.stack === 'string') exception.stack = boundedText(error.stack, MAX_STACK_CHARS);
    return exception;
  } catch {
    return undefined;
  }
}
