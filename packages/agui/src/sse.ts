/**
 * Server-Sent Events framing and the event ids that carry a log position, so a reconnecting
 * EventSource (Last-Event-ID) resumes right after the last record it saw.
 */

import { InvalidError } from '@agdx/wire';
import type { AguiEvent } from './events.js';

/** The SSE content type. */
export const SSE_CONTENT_TYPE = 'text/event-stream';

/** A log position inside a conversation's partition, as an SSE event id carries it. */
export interface EventPosition {
  /** The conversation's partition. */
  readonly partition: number;
  /** The offset of the last record whose events were delivered. */
  readonly offset: bigint;
}

/** `<partition>:<offset>`, the message-id form of a log position. */
export function formatEventId(position: EventPosition): string {
  return `${position.partition}:${position.offset}`;
}

const EVENT_ID = /^(\d{1,10}):(\d{1,20})$/;
const U64_MAX = (1n << 64n) - 1n;

/**
 * Parses an event id written by {@link formatEventId}.
 * @throws InvalidError for anything else (the handler answers 400).
 */
export function parseEventId(text: string): EventPosition {
  const match = EVENT_ID.exec(text.trim());
  const partition = match?.[1] !== undefined ? Number(match[1]) : Number.NaN;
  const offset = match?.[2] !== undefined ? BigInt(match[2]) : -1n;
  if (!Number.isSafeInteger(partition) || partition > 0xffff_ffff || offset < 0n || offset > U64_MAX) {
    throw new InvalidError('an AG-UI event id must be `<partition>:<offset>`', { context: { field: 'Last-Event-ID' } });
  }
  return { partition, offset };
}

/** One SSE event block carrying an AG-UI event as JSON, with an `id:` line when given. */
export function sseEvent(event: AguiEvent, id?: string): string {
  return `${id !== undefined ? `id: ${id}\n` : ''}data: ${JSON.stringify(event)}\n\n`;
}

/** An SSE comment block (ignored by clients; keeps idle connections open through proxies). */
export function sseComment(text: string): string {
  return `: ${text.replace(/[\r\n]+/g, ' ')}\n\n`;
}
