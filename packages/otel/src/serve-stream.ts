/**
 * How a SERVER span records the stream a bridge answered with (AG-UI SSE, A2A streaming): the
 * end reason and event counts as attributes, and an event at the first frame sent, so the time
 * to the first event shows on the span's timeline.
 */
import type { Span } from '@opentelemetry/api';
import type { ServeStreamSummary } from '@agdx/agents';
import { AgdxAttr } from './semantic-conventions.js';

/** Writes `stream` onto `span` (before it ends). */
export function recordServeStream(span: Span, stream: ServeStreamSummary): void {
  if (!span.isRecording()) return;
  span.setAttribute(AgdxAttr.sseEndReason, stream.reason);
  span.setAttribute(AgdxAttr.sseEvents, stream.events);
  for (const [type, count] of stream.eventTypes) span.setAttribute(`${AgdxAttr.sseEventType}${type}`, count);
  if (stream.firstEventAt !== undefined) span.addEvent('first event', stream.firstEventAt);
}
