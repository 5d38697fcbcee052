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

/** Most positions one event id may carry (one per place a layout puts a conversation). */
export const MAX_EVENT_ID_POSITIONS = 256;

/**
 * The event id of a conversation read from several places (a topic or a partition per agent):
 * one `<partition>:<offset>` per place, in the order the layout names them, joined by `,`; a
 * place nothing was delivered from yet reads `<partition>:-` (offset `-1n` here). One place
 * gives exactly {@link formatEventId}'s form.
 */
export function formatEventIds(positions: readonly EventPosition[]): string {
  return positions.map((p) => (p.offset < 0n ? `${p.partition}:-` : formatEventId(p))).join(',');
}

/**
 * Parses an event id written by {@link formatEventIds} (offset `-1n` for `-`).
 * @throws InvalidError for anything else, or more than {@link MAX_EVENT_ID_POSITIONS} positions.
 */
export function parseEventIds(text: string): EventPosition[] {
  const parts = text.trim().split(',', MAX_EVENT_ID_POSITIONS + 1);
  if (parts.length > MAX_EVENT_ID_POSITIONS) {
    throw new InvalidError(`an AG-UI event id carries at most ${MAX_EVENT_ID_POSITIONS} positions`, { context: { field: 'Last-Event-ID' } });
  }
  return parts.map((part) => {
    const none = /^(\d{1,10}):-$/.exec(part);
    return none?.[1] !== undefined && parts.length > 1 ? { partition: parseEventId(`${none[1]}:0`).partition, offset: -1n } : parseEventId(part);
  });
}

/** One SSE event block carrying an AG-UI event as JSON, with an `id:` line when given. */
export function sseEvent(event: AguiEvent, id?: string): string {
  return `${id !== undefined ? `id: ${id}\n` : ''}data: ${JSON.stringify(event)}\n\n`;
}

/** An SSE comment block (ignored by clients; keeps idle connections open through proxies). */
export function sseComment(text: string): string {
  return `: ${text.replace(/[\r\n]+/g, ' ')}\n\n`;
}
