/**
 * Authentication payloads: classic LoginUser (38) and LoginWithPersonalAccessToken (44), the VSR
 * Register bodies (codes 40 and 45 under operation Register) and their replies.
 */

import { IggyCodecError, IggyInvalidError } from '../errors.js';
import { ByteReader, decodeUtf8 } from '../internal/byte-reader.js';
import { ByteWriter, encodeUtf8 } from '../internal/byte-writer.js';
import { checkU32, checkU64, shortStringBytes, wireNameBytes, wireNameOnly } from '../internal/checks.js';
import type { ClientVersionInfo } from './version.js';
import { readClientVersionInfo, writeClientVersionInfo } from './version.js';

/** User name and password credentials. */
export interface PasswordCredentials {
  /** The user name (1..255 bytes; the server accepts 3..50). */
  readonly username: string;
  /** The password (0..255 bytes; the server accepts 3..100). */
  readonly password: string;
}

/** Personal access token credentials. */
export interface TokenCredentials {
  /** The token (1..255 bytes). */
  readonly token: string;
}

/** Either kind of credentials. */
export type Credentials = PasswordCredentials | TokenCredentials;

/** Classic LoginUser (38) request. */
export interface ClassicLoginRequest extends PasswordCredentials {
  /** Optional client version string (empty = absent). */
  readonly version?: string;
  /** Optional client context string (empty = absent). */
  readonly context?: string;
}

function writeLongString(w: ByteWriter, text: string | undefined): void {
  const b = encodeUtf8(text ?? '');
  w.u32(checkU32(b.length, 'length')).bytes(b);
}

/** Encodes `[username WireName][password_len u8][password][version_len u32][version][context_len u32][context]`. */
export function encodeLoginUserRequest(req: ClassicLoginRequest): Uint8Array {
  const w = new ByteWriter(64);
  const user = wireNameBytes(req.username, 'username');
  const pass = shortStringBytes(req.password, 'password');
  w.u8(user.length).bytes(user).u8(pass.length).bytes(pass);
  writeLongString(w, req.version);
  writeLongString(w, req.context);
  return w.finish().slice();
}

/** Decodes a classic LoginUser request (server side). */
export function decodeLoginUserRequest(payload: Uint8Array): ClassicLoginRequest {
  const r = new ByteReader(payload, 'LoginUser');
  const username = r.wireName('username');
  const password = r.shortString('password');
  const version = r.longString('version');
  const context = r.longString('context');
  r.end();
  return { username, password, version, context };
}

/** Encodes a classic LoginWithPersonalAccessToken (44) request: `[token WireName]`. */
export function encodeLoginWithTokenRequest(token: string): Uint8Array {
  return wireNameOnly(token, 'token');
}

/** Decodes a classic LoginWithPersonalAccessToken request. */
export function decodeLoginWithTokenRequest(payload: Uint8Array): TokenCredentials {
  const r = new ByteReader(payload, 'LoginWithPersonalAccessToken');
  const token = r.wireName('token');
  r.end();
  return { token };
}

/** Encodes the classic login response `[user_id u32]`. */
export function encodeIdentityResponse(userId: number): Uint8Array {
  const out = new Uint8Array(4);
  new DataView(out.buffer).setUint32(0, checkU32(userId, 'userId'), true);
  return out;
}

/** Decodes the classic login response. */
export function decodeIdentityResponse(payload: Uint8Array): number {
  const r = new ByteReader(payload, 'login response');
  const id = r.u32('userId');
  r.end();
  return id;
}

/** A VSR Register body (LoginRegister 40 or LoginRegisterWithPat 45). */
export interface RegisterRequest {
  /** The version prefix the server gates on. */
  readonly versionInfo: ClientVersionInfo;
  /** Password or token credentials; the shape picks code 40 or 45. */
  readonly credentials: Credentials;
  /** Optional context bytes (u32 length-prefixed). */
  readonly context?: Uint8Array;
}

/** Encodes a Register body. */
export function encodeRegisterRequest(req: RegisterRequest): Uint8Array {
  const w = new ByteWriter(96);
  writeClientVersionInfo(w, req.versionInfo);
  const c = req.credentials;
  if ('token' in c) {
    const t = wireNameBytes(c.token, 'token');
    w.u8(t.length).bytes(t);
  } else if ('username' in c) {
    const user = wireNameBytes(c.username, 'username');
    const pass = shortStringBytes(c.password, 'password');
    w.u8(user.length).bytes(user).u8(pass.length).bytes(pass);
  } else {
    throw new IggyInvalidError('credentials need a username and password or a token', { context: { field: 'credentials' } });
  }
  const ctx = req.context ?? new Uint8Array(0);
  w.u32(checkU32(ctx.length, 'context')).bytes(ctx);
  return w.finish().slice();
}

/**
 * Decodes a Register body (server side). Like the server, tries the password shape first, then
 * the token shape.
 */
export function decodeRegisterRequest(body: Uint8Array): RegisterRequest {
  const r = new ByteReader(body, 'Register');
  const versionInfo = readClientVersionInfo(r);
  const start = r.pos;
  try {
    const username = r.wireName('username');
    const password = r.shortString('password');
    const ctxLen = r.u32('context length');
    const context = r.bytesView(ctxLen, 'context').slice();
    r.end();
    return { versionInfo, credentials: { username, password }, context };
  } catch (first) {
    if (!(first instanceof IggyCodecError)) throw first;
    r.pos = start;
    const token = r.wireName('token');
    const ctxLen = r.u32('context length');
    const context = r.bytesView(ctxLen, 'context').slice();
    r.end();
    return { versionInfo, credentials: { token }, context };
  }
}

/** The Register reply payload (after the result section). */
export interface RegisterReply {
  /** The authenticated user's id. */
  readonly userId: number;
  /** The session number to echo at offset 184 (opaque, non-zero). */
  readonly session: bigint;
  /** The server's packed protocol version. */
  readonly serverProtocolVersion: number;
  /** The server's version string (for example `0.9.0-edge.5`). */
  readonly serverVersion: string;
}

/** Encodes `[user_id u32][session u64][server_protocol_version u32][server_version WireName]`. */
export function encodeRegisterReply(reply: RegisterReply): Uint8Array {
  const w = new ByteWriter(48);
  const v = wireNameBytes(reply.serverVersion, 'serverVersion');
  w.u32(checkU32(reply.userId, 'userId')).u64(checkU64(reply.session, 'session')).u32(checkU32(reply.serverProtocolVersion, 'serverProtocolVersion'));
  w.u8(v.length).bytes(v);
  return w.finish().slice();
}

/** Decodes a Register reply payload; a zero session is a codec error. */
export function decodeRegisterReply(payload: Uint8Array): RegisterReply {
  const r = new ByteReader(payload, 'Register reply');
  const userId = r.u32('userId');
  const session = r.u64('session');
  if (session === 0n) throw r.fail('session must be non-zero', 'session');
  const serverProtocolVersion = r.u32('serverProtocolVersion');
  const len = r.u8('serverVersion');
  const serverVersion = decodeUtf8(r.bytesView(len, 'serverVersion'), 'serverVersion');
  r.end();
  return { userId, session, serverProtocolVersion, serverVersion };
}
