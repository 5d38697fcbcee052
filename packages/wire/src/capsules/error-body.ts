import { CAPSULE_LIMITS } from '../cbor/capsule-limits.js';
import { FieldReader } from '../cbor/fields.js';
import { encodeCbor, type CborValue } from '../cbor/strict.js';
import { detailMapToCbor, readDetailMap } from '../cbor/value.js';
import type { Metadata } from '../envelope/metadata.js';

/** The body of every `error` envelope (content type `cbor`). */
export interface AgentErrorBody {
  /** AgentErrorCode (u8); unknown codes are kept as plain numbers. */
  readonly code: number;
  /** Human-readable message. */
  readonly message?: string | undefined;
  /** Whether the caller may retry; written only when true. */
  readonly retryable: boolean;
  /** Structured detail (metadata values). */
  readonly detail?: Metadata | undefined;
}

/** Encodes an AgentErrorBody: `code`, `message`, `retryable` (only when true), `detail`. */
export function encodeAgentErrorBody(body: AgentErrorBody): Uint8Array {
  const map = new Map<CborValue, CborValue>([['code', BigInt(body.code)]]);
  if (body.message !== undefined) map.set('message', body.message);
  if (body.retryable) map.set('retryable', true);
  if (body.detail !== undefined) map.set('detail', detailMapToCbor(body.detail));
  return encodeCbor(map);
}

/** Decodes an AgentErrorBody (surface `body`); CodecError on any bad field. */
export function decodeAgentErrorBody(bytes: Uint8Array): AgentErrorBody {
  const r = FieldReader.decode(bytes, 'body', CAPSULE_LIMITS.errorBody);
  return readAgentErrorBody(r);
}

/** Reads an AgentErrorBody from an already-decoded map (used where the body nests in a capsule). */
export function readAgentErrorBody(r: FieldReader): AgentErrorBody {
  const code = r.u8('code');
  const message = r.textOpt('message');
  const retryable = r.boolOpt('retryable') ?? false;
  const rawDetail = r.raw('detail');
  const body: { -readonly [K in keyof AgentErrorBody]: AgentErrorBody[K] } = { code, retryable };
  if (message !== undefined) body.message = message;
  if (rawDetail !== undefined) body.detail = readDetailMap(rawDetail, r.surface);
  return body;
}
