/**
 * The one call a bridge makes to report a served request: it keeps the bridge's call site to a
 * single line and costs one `undefined` check when no hook (or a hook without `onServe`) is installed.
 */
import type { AgdxTelemetry, ServeEvent, ServeFailure, ServeSpan } from './agdx-telemetry.js';
import { guarded, runIn } from './guarded-telemetry.js';

/** What a served call's answer tells the span: its failure, and the session it created or named. */
export interface ServeOutcome {
  /** Set when the answer is an error. */
  readonly failure?: ServeFailure | undefined;
  /** The session, when the answer names it. */
  readonly conversation?: string | undefined;
}

/**
 * Runs `serve` inside a serve span when the hook has `onServe`: sends made while serving are the
 * span's children. `outcomeOf` reads the answer (an error response counts as a failure); a thrown
 * error ends the span failed and is rethrown unchanged. A hook that throws counts as absent.
 */
export async function tracedServe<R>(
  telemetry: AgdxTelemetry | undefined,
  event: () => ServeEvent,
  serve: () => Promise<R>,
  outcomeOf: (answer: R) => ServeOutcome,
): Promise<R> {
  if (telemetry?.onServe === undefined) return serve();
  const onServe = telemetry.onServe.bind(telemetry);
  const span = guarded(() => onServe(event()));
  if (span === undefined) return serve();
  let answer: R;
  try {
    answer = await runIn(span, serve);
  } catch (error) {
    endServe(span, { failure: { message: messageOf(error) } });
    throw error;
  }
  let outcome: ServeOutcome;
  try {
    outcome = outcomeOf(answer);
  } catch {
    outcome = {};
  }
  endServe(span, outcome);
  return answer;
}

function endServe(span: ServeSpan, outcome: ServeOutcome): void {
  try {
    span.end(outcome.failure, outcome.conversation);
  } catch {
    // observers never change the answer
  }
}

function messageOf(error: unknown): string {
  const message = (error as { message?: unknown } | null)?.message;
  return typeof message === 'string' ? message : 'failed';
}
