/**
 * Watches a bridge handler from the outside, the way a framework calls it: whether the request
 * signal it got was aborted and whether its streamed answer was cancelled. A disconnect test
 * waits on these instead of on a fixed sleep.
 */

import type { EdgeHandler, EdgeHandlers } from '../../../../examples/edge-app/edge.js';

/** What happened to the requests of one handler. */
export interface Observations {
  /** Requests whose signal was aborted (the client went away). */
  aborted: number;
  /** Streamed answers whose body was cancelled. */
  cancelled: number;
}

function observed(handler: EdgeHandler, seen: Observations): EdgeHandler {
  return async (request) => {
    request.signal.addEventListener('abort', () => void (seen.aborted += 1), { once: true });
    const response = await handler(request);
    if (response.body === null || !(response.headers.get('content-type') ?? '').includes('text/event-stream')) return response;
    const reader = response.body.getReader();
    const body = new ReadableStream<Uint8Array>(
      {
        async pull(controller) {
          const next = await reader.read();
          if (next.done) controller.close();
          else controller.enqueue(next.value);
        },
        async cancel(reason) {
          seen.cancelled += 1;
          await reader.cancel(reason);
        },
      },
      { highWaterMark: 0 },
    );
    return new Response(body, { status: response.status, headers: response.headers });
  };
}

/** The handlers wrapped, and what each one saw. */
export function observeAll(handlers: EdgeHandlers): { handlers: EdgeHandlers; seen: Record<keyof EdgeHandlers, Observations> } {
  const seen = { a2a: { aborted: 0, cancelled: 0 }, mcp: { aborted: 0, cancelled: 0 }, agui: { aborted: 0, cancelled: 0 } };
  return { handlers: { a2a: observed(handlers.a2a, seen.a2a), mcp: observed(handlers.mcp, seen.mcp), agui: observed(handlers.agui, seen.agui) }, seen };
}
