/**
 * VSR frame headers (binary protocol 0.11, header layout B as of server 0.9.0-edge.5). Every VSR
 * frame is a 256-byte header followed by a body; `size` at offset 48 counts both.
 */

import { xxh3_64 } from '../checksums.js';
import { IggyCodecError, IggyInvalidError } from '../errors.js';
import { checkU128, checkU32, checkU64, checkU8 } from '../internal/checks.js';
import { isDeclaredOperation } from './operations.js';

/** Size of every VSR header. */
export const VSR_HEADER_SIZE = 256;
/** The server's default cap on a VSR frame (`message_bus.max_message_size`, 64 MiB). */
export const VSR_DEFAULT_MAX_FRAME_SIZE: number = 64 * 1024 * 1024;

/** The command byte at offset 60 that tells the frame type. */
export const VsrCommand = {
  Request: 5,
  Reply: 8,
  Eviction: 13,
} as const;

/** A value of {@link VsrCommand}. */
export type VsrCommand = (typeof VsrCommand)[keyof typeof VsrCommand];

const U64_MASK = 0xffff_ffff_ffff_ffffn;

function setU128(view: DataView, at: number, v: bigint): void {
  view.setBigUint64(at, v & U64_MASK, true);
  view.setBigUint64(at + 8, v >> 64n, true);
}

function getU128(view: DataView, at: number): bigint {
  return (view.getBigUint64(at + 8, true) << 64n) | view.getBigUint64(at, true);
}

