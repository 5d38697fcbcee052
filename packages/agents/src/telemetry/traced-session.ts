/**
 * The one call `@agdx/sessions` makes to report a session operation: one `undefined` check when
 * no hook (or a hook without `onSession`) is installed, and the operation's result or error unchanged.
 */
import type { AgdxTelemetry, SessionEvent, SessionSpan } from './agdx-telemetry.js';
import { guarded } from './guarded-telemetry.js';

/**
 * Runs `operation` between the hook's `onSession` and the span's `end` (with the error when it
 * throws, which is rethrown unchanged). A hook that throws counts as absent. `operation` is
 * handed the span's string headers (trace context) for the record a turn append writes; add
 * them with `withTelemetryHeaders`, which keeps the header-block limits.
 */
export async function tracedSession<T>(
  telemetry: AgdxTelemetry | undefined,
  event: () => SessionEvent,
  operation: (headers: ReadonlyArray<readonly [string, string]> | undefined) => Promise<T>,
): Promise<T> {
  if (telemetry?.onSession === undefined) return operation(undefined);
  const onSession = telemetry.onSession.bind(telemetry);
  const span = guarded(() => onSession(event()));
  let result: T;
  try {
    result = await operation(headersOf(span));
  } catch (error) {
    endSession(span, error);
    throw error;
  }
  endSession(span, undefined);
  return result;
}

function endSession(span: SessionSpan | undefined, error: unknown): void {
  try {
    span?.end(error);
  } catch {
    // observers never change the operation
  }
}

// A hook whose `headers` getter throws adds none.
function headersOf(span: SessionSpan | undefined): ReadonlyArray<readonly [string, string]> | undefined {
  return guarded(() => span?.headers);
}
