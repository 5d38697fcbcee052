/**
 * One log record in readable form: its kind, ids in Crockford form, headers, and its body as
 * text or JSON where the content type allows. Never throws on hostile bytes: what cannot be
 * decoded is reported as such.
 */

import { readHeaderValue, type LogRecord } from '@agdx/transport';
import { AgentEnvelope, ContentType, contentTypeName, decodeStrictCbor, taskStateName } from '@agdx/wire';
import { formatPosition } from './position.js';
import { printable } from './printable.js';

/** A decoded record, ready to print or to serialise as JSON. */
export interface DecodedRecord {
  /** Topic the record was read from. */
  readonly topic: string;
  /** Partition. */
  readonly partition: number;
  /** Offset, as a decimal string (JSON has no u64). */
  readonly offset: string;
  /** Broker time, ISO 8601. */
  readonly time: string;
  /** The envelope kind, `plain` for a record without `agdx.av`, or `undecodable`. */
  readonly kind: string;
  /** Envelope fields that are set: ids in Crockford form, names as text. */
  readonly fields: Readonly<Record<string, string>>;
  /** Every Iggy header, as text. */
  readonly headers: Readonly<Record<string, string>>;
  /** The content type name (from `agdx.ct`), when known. */
  readonly contentType: string | undefined;
  /** The body: parsed JSON, text, a CBOR value, or `<n bytes>` / hex when opaque. */
  readonly body: unknown;
  /** Why the payload could not be decoded, when it could not. */
  readonly error?: string | undefined;
}

// ignoreBOM: a text body is shown as sent, a leading U+FEFF included (the default drops it).
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function hex(bytes: Uint8Array, max: number = 32): string {
  const shown = Array.from(bytes.subarray(0, max), (b) => b.toString(16).padStart(2, '0')).join('');
  return bytes.length > max ? `${shown}… (${bytes.length} bytes)` : shown;
}

function headerText(value: unknown): string {
  if (value instanceof Uint8Array) return `0x${hex(value)}`;
  return String(value);
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const MIN_SAFE = -MAX_SAFE;

/** Turns CBOR-decoded values into JSON-friendly ones (bytes as hex, bigints as text, maps as objects). */
function jsonFriendly(value: unknown, depth: number = 0): unknown {
  if (depth > 32) return '…';
  if (value instanceof Uint8Array) return value.length === 16 ? `0x${hex(value)}` : `0x${hex(value, 64)}`;
  // The strict reader gives every integer as a bigint: exact ones print as numbers, others as text.
  if (typeof value === 'bigint') return value >= MIN_SAFE && value <= MAX_SAFE ? Number(value) : value.toString();
  if (Array.isArray(value)) return value.map((v) => jsonFriendly(v, depth + 1));
  if (value instanceof Map) return Object.fromEntries([...value].map(([k, v]) => [String(k), jsonFriendly(v, depth + 1)]));
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, jsonFriendly(v, depth + 1)]));
  return value;
}

/**
 * Largest body that is parsed for display (JSON or CBOR). A bigger one is summarised instead: one
 * hostile record must not hold the tail for seconds (JSON.parse has no limits of its own).
 */
export const MAX_READABLE_BODY_BYTES: number = 1024 * 1024;

/** The body shown for bytes of a content type. */
export function readableBody(bytes: Uint8Array, contentType: number | undefined): unknown {
  if (bytes.length === 0) return '';
  if (bytes.length > MAX_READABLE_BODY_BYTES) {
    return `<${bytes.length} bytes of ${contentType === undefined ? 'body' : (contentTypeName(contentType) ?? `type ${contentType}`)}, over the ${MAX_READABLE_BODY_BYTES}-byte display cap: 0x${hex(bytes)}>`;
  }
  if (contentType === ContentType.cbor || contentType === ContentType.ref) {
    try {
      // The wire package's strict reader: counts and lengths are checked before anything is built.
      return jsonFriendly(decodeStrictCbor(bytes, { surface: 'body' }));
    } catch {
      return `<${bytes.length} bytes, not CBOR: 0x${hex(bytes)}>`;
    }
  }
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return `<${bytes.length} bytes: 0x${hex(bytes)}>`;
  }
  if (contentType === ContentType.json) {
    try {
      // JSON lets a parser ignore one leading byte order mark; JSON.parse refuses it, so skip it here.
      return JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text) as unknown;
    } catch {
      return text;
    }
  }
  if (contentType === undefined || contentType === ContentType.raw) return text;
  return `<${bytes.length} bytes of ${contentTypeName(contentType) ?? `type ${contentType}`}>`;
}

