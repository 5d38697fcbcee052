/**
 * The telemetry of one live response: a SERVER span (`agui run` for a POST run, `agui follow`
 * for a GET stream) that lasts until the stream ends, counting the events sent by type.
 */

import type { ServeStreamTrace } from '@agdx/agents';
import type { AguiEvent } from './events.js';

/** Feeds a response's events to its serve trace and ends it with the reason the events tell. */
export class TracedEvents {
  readonly #trace: ServeStreamTrace;
  #runError: string | undefined;

  /** Reports to `trace` (a no-op trace when no hook is installed). */
  constructor(trace: ServeStreamTrace) {
    this.#trace = trace;
  }

  /** These events were handed to the client. */
  sent(events: readonly AguiEvent[]): void {
    for (const event of events) {
      this.#trace.sent(event.type);
      if (event.type === 'RUN_ERROR') this.#runError = event.message;
    }
  }

  /** The stream ended by itself: failed when it carried a RUN_ERROR, completed otherwise. */
  finished(): void {
    if (this.#runError !== undefined) this.#trace.end('failed', { message: this.#runError });
    else this.#trace.end('completed');
  }

  /** The stream could not go on (a read failed; a GET stream has no RUN_ERROR to say so). */
  failed(error: unknown): void {
    this.#trace.end('failed', { message: error instanceof Error ? error.message : String(error) });
  }

  /** The client went away (or the request was aborted) before the stream ended. */
  disconnected(): void {
    this.#trace.end('disconnected');
  }
}
