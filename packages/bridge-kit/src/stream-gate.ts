/**
 * How a handler takes an event-stream slot before it starts work. The node adapter limits the
 * event streams one client holds open; it can refuse a request that asks for one (`Accept:
 * text/event-stream`) before the handler runs, but a handler that answers every request with a
 * stream (the AG-UI endpoint) would otherwise only be refused once it answered, after its work (a
 * run's published command) was done. Such a handler reserves the slot itself first.
 *
 * The gate travels on the request under a registry symbol rather than in a module-level map, so a
 * handler and an adapter loaded from two copies of this package still find each other.
 */

const GATE: unique symbol = Symbol.for('@agdx/bridge-kit.event-stream-gate');

/** Takes the request's event-stream slot: true when it is held (or was already), false when the client is at its limit. */
export type EventStreamGate = () => boolean;

/** @internal Puts the adapter's gate on the request it hands to the handler. */
export function attachEventStreamGate(request: Request, gate: EventStreamGate): void {
  Object.defineProperty(request, GATE, { value: gate, enumerable: false, configurable: true });
}

/** @internal The gate on `request`, if an adapter put one there. */
export function eventStreamGateOf(request: Request): EventStreamGate | undefined {
  const gate = (request as unknown as { readonly [GATE]?: unknown })[GATE];
  return typeof gate === 'function' ? (gate as EventStreamGate) : undefined;
}

/**
 * Reserves an event-stream slot for `request` before the handler does any work for an answer it
 * will stream: `true` when the stream may be opened (the slot is held until the answer ends, and
 * given back if the answer is not a stream after all), `false` when the client already holds its
 * limit of open streams (answer 429 then, having started nothing). Always `true` where no adapter
 * limits streams (the request did not come through `@agdx/bridge-kit/node`). Calling it again for
 * the same request holds no second slot.
 */
export function reserveEventStream(request: Request): boolean {
  const gate = eventStreamGateOf(request);
  return gate === undefined ? true : gate();
}
