import type { ModelMessage } from 'ai';
import { jsonText } from './json-text.js';

/** The marker (and format version) of a turn payload this package wrote. */
export const TURN_FORMAT = 'agdx.ai-sdk/1';

/** A decoded turn payload: the message, and the call and place it came from. */
export interface TurnPayload {
  /** The model call the message belongs to (one id per recorded call). */
  readonly call: string;
  /** Its position within the call, so turns written within one broker microsecond keep their order. */
  readonly seq: number;
  /** The AI SDK message. */
  readonly message: ModelMessage;
}

const encoder = new TextEncoder();
// Only payloads whose first byte is `{` reach it, so its byte-order-mark handling never applies.
const decoder = new TextDecoder('utf-8', { fatal: true });
const ROLES = new Set(['system', 'user', 'assistant', 'tool']);

/** The payload of a session turn holding one AI SDK message (JSON, bytes as base64). */
export function encodeTurnPayload(call: string, seq: number, message: ModelMessage): Uint8Array {
  return encoder.encode(`{"format":${JSON.stringify(TURN_FORMAT)},"call":${JSON.stringify(call)},"seq":${seq},"message":${jsonText(message)}}`);
}

function isPart(value: unknown): boolean {
  return typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string';
}

function isMessage(value: unknown): value is ModelMessage {
  if (typeof value !== 'object' || value === null) return false;
  const { role, content } = value as { role?: unknown; content?: unknown };
  if (typeof role !== 'string' || !ROLES.has(role)) return false;
  if (typeof content === 'string') return role !== 'tool';
  return Array.isArray(content) && content.every(isPart);
}

/**
 * The message a turn payload holds, or `undefined` when the payload is not one this package
 * wrote (another writer's plain turn) or is malformed: a turn read from the log is untrusted.
 */
export function decodeTurnPayload(payload: Uint8Array): TurnPayload | undefined {
  // Cheap first test: only payloads that start like ours are parsed as JSON.
  if (payload.length < 12 || payload[0] !== 0x7b) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(decoder.decode(payload));
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const { format, call, seq, message } = value as { format?: unknown; call?: unknown; seq?: unknown; message?: unknown };
  if (format !== TURN_FORMAT || typeof call !== 'string' || typeof seq !== 'number' || !Number.isSafeInteger(seq) || seq < 0) return undefined;
  return isMessage(message) ? { call, seq, message } : undefined;
}
