/**
 * Turns what the Iggy protocol layer and Node's sockets throw into the transport's typed errors,
 * so callers of a `LogTransport` see the same kinds whichever log sits underneath.
 */

import {
  ConflictError,
  InvalidArgumentError,
  NotFoundError,
  TransportError,
  TransportFailureError,
} from '@agdx/transport';
import { IggyError, IggyEvictionError, IggyProtocolError, UNMATCHED_REPLY } from '@agdx/iggy-protocol';
import { ChecksumMismatchError, UnexpectedReplyError } from './integrity-errors.js';

/** Iggy codes meaning "the stream, topic, partition or group does not exist". */
const NOT_FOUND_CODES: ReadonlySet<number> = new Set([20, 1009, 2010, 3007, 3008, 5000]);
/**
 * Iggy codes meaning "an argument broke a rule" (names, counts, sizes, offsets). 3 is
 * InvalidCommand: the server could not decode or validate the request (a truncated or
 * malformed body, an unknown command code, a value out of the codec's range); nothing was
 * applied and sending the same bytes again gets the same answer, so it is the caller's error,
 * not a transport fault to retry.
 */
const INVALID_CODES: ReadonlySet<number> = new Set([
  3, 4, 6, 43, 44, 45, 50, 56, 1013, 2014, 2015, 2019, 4009, 4017, 4018, 4019, 4022, 4036, 4037, 4040, 4041, 4042, 4043, 4100, 5005,
]);
/**
 * Iggy codes meaning "the request contradicts existing state" (including a taken username or
 * token name, and the root user, which can be neither deleted nor have its permissions changed).
 */
const CONFLICT_CODES: ReadonlySet<number> = new Set([46, 48, 49, 51, 1012, 2013, 5004, 5006, 5009]);

/** The transport error kind an Iggy error code maps to. */
export type IggyCodeKind = 'not-found' | 'invalid' | 'conflict' | 'transport';

/** Which transport error kind an Iggy error code becomes (see the README's table). */
export function kindOfIggyCode(code: number): IggyCodeKind {
  if (NOT_FOUND_CODES.has(code)) return 'not-found';
  if (INVALID_CODES.has(code)) return 'invalid';
  if (CONFLICT_CODES.has(code)) return 'conflict';
  return 'transport';
}

/** True for an error thrown because the server answered with this Iggy code. */
export function hasIggyCode(error: unknown, code: number): boolean {
  return error instanceof IggyError && error.code === code;
}

/** The Iggy code behind a mapped error (`context.iggyCode`) or a raw `IggyError`, if any. */
export function iggyCodeOf(error: unknown): number | undefined {
  if (error instanceof IggyError) return error.code;
  const code = (error as { context?: { iggyCode?: unknown } } | null)?.context?.iggyCode;
  return typeof code === 'number' ? code : undefined;
}

/**
 * Maps any failure to a {@link TransportError}. Errors that already carry a transport kind pass
 * through; Iggy statuses map by code (`context.iggyCode`, `context.iggyCodeName`); a checksum
 * mismatch becomes {@link ChecksumMismatchError}, a reply that answers no request
 * {@link UnexpectedReplyError}; malformed bytes, evictions and socket errors become
 * `TransportFailureError` (all of kind `transport`).
 */
export function toTransportError(error: unknown, context: Readonly<Record<string, unknown>> = {}): TransportError {
  if (error instanceof IggyEvictionError) {
    return new TransportFailureError(error.message, {
      cause: error,
      context: { ...context, iggyCode: error.code, iggyCodeName: error.codeName, evictionReason: error.reason, evictionReasonName: error.reasonName },
    });
  }
  if (error instanceof IggyError) {
    const ctx = { ...context, iggyCode: error.code, iggyCodeName: error.codeName };
    const message = `Iggy server error ${error.code} (${error.codeName})`;
    switch (kindOfIggyCode(error.code)) {
      case 'not-found':
        return new NotFoundError(message, { cause: error, context: ctx });
      case 'invalid':
        return new InvalidArgumentError(message, { cause: error, context: ctx });
      case 'conflict':
        return new ConflictError(message, { cause: error, context: ctx });
      default:
        return new TransportFailureError(message, { cause: error, context: ctx });
    }
  }
  if (IggyProtocolError.is(error, 'integrity')) {
    const scope = error.context?.['iggyCode'] === 4039 ? 'batch' : 'message';
    return new ChecksumMismatchError(`corrupted data from the Iggy server: ${error.message}`, scope, { cause: error, context: { ...context, ...error.context } });
  }
  const reason = IggyProtocolError.is(error, 'codec') ? error.context?.['reason'] : undefined;
  if (reason === UNMATCHED_REPLY.requestNumber || reason === UNMATCHED_REPLY.nothingInFlight) {
    const mismatch = reason === UNMATCHED_REPLY.requestNumber ? 'request-number' : 'nothing-in-flight';
    return new UnexpectedReplyError(`unexpected reply from the Iggy server: ${(error as Error).message}`, mismatch, {
      cause: error,
      context: { ...context, ...(error as IggyProtocolError).context },
    });
  }
  if (IggyProtocolError.is(error) && error.kind === 'codec') {
    return new TransportFailureError(`malformed data from the Iggy server: ${error.message}`, {
      cause: error,
      context: { ...context, ...error.context },
    });
  }
  if (TransportError.is(error)) {
    // Both packages share the brand and the `invalid` kind: only the codecs' own class is wrapped.
    if (error.kind === 'invalid' && error.name.startsWith('Iggy')) {
      return new InvalidArgumentError(error.message, { cause: error, context: { ...context, ...error.context } });
    }
    return error;
  }
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: unknown } | null)?.code;
  return new TransportFailureError(`Iggy connection failed: ${message}`, {
    cause: error,
    context: typeof code === 'string' ? { ...context, errno: code } : context,
  });
}
