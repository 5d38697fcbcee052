/**
 * The telemetry of a call a bridge answers with a stream (Server-Sent Events). Unlike
 * `tracedServe`, whose span ends with the handler's promise, this span outlives the handler: it
 * ends when the stream does (its last event, an error event, or the client going away). Events
 * are counted here and handed to the hook once, at the end, so a long token stream costs the
 * hook nothing per event.
 */
import type { AgdxTelemetry, ServeEvent, ServeFailure, ServeSpan, ServeStreamEnd } from './agdx-telemetry.js';
import { guarded, runIn } from './guarded-telemetry.js';

/** Distinct event types counted one by one; further types are counted together as `other`. */
export const MAX_STREAM_EVENT_TYPES = 32;

/** The bridge's handle on one streamed call. Safe to use when no hook is installed (then it does nothing). */
export interface ServeStreamTrace {
  /** Runs work that opens the stream (publishing the command, say) inside the call's span. */
  run<T>(work: () => Promise<T>): Promise<T>;
  /** One event of `type` was sent to the client. */
  sent(type: string): void;
  /**
   * The stream ended (only the first call counts): `failure` for an error answer, `conversation`
   * for the session the call created when the event did not name it.
   */
  end(reason: ServeStreamEnd, failure?: ServeFailure | undefined, conversation?: string | undefined): void;
}

const UNTRACED: ServeStreamTrace = {
  run: (work) => work(),
  sent: () => undefined,
  end: () => undefined,
};

/**
 * Opens the trace of one streamed call: the hook's `onServe` span, ended with a
 * `ServeStreamSummary`. Without a hook (or one without `onServe`, or one that throws) the
 * returned trace does nothing and costs one `undefined` check per call.
 */
export function traceServeStream(telemetry: AgdxTelemetry | undefined, event: () => ServeEvent): ServeStreamTrace {
  if (telemetry?.onServe === undefined) return UNTRACED;
  const onServe = telemetry.onServe.bind(telemetry);
  const span = guarded(() => onServe(event()));
  return span === undefined ? UNTRACED : new StreamTrace(span);
}

class StreamTrace implements ServeStreamTrace {
  readonly #span: ServeSpan;
  readonly #types = new Map<string, number>();
  #events = 0;
  #firstEventAt: number | undefined;
  #ended = false;

  constructor(span: ServeSpan) {
    this.#span = span;
  }

  run<T>(work: () => Promise<T>): Promise<T> {
    return runIn(this.#span, work);
  }

  sent(type: string): void {
    if (this.#ended) return;
    this.#events++;
    this.#firstEventAt ??= performance.timeOrigin + performance.now();
    const key = this.#types.has(type) || this.#types.size < MAX_STREAM_EVENT_TYPES ? type : 'other';
    this.#types.set(key, (this.#types.get(key) ?? 0) + 1);
  }

  end(reason: ServeStreamEnd, failure?: ServeFailure | undefined, conversation?: string | undefined): void {
    if (this.#ended) return;
    this.#ended = true;
    try {
      this.#span.end(failure, conversation, { reason, events: this.#events, eventTypes: this.#types, firstEventAt: this.#firstEventAt });
    } catch {
      // observers never change the stream
    }
  }
}