function envelopeFields(envelope: AgentEnvelope): Record<string, string> {
  const fields: Record<string, string> = {};
  const set = (name: string, value: { toString(): string } | undefined): void => {
    if (value !== undefined) fields[name] = value.toString();
  };
  set('record', envelope.record);
  set('conversation', envelope.conversation);
  set('source', envelope.source);
  set('target', envelope.target);
  set('correlation', envelope.correlation);
  set('operation', envelope.operation);
  set('tool', envelope.tool);
  set('channel', envelope.channel);
  set('sequence', envelope.sequence);
  if (envelope.last === true) fields['last'] = 'true';
  set('finish_reason', envelope.finishReason);
  if (envelope.taskState !== undefined) fields['task_state'] = taskStateName(envelope.taskState) ?? String(envelope.taskState);
  set('cause', envelope.cause);
  set('parent', envelope.parent);
  set('root', envelope.root);
  set('idempotency_key', envelope.idempotencyKey);
  if (envelope.usage !== undefined) fields['usage'] = `in ${envelope.usage.inputTokens}, out ${envelope.usage.outputTokens}`;
  if (envelope.signature !== undefined) fields['signature'] = 'present';
  for (const [key, value] of envelope.metadata ?? []) fields[`metadata.${key}`] = typeof value === 'string' ? value : JSON.stringify(jsonFriendly(value));
  return fields;
}

/** Decodes one record read from `topic`. */
export function decodeRecord(topic: string, record: LogRecord): DecodedRecord {
  const headers: Record<string, string> = {};
  for (const [name, value] of record.headers) {
    try {
      headers[name] = headerText(readHeaderValue(value));
    } catch {
      headers[name] = `<bad ${value.kind} header>`;
    }
  }
  const ctHeader = record.headers.get('agdx.ct');
  let contentType: number | undefined;
  try {
    const value = ctHeader === undefined ? undefined : readHeaderValue(ctHeader);
    contentType = typeof value === 'number' ? value : undefined;
  } catch {
    contentType = undefined;
  }
  const base = {
    topic,
    partition: record.partition,
    offset: record.offset.toString(),
    time: new Date(Number(record.timestampMicros / 1000n)).toISOString(),
    headers,
    contentType: contentType === undefined ? undefined : (contentTypeName(contentType) ?? String(contentType)),
  };
  if (!record.headers.has('agdx.av')) {
    const fields: Record<string, string> = {};
    for (const name of ['gen_ai.conversation.id', 'gen_ai.agent.id', 'agdx.to'] as const) if (headers[name] !== undefined) fields[name.replace(/^gen_ai\./, '').replace(/\.id$/, '')] = headers[name];
    return { ...base, kind: 'plain', fields, body: readableBody(record.payload, contentType) };
  }
  try {
    const envelope = AgentEnvelope.decode(record.payload);
    return { ...base, kind: envelope.kind, fields: envelopeFields(envelope), body: readableBody(envelope.body ?? new Uint8Array(0), contentType) };
  } catch (error) {
    return { ...base, kind: 'undecodable', fields: {}, body: `<${record.payload.length} bytes: 0x${hex(record.payload)}>`, error: error instanceof Error ? error.message : String(error) };
  }
}

/**
 * A short multi-line rendering of a decoded record for people: one line per field, every text
 * from the log shown with its control characters escaped (see `printable`), so a record cannot
 * add lines of its own or send the terminal escape sequences.
 */
export function formatRecord(record: DecodedRecord, showHeaders: boolean): string {
  const head = `${record.time} ${printable(formatPosition(record))} ${printable(record.kind)}${record.fields['operation'] !== undefined ? ` ${printable(record.fields['operation'])}` : ''}`;
  const lines = [head];
  for (const [name, value] of Object.entries(record.fields)) if (name !== 'operation') lines.push(`  ${printable(name).padEnd(16)} ${printable(value)}`);
  if (showHeaders) for (const [name, value] of Object.entries(record.headers)) lines.push(`  header ${printable(name).padEnd(9)} ${printable(value)}`);
  if (record.contentType !== undefined) lines.push(`  ${'content type'.padEnd(16)} ${record.contentType}`);
  if (record.error !== undefined) lines.push(`  ${'error'.padEnd(16)} ${printable(record.error)}`);
  const body = typeof record.body === 'string' ? record.body : JSON.stringify(record.body);
  if (body !== '') lines.push(`  ${'body'.padEnd(16)} ${printable(body.length > 400 ? `${body.slice(0, 399)}…` : body)}`);
  return lines.join('\n');
}