function viewOf(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function checkHeaderPrefix(frame: Uint8Array, command: number, what: string): DataView {
  if (frame.length < VSR_HEADER_SIZE) {
    throw new IggyCodecError(`${what}: need ${VSR_HEADER_SIZE} header bytes, have ${frame.length}`, { context: { have: frame.length } });
  }
  const view = viewOf(frame);
  const got = frame[60];
  if (got !== command) throw new IggyCodecError(`${what}: command byte is ${String(got)}, expected ${command}`, { context: { command: got } });
  const size = view.getUint32(48, true);
  if (size < VSR_HEADER_SIZE) throw new IggyCodecError(`${what}: size ${size} is below the header size`, { context: { size } });
  return view;
}

/** The fields of a VSR request header a client sets. Everything else is zero on the wire. */
export interface VsrRequestHeader {
  /** Header plus body length. Filled by the encoder when encoding a frame. */
  readonly size: number;
  /** The client id chosen per session (non-zero u128). */
  readonly client: bigint;
  /** The request number (§2.3.5 of the sheet). */
  readonly request: bigint;
  /** The operation byte. */
  readonly operation: number;
  /** The session number from the Register reply (0 for Register and for a Ping before login). */
  readonly session: bigint;
  /** For NonReplicated requests: the classic command code at bytes 196..200; 0 otherwise. */
  readonly code: number;
  /** XXH3-64 of the body zero-extended to u128, or 0 for "unstamped" (what the SDKs send). */
  readonly requestChecksum: bigint;
  /** Echoed by the server into replies; 0 by convention. */
  readonly release: number;
  /** Stamped by the server; the client sends 0. */
  readonly userId: number;
}

/** Input of {@link encodeVsrRequestFrame}; omitted fields are zero. */
export interface VsrRequestHeaderInit {
  /** The client id (non-zero u128). */
  readonly client: bigint;
  /** The request number. */
  readonly request: bigint;
  /** The operation byte (must be declared). */
  readonly operation: number;
  /** The session number. */
  readonly session?: bigint;
  /** The classic command code, for NonReplicated requests. */
  readonly code?: number;
  /** Request checksum (0 = unstamped). */
  readonly requestChecksum?: bigint;
}

/** Writes a request header into the first 256 bytes of `target` (which must be zeroed). */
export function writeVsrRequestHeader(target: Uint8Array, init: VsrRequestHeaderInit, bodyLength: number): void {
  checkU128(init.client, 'client');
  if (init.client === 0n) throw new IggyInvalidError('client id must be non-zero', { context: { field: 'client' } });
  checkU64(init.request, 'request');
  checkU8(init.operation, 'operation');
  if (!isDeclaredOperation(init.operation)) throw new IggyInvalidError(`operation ${init.operation} is not declared`, { context: { field: 'operation' } });
  const size = VSR_HEADER_SIZE + bodyLength;
  checkU32(size, 'size');
  const view = viewOf(target);
  view.setUint32(48, size, true);
  target[60] = VsrCommand.Request;
  setU128(view, 128, init.client);
  if (init.requestChecksum !== undefined) setU128(view, 144, checkU128(init.requestChecksum, 'requestChecksum'));
  view.setBigUint64(168, init.request, true);
  target[176] = init.operation;
  view.setBigUint64(184, checkU64(init.session ?? 0n, 'session'), true);
  view.setUint32(196, checkU32(init.code ?? 0, 'code'), true);
}

/** Encodes a complete request frame: header then body. */
export function encodeVsrRequestFrame(init: VsrRequestHeaderInit, body: Uint8Array = new Uint8Array(0)): Uint8Array {
  const frame = new Uint8Array(VSR_HEADER_SIZE + body.length);
  writeVsrRequestHeader(frame, init, body.length);
  frame.set(body, VSR_HEADER_SIZE);
  return frame;
}

/**
 * Builds a request frame around `body` without copying it: the {@link VSR_HEADER_SIZE} bytes
 * before `body` in its buffer must be free for the caller's use; the header is written there and
 * the frame is a view over header and body.
 */
export function encodeVsrRequestFrameInPlace(init: VsrRequestHeaderInit, body: Uint8Array): Uint8Array {
  if (body.byteOffset < VSR_HEADER_SIZE) throw new IggyInvalidError(`an in-place frame needs ${VSR_HEADER_SIZE} bytes before the body`, { context: { field: 'body' } });
  const frame = new Uint8Array(body.buffer, body.byteOffset - VSR_HEADER_SIZE, VSR_HEADER_SIZE + body.length);
  // The header rules expect a zeroed target; a reused buffer holds an earlier header there.
  frame.fill(0, 0, VSR_HEADER_SIZE);
  writeVsrRequestHeader(frame, init, body.length);
  return frame;
}

/** Decodes the header of a request frame (server side). Checks command 5, size and operation. */
export function decodeVsrRequestHeader(frame: Uint8Array): VsrRequestHeader {
  const view = checkHeaderPrefix(frame, VsrCommand.Request, 'VSR request');
  const operation = frame[176] as number;
  if (!isDeclaredOperation(operation)) throw new IggyCodecError(`VSR request: undeclared operation ${operation}`, { context: { operation } });
  return {
    size: view.getUint32(48, true),
    client: getU128(view, 128),
    requestChecksum: getU128(view, 144),
    request: view.getBigUint64(168, true),
    operation,
    session: view.getBigUint64(184, true),
    userId: view.getUint32(192, true),
    code: view.getUint32(196, true),
    release: view.getUint32(56, true),
  };
}

/**
 * The server's header rules beyond the typed parse (sheet §2.3.2, audit §1.4). Returns the
 * broken rule, or `undefined` when the header is acceptable. A real server drops such a request
 * without replying.
 */
export function vsrRequestHeaderProblem(header: VsrRequestHeader): string | undefined {
  if (header.client === 0n) return 'client must be non-zero';
  if (header.operation === 1) {
    if (header.session !== 0n || header.request !== 0n) return 'register: session and request must be 0';
  } else if (header.operation !== 2 && (header.session === 0n || header.request === 0n)) {
    return 'non-register: session and request must be > 0';
  }
  return undefined;
}

/** The request checksum of a body: XXH3-64 zero-extended to u128 (requires `initChecksums()`). */
export function vsrRequestChecksum(body: Uint8Array): bigint {
  return xxh3_64(body);
}

/**
 * True when a request's checksum is unstamped (0) or matches its body. Iggy answers a mismatch
 * with status 4 (InvalidFormat). Requires `initChecksums()` when the checksum is non-zero.
 */
export function vsrRequestChecksumMatches(header: VsrRequestHeader, body: Uint8Array): boolean {
  return header.requestChecksum === 0n || header.requestChecksum === xxh3_64(body);
}

/** A decoded request frame: header and a view of the body. */
export interface VsrRequestFrame {
  /** The decoded header. */
  readonly header: VsrRequestHeader;
  /** The body (a view into the frame). */
  readonly body: Uint8Array;
}

/** Decodes a whole request frame, checking that `size` equals the frame length. */
export function decodeVsrRequestFrame(frame: Uint8Array): VsrRequestFrame {
  const header = decodeVsrRequestHeader(frame);
  if (header.size !== frame.length) {
    throw new IggyCodecError(`VSR request: size ${header.size} does not match frame length ${frame.length}`, { context: { size: header.size } });
  }
  return { header, body: frame.subarray(VSR_HEADER_SIZE) };
}

/** The fields of a VSR reply header (command 8). */
export interface VsrReplyHeader {
  /** Header plus body length. */
  readonly size: number;
  /** The request checksum echoed from the request. */
  readonly requestChecksum: bigint;
  /** Server context. */
  readonly context: bigint;
  /** The client id; not always the SDK's id (audit §1.5), so do not match on it. */
  readonly client: bigint;
  /** Commit op number, or the session on Register/NonReplicated replies. */
  readonly op: bigint;
  /** Commit number. */
  readonly commit: bigint;
  /** Server timestamp. */
  readonly timestamp: bigint;
  /** The request number echoed (max(request, 1) on partition replies). */
  readonly request: bigint;
  /** The operation byte echoed. */
  readonly operation: number;
  /** 0, or an IggyError code for a denial before commit (the body is then empty). */
  readonly status: number;
  /** Release, echoed from the request. */
  readonly release: number;
}

/** Input of {@link encodeVsrReplyFrame}; omitted fields are zero. */
export interface VsrReplyHeaderInit {
  /** Client id to echo. */
  readonly client: bigint;
  /** Request number to echo. */
  readonly request: bigint;
  /** Operation byte to echo (must be declared). */
  readonly operation: number;
  /** Denial status (default 0). */
  readonly status?: number;
  /** Commit op number or session. */
  readonly op?: bigint;
  /** Commit number. */
  readonly commit?: bigint;
  /** Server timestamp. */
  readonly timestamp?: bigint;
  /** Echoed request checksum. */
  readonly requestChecksum?: bigint;
  /** Server context. */
  readonly context?: bigint;
  /** Echoed release. */
  readonly release?: number;
}

/** Encodes a complete reply frame (server side). */
export function encodeVsrReplyFrame(init: VsrReplyHeaderInit, body: Uint8Array = new Uint8Array(0)): Uint8Array {
  checkU128(init.client, 'client');
  checkU64(init.request, 'request');
  checkU8(init.operation, 'operation');
  if (!isDeclaredOperation(init.operation)) throw new IggyInvalidError(`operation ${init.operation} is not declared`, { context: { field: 'operation' } });
  const status = checkU32(init.status ?? 0, 'status');
  if (status !== 0 && body.length !== 0) throw new IggyInvalidError('a reply with a non-zero status must have an empty body', { context: { field: 'status' } });
  const size = checkU32(VSR_HEADER_SIZE + body.length, 'size');
  const frame = new Uint8Array(size);
  const view = viewOf(frame);
  view.setUint32(48, size, true);
  view.setUint32(56, checkU32(init.release ?? 0, 'release'), true);
  frame[60] = VsrCommand.Reply;
  setU128(view, 128, checkU128(init.requestChecksum ?? 0n, 'requestChecksum'));
  setU128(view, 144, checkU128(init.context ?? 0n, 'context'));
  setU128(view, 160, init.client);
  view.setBigUint64(176, checkU64(init.op ?? 0n, 'op'), true);
  view.setBigUint64(184, checkU64(init.commit ?? 0n, 'commit'), true);
  view.setBigUint64(192, checkU64(init.timestamp ?? 0n, 'timestamp'), true);
  view.setBigUint64(200, init.request, true);
  frame[208] = init.operation;
  view.setUint32(216, status, true);
  frame.set(body, VSR_HEADER_SIZE);
  return frame;
}

/** Decodes a reply header (client side). Checks command 8, size, and the declared operation. */
export function decodeVsrReplyHeader(frame: Uint8Array): VsrReplyHeader {
  const view = checkHeaderPrefix(frame, VsrCommand.Reply, 'VSR reply');
  const operation = frame[208] as number;
  if (!isDeclaredOperation(operation)) throw new IggyCodecError(`VSR reply: undeclared operation ${operation}`, { context: { operation } });
  return {
    size: view.getUint32(48, true),
    release: view.getUint32(56, true),
    requestChecksum: getU128(view, 128),
    context: getU128(view, 144),
    client: getU128(view, 160),
    op: view.getBigUint64(176, true),
    commit: view.getBigUint64(184, true),
    timestamp: view.getBigUint64(192, true),
    request: view.getBigUint64(200, true),
    operation,
    status: view.getUint32(216, true),
  };
}

/** Eviction reasons (byte 255 of an eviction header). */
export const EvictionReason = {
  NoSession: 1,
  ClientReleaseTooLow: 2,
  ClientReleaseTooHigh: 3,
  InvalidRequestOperation: 4,
  InvalidRequestBody: 5,
  InvalidRequestBodySize: 6,
  SessionTooLow: 7,
  SessionReleaseMismatch: 8,
  InvalidCredentials: 9,
  InvalidToken: 10,
  UserInactive: 11,
  SessionError: 12,
  StaleClient: 13,
  IncompatibleProtocol: 14,
  MalformedLogin: 15,
} as const;

/** A value of {@link EvictionReason}. */
export type EvictionReason = (typeof EvictionReason)[keyof typeof EvictionReason];

const REASON_NAMES: ReadonlyMap<number, string> = new Map(Object.entries(EvictionReason).map(([name, v]) => [v, name]));
const REASON_CODES: Readonly<Record<number, number>> = {
  1: 40, 2: 3, 3: 3, 4: 3, 5: 3, 6: 3, 7: 40, 8: 40, 9: 42, 10: 53, 11: 40, 12: 40, 13: 30, 14: 14003, 15: 4,
};

/** The name of an eviction reason, or `Unknown(<reason>)`. */
export function evictionReasonName(reason: number): string {
  return REASON_NAMES.get(reason) ?? `Unknown(${reason})`;
}

/**
 * The IggyError code the official SDKs raise for an eviction reason. IncompatibleProtocol maps to
 * 14003, or to 40 when its version window is malformed; unknown reasons map to 40.
 */
export function evictionErrorCode(reason: number, windowValid = true): number {
  if (reason === EvictionReason.IncompatibleProtocol && !windowValid) return 40;
  return REASON_CODES[reason] ?? 40;
}

/** The fields of an eviction header (command 13, header only). */
export interface VsrEvictionHeader {
  /** The client id (the server's transport id in some paths, audit §1.5). */
  readonly client: bigint;
  /** The reason byte. */
  readonly reason: number;
  /** Server protocol version; set only for IncompatibleProtocol. */
  readonly serverProtocolVersion: number;
  /** Minimum protocol version the server accepts; set only for IncompatibleProtocol. */
  readonly serverProtocolVersionMin: number;
}

/** Encodes an eviction frame (server side). */
export function encodeVsrEvictionFrame(init: { readonly client: bigint; readonly reason: number; readonly serverProtocolVersion?: number; readonly serverProtocolVersionMin?: number }): Uint8Array {
  checkU128(init.client, 'client');
  if (init.client === 0n) throw new IggyInvalidError('eviction client must be non-zero', { context: { field: 'client' } });
  checkU8(init.reason, 'reason');
  const frame = new Uint8Array(VSR_HEADER_SIZE);
  const view = viewOf(frame);
  view.setUint32(48, VSR_HEADER_SIZE, true);
  frame[60] = VsrCommand.Eviction;
  setU128(view, 128, init.client);
  view.setUint32(144, checkU32(init.serverProtocolVersion ?? 0, 'serverProtocolVersion'), true);
  view.setUint32(148, checkU32(init.serverProtocolVersionMin ?? 0, 'serverProtocolVersionMin'), true);
  frame[255] = init.reason;
  return frame;
}

/** Decodes an eviction frame (client side). Its size must be exactly 256. */
export function decodeVsrEvictionHeader(frame: Uint8Array): VsrEvictionHeader {
  const view = checkHeaderPrefix(frame, VsrCommand.Eviction, 'VSR eviction');
  const size = view.getUint32(48, true);
  if (size !== VSR_HEADER_SIZE) throw new IggyCodecError(`VSR eviction: size must be 256, got ${size}`, { context: { size } });
  return {
    client: getU128(view, 128),
    serverProtocolVersion: view.getUint32(144, true),
    serverProtocolVersionMin: view.getUint32(148, true),
    reason: frame[255] as number,
  };
}

/** A decoded server → client VSR frame. */
export type VsrServerFrame =
  | { readonly type: 'reply'; readonly header: VsrReplyHeader; readonly body: Uint8Array }
  | { readonly type: 'eviction'; readonly header: VsrEvictionHeader };

/** Decodes a whole server frame by its command byte; checks that `size` equals the frame length. */
export function decodeVsrServerFrame(frame: Uint8Array): VsrServerFrame {
  if (frame.length < VSR_HEADER_SIZE) throw new IggyCodecError(`VSR frame: need ${VSR_HEADER_SIZE} bytes, have ${frame.length}`, { context: { have: frame.length } });
  const command = frame[60];
  if (command === VsrCommand.Eviction) return { type: 'eviction', header: decodeVsrEvictionHeader(frame) };
  if (command !== VsrCommand.Reply) throw new IggyCodecError(`VSR frame: unexpected command ${String(command)} from the server`, { context: { command } });
  const header = decodeVsrReplyHeader(frame);
  if (header.size !== frame.length) throw new IggyCodecError(`VSR reply: size ${header.size} does not match frame length ${frame.length}`, { context: { size: header.size } });
  if (header.status !== 0 && header.size !== VSR_HEADER_SIZE) throw new IggyCodecError(`VSR reply: status ${header.status} with a non-empty body`, { context: { status: header.status } });
  return { type: 'reply', header, body: frame.subarray(VSR_HEADER_SIZE) };
}
