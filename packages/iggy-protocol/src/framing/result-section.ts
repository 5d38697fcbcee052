/**
 * The VSR result section that leads result-framed reply bodies:
 * `[count u32]` then `count × [index u32][result u32]`. Count 0 means success and the typed
 * payload follows; a non-zero result is a committed business rejection.
 */

import { IggyError, IggyEvictionError } from '../errors.js';
import { ByteReader } from '../internal/byte-reader.js';
import { checkU32 } from '../internal/checks.js';
import { isResultFramedOperation } from './operations.js';
import type { VsrServerFrame } from './vsr-header.js';
import { decodeVsrServerFrame, evictionErrorCode, evictionReasonName } from './vsr-header.js';

/** One entry of a result section. */
export interface ResultEntry {
  /** Index of the sub-operation. */
  readonly index: number;
  /** 0 for success, otherwise an IggyError code. */
  readonly code: number;
}

/** A decoded result section and the payload after it. */
export interface ResultSection {
  /** The entries, in wire order. */
  readonly results: readonly ResultEntry[];
  /** The payload that follows (a view). */
  readonly payload: Uint8Array;
}

/** Decodes a result section. The count is checked against the bytes present before any allocation. */
export function decodeResultSection(body: Uint8Array): ResultSection {
  const r = new ByteReader(body, 'result section');
  const count = r.u32('count');
  r.need(count * 8, 'results');
  const results: ResultEntry[] = [];
  for (let i = 0; i < count; i++) results.push({ index: r.u32('index'), code: r.u32('result') });
  return { results, payload: r.rest() };
}

/** Encodes a result section followed by a payload (server side). No results means success. */
export function encodeResultSection(results: readonly ResultEntry[] = [], payload: Uint8Array = new Uint8Array(0)): Uint8Array {
  const out = new Uint8Array(4 + results.length * 8 + payload.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, results.length, true);
  results.forEach((e, i) => {
    view.setUint32(4 + i * 8, checkU32(e.index, 'index'), true);
    view.setUint32(8 + i * 8, checkU32(e.code, 'result'), true);
  });
  out.set(payload, 4 + results.length * 8);
  return out;
}

/** Builds the error for an eviction frame. */
export function evictionError(frame: Extract<VsrServerFrame, { type: 'eviction' }>): IggyEvictionError {
  const h = frame.header;
  const windowValid = h.serverProtocolVersionMin >= 1 && h.serverProtocolVersionMin <= h.serverProtocolVersion;
  return new IggyEvictionError(h.reason, evictionReasonName(h.reason), evictionErrorCode(h.reason, windowValid), {
    context: { serverProtocolVersion: h.serverProtocolVersion, serverProtocolVersionMin: h.serverProtocolVersionMin },
  });
}

/**
 * Client-side decoding order of a VSR server frame (sheet §2.3.6): eviction, size, status,
 * declared operation, then the result section when the reply's operation is result-framed.
 * Returns the typed payload, or throws {@link IggyEvictionError} / {@link IggyError} /
 * `IggyCodecError`.
 */
export function unwrapVsrReply(frame: Uint8Array | VsrServerFrame): Uint8Array {
  const decoded = frame instanceof Uint8Array ? decodeVsrServerFrame(frame) : frame;
  if (decoded.type === 'eviction') throw evictionError(decoded);
  const { header, body } = decoded;
  if (header.status !== 0) throw new IggyError(header.status);
  const framed = isResultFramedOperation(header.operation) || (header.operation === 1 && body.length > 0);
  if (!framed) return body;
  const section = decodeResultSection(body);
  for (const e of section.results) {
    if (e.code !== 0) throw new IggyError(e.code, undefined, { context: { index: e.index } });
  }
  return section.payload;
}
