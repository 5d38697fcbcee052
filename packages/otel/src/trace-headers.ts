/**
 * W3C Trace Context in AGDX record headers. The keys are the W3C header names, `traceparent`
 * and `tracestate`, stored as Iggy string headers. Values read from the log are hostile:
 * anything that is not a well-formed traceparent (or a tracestate the API refuses) is ignored,
 * so a consumer starts a fresh trace instead of failing.
 */
import { createTraceState, isSpanContextValid, TraceFlags, type SpanContext } from '@opentelemetry/api';
import type { RecordHeaders } from '@agdx/wire';

/** Header key of the W3C traceparent. */
export const TRACEPARENT_HEADER = 'traceparent';
/** Header key of the W3C tracestate. */
export const TRACESTATE_HEADER = 'tracestate';

/** Iggy's bound on one header value; a longer tracestate is not written (the W3C allows 512 chars). */
const MAX_VALUE_BYTES = 255;
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;
// ignoreBOM: a value that starts with U+FEFF is malformed under the W3C rules, so it must not be
// repaired by the decoder dropping the mark.
const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The header pairs carrying `context` (nothing for an invalid span context). */
export function traceHeaders(context: SpanContext): Array<[string, string]> {
  if (!isSpanContextValid(context)) return [];
  const flags = (context.traceFlags & 0xff).toString(16).padStart(2, '0');
  const pairs: Array<[string, string]> = [[TRACEPARENT_HEADER, `00-${context.traceId}-${context.spanId}-${flags}`]];
  const state = context.traceState?.serialize();
  if (state !== undefined && state.length > 0 && state.length <= MAX_VALUE_BYTES) pairs.push([TRACESTATE_HEADER, state]);
  return pairs;
}

/**
 * The remote span context in a record's headers, or `undefined` when it has none or it is
 * malformed: a non-string header, version `ff`, a version-00 value with extra fields, all-zero
 * ids, or uppercase hex are all ignored as the W3C parsing rules say.
 */
export function readTraceHeaders(headers: RecordHeaders): SpanContext | undefined {
  const parent = textHeader(headers, TRACEPARENT_HEADER);
  if (parent === undefined) return undefined;
  const match = TRACEPARENT.exec(parent);
  if (match === null) return undefined;
  const [, version, traceId, spanId, flags, rest] = match as unknown as [string, string, string, string, string, string | undefined];
  if (version === 'ff' || (version === '00' && rest !== undefined)) return undefined;
  const context: SpanContext = {
    traceId,
    spanId,
    traceFlags: Number.parseInt(flags, 16) & TraceFlags.SAMPLED,
    isRemote: true,
  };
  if (!isSpanContextValid(context)) return undefined;
  const state = textHeader(headers, TRACESTATE_HEADER);
  if (state === undefined) return context;
  try {
    return { ...context, traceState: createTraceState(state) };
  } catch {
    return context;
  }
}

function textHeader(headers: RecordHeaders, key: string): string | undefined {
  const value = headers.get(key);
  if (value === undefined || value.kind !== 'string' || value.value.length > MAX_VALUE_BYTES) return undefined;
  try {
    return decoder.decode(value.value);
  } catch {
    return undefined;
  }
}
