/**
 * Classic frames (servers up to 0.8.x, binary protocol 0.10): a request is
 * `[length u32][code u32][payload]` with length = 4 + payload, a response is
 * `[status u32][length u32][payload]`; an error response has status ≠ 0 and no payload.
 */

import { IggyCodecError, IggyError, IggyInvalidError } from '../errors.js';
import { checkU32 } from '../internal/checks.js';

/** The classic server's payload cap for every command but SendMessages (10 MiB). */
export const CLASSIC_MAX_CONTROL_PAYLOAD: number = 10 * 1024 * 1024;
/** A generous default cap for any classic frame, SendMessages included (64 MiB + 1 MiB). */
export const CLASSIC_DEFAULT_MAX_FRAME_SIZE: number = 65 * 1024 * 1024;

function viewOf(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** Encodes a classic request frame. */
export function encodeClassicRequest(code: number, payload: Uint8Array = new Uint8Array(0)): Uint8Array {
  checkU32(code, 'code');
  checkU32(4 + payload.length, 'length');
  const frame = new Uint8Array(8 + payload.length);
  const view = viewOf(frame);
  view.setUint32(0, 4 + payload.length, true);
  view.setUint32(4, code, true);
  frame.set(payload, 8);
  return frame;
}

/** Bytes of a classic request header: `[length u32 LE][code u32 LE]`. */
export const CLASSIC_REQUEST_HEADER_SIZE = 8;

/**
 * Builds a classic request frame around `payload` without copying it: the
 * {@link CLASSIC_REQUEST_HEADER_SIZE} bytes before `payload` in its buffer must be free for the
 * caller's use; the header is written there and the frame is a view over header and payload.
 * Same bytes as {@link encodeClassicRequest}.
 */
export function encodeClassicRequestInPlace(code: number, payload: Uint8Array): Uint8Array {
  checkU32(code, 'code');
  checkU32(4 + payload.length, 'length');
  if (payload.byteOffset < CLASSIC_REQUEST_HEADER_SIZE) {
    throw new IggyInvalidError(`an in-place frame needs ${CLASSIC_REQUEST_HEADER_SIZE} bytes before the payload`, { context: { field: 'payload' } });
  }
  const frame = new Uint8Array(payload.buffer, payload.byteOffset - CLASSIC_REQUEST_HEADER_SIZE, CLASSIC_REQUEST_HEADER_SIZE + payload.length);
  const view = viewOf(frame);
  view.setUint32(0, 4 + payload.length, true);
  view.setUint32(4, code, true);
  return frame;
}

/** A decoded classic request. */
export interface ClassicRequest {
  /** The command code. */
  readonly code: number;
  /** The payload (a view into the frame). */
  readonly payload: Uint8Array;
}

/** Decodes one whole classic request frame (server side). */
export function decodeClassicRequest(frame: Uint8Array): ClassicRequest {
  if (frame.length < 8) throw new IggyCodecError(`classic request: need 8 bytes, have ${frame.length}`, { context: { have: frame.length } });
  const view = viewOf(frame);
  const length = view.getUint32(0, true);
  if (length < 4) throw new IggyCodecError(`classic request: length ${length} is below 4`, { context: { length } });
  if (length + 4 !== frame.length) throw new IggyCodecError(`classic request: length ${length} does not match frame length ${frame.length}`, { context: { length } });
  return { code: view.getUint32(4, true), payload: frame.subarray(8) };
}

/** Encodes a classic response frame (server side). A non-zero status must carry no payload. */
export function encodeClassicResponse(status: number, payload: Uint8Array = new Uint8Array(0)): Uint8Array {
  checkU32(status, 'status');
  if (status !== 0 && payload.length !== 0) throw new IggyInvalidError('an error response must have an empty payload', { context: { field: 'status' } });
  checkU32(payload.length, 'length');
  const frame = new Uint8Array(8 + payload.length);
  const view = viewOf(frame);
  view.setUint32(0, status, true);
  view.setUint32(4, payload.length, true);
  frame.set(payload, 8);
  return frame;
}

/** A decoded classic response. */
export interface ClassicResponse {
  /** 0 for OK, otherwise an IggyError code. */
  readonly status: number;
  /** The payload (a view into the frame). */
  readonly payload: Uint8Array;
}

/** Decodes one whole classic response frame (client side). */
export function decodeClassicResponse(frame: Uint8Array): ClassicResponse {
  if (frame.length < 8) throw new IggyCodecError(`classic response: need 8 bytes, have ${frame.length}`, { context: { have: frame.length } });
  const view = viewOf(frame);
  const status = view.getUint32(0, true);
  const length = view.getUint32(4, true);
  if (length + 8 !== frame.length) throw new IggyCodecError(`classic response: length ${length} does not match frame length ${frame.length}`, { context: { length } });
  if (status !== 0 && length !== 0) throw new IggyCodecError(`classic response: status ${status} with a payload`, { context: { status } });
  return { status, payload: frame.subarray(8) };
}

/** Decodes a classic response and returns its payload, or throws {@link IggyError} for a non-zero status. */
export function unwrapClassicResponse(frame: Uint8Array): Uint8Array {
  const { status, payload } = decodeClassicResponse(frame);
  if (status !== 0) throw new IggyError(status);
  return payload;
}
