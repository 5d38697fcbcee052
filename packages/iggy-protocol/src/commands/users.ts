/**
 * User commands: GetUser (31), GetUsers (32), CreateUser (33), DeleteUser (34), UpdateUser (35),
 * UpdatePermissions (36), ChangePassword (37) and the user replies
 * (`core/binary_protocol/src/requests/users`, `responses/users`).
 *
 * Generations differ only in options: VSR CreateUser and UpdateUser end with an options block
 * running to the end of the body, and every VSR user record carries a u32-prefixed options block.
 * Iggy decodes the other requests and ignores trailing bytes (classic 0.8 logs them, VSR uses
 * `decode_from`), so these decoders ignore them too.
 */

import { ByteReader } from '../internal/byte-reader.js';
import { ByteWriter } from '../internal/byte-writer.js';
import { checkU32, checkU64, checkU8, shortStringBytes, wireNameBytes } from '../internal/checks.js';
import type { IggyProtocol } from '../protocol.js';
import type { OptionsBlock } from './options.js';
import { decodeOptions, encodeOptions } from './options.js';
import type { Permissions } from './permissions.js';
import { permissionsSize, readOptionalPermissions, readPermissions, writeOptionalPermissions, writePermissions } from './permissions.js';
import type { Identifier } from './primitives.js';
import { readIdentifier, writeIdentifier } from './primitives.js';

/** User status codes (`UserStatus` in Iggy). */
export const UserStatus = {
  /** The user may log in. */
  Active: 1,
  /** The user exists but every login is refused. */
  Inactive: 2,
} as const;

/** A user status code; Iggy treats any other value on create as Active. */
export type UserStatusCode = number;

const EMPTY: OptionsBlock = new Map();

/** A request naming one user: GetUser (31) and DeleteUser (34). */
export interface UserTarget {
  /** The user's numeric id or username. */
  readonly user: Identifier;
}

/** Encodes `[user Identifier]`. */
export function encodeUserTarget(t: UserTarget): Uint8Array {
  const w = new ByteWriter(16);
  writeIdentifier(w, t.user, 'user');
  return w.finish().slice();
}

/** Decodes `[user Identifier]`, ignoring trailing bytes as Iggy does. */
export function decodeUserTarget(payload: Uint8Array): UserTarget {
  const r = new ByteReader(payload, 'user request');
  return { user: readIdentifier(r, 'user') };
}

/** CreateUser (33) request. */
export interface CreateUserRequest {
  /** The username (1..255 bytes on the wire; the server accepts 3..50). */
  readonly username: string;
  /** The password (0..255 bytes on the wire; the server accepts 3..100). */
  readonly password: string;
  /** A {@link UserStatus} code. */
  readonly status: UserStatusCode;
  /** The permissions; absent means none. */
  readonly permissions?: Permissions | undefined;
  /** VSR only: the user's options (no keys are defined yet). */
  readonly options?: OptionsBlock;
}

/** Encodes `[username WireName][password u8-prefixed][status u8][optional permissions]`, then the VSR options to the end. */
export function encodeCreateUserRequest(req: CreateUserRequest, protocol: IggyProtocol): Uint8Array {
  const w = new ByteWriter(64);
  const user = wireNameBytes(req.username, 'username');
  const pass = shortStringBytes(req.password, 'password');
  w.u8(user.length).bytes(user).u8(pass.length).bytes(pass).u8(checkU8(req.status, 'status'));
  writeOptionalPermissions(w, req.permissions);
  if (protocol === 'vsr') w.bytes(encodeOptions(req.options ?? EMPTY));
  return w.finish().slice();
}

/** Decodes a CreateUser request (server side). */
export function decodeCreateUserRequest(payload: Uint8Array, protocol: IggyProtocol): CreateUserRequest {
  const r = new ByteReader(payload, 'CreateUser');
  const username = r.wireName('username');
  const password = r.shortString('password');
  const status = r.u8('status');
  const permissions = readOptionalPermissions(r);
  if (protocol === 'vsr') return { username, password, status, permissions, options: decodeOptions(r.rest()) };
  return { username, password, status, permissions };
}

/** UpdateUser (35) request; absent fields are left unchanged. */
export interface UpdateUserRequest {
  /** The user to update. */
  readonly user: Identifier;
  /** The new username. */
  readonly username?: string | undefined;
  /** The new {@link UserStatus} code. */
  readonly status?: UserStatusCode | undefined;
  /** VSR only: option keys to set (absent keys are kept). */
  readonly options?: OptionsBlock;
}

/** Encodes `[user][has_username u8][username?][has_status u8][status?]`, then the VSR options to the end. */
export function encodeUpdateUserRequest(req: UpdateUserRequest, protocol: IggyProtocol): Uint8Array {
  const w = new ByteWriter(48);
  writeIdentifier(w, req.user, 'user');
  if (req.username === undefined) w.u8(0);
  else {
    const name = wireNameBytes(req.username, 'username');
    w.u8(1).u8(name.length).bytes(name);
  }
  if (req.status === undefined) w.u8(0);
  else w.u8(1).u8(checkU8(req.status, 'status'));
  if (protocol === 'vsr') w.bytes(encodeOptions(req.options ?? EMPTY));
  return w.finish().slice();
}

/** Decodes an UpdateUser request; as in Iggy, only a presence flag of exactly 1 means present. */
export function decodeUpdateUserRequest(payload: Uint8Array, protocol: IggyProtocol): UpdateUserRequest {
  const r = new ByteReader(payload, 'UpdateUser');
  const user = readIdentifier(r, 'user');
  const username = r.u8('username.flag') === 1 ? r.wireName('username') : undefined;
  const status = r.u8('status.flag') === 1 ? r.u8('status') : undefined;
  if (protocol === 'vsr') return { user, username, status, options: decodeOptions(r.rest()) };
  return { user, username, status };
}

/** UpdatePermissions (36) request. */
export interface UpdatePermissionsRequest {
  /** The user whose permissions are replaced. */
  readonly user: Identifier;
  /** The new permissions; absent clears them. */
  readonly permissions?: Permissions | undefined;
}

/** Encodes `[user][optional permissions]` (same in both generations). */
export function encodeUpdatePermissionsRequest(req: UpdatePermissionsRequest): Uint8Array {
  const w = new ByteWriter(32);
  writeIdentifier(w, req.user, 'user');
  writeOptionalPermissions(w, req.permissions);
  return w.finish().slice();
}

/** Decodes an UpdatePermissions request, ignoring trailing bytes. */
export function decodeUpdatePermissionsRequest(payload: Uint8Array): UpdatePermissionsRequest {
  const r = new ByteReader(payload, 'UpdatePermissions');
  const user = readIdentifier(r, 'user');
  return { user, permissions: readOptionalPermissions(r) };
}

/** ChangePassword (37) request. */
export interface ChangePasswordRequest {
  /** The user whose password changes. */
  readonly user: Identifier;
  /** The current password (0..255 bytes). */
  readonly currentPassword: string;
  /** The new password (0..255 bytes; the server accepts 3..100). */
  readonly newPassword: string;
}

/** Encodes `[user][current u8-prefixed][new u8-prefixed]` (same in both generations). */
export function encodeChangePasswordRequest(req: ChangePasswordRequest): Uint8Array {
  const w = new ByteWriter(48);
  writeIdentifier(w, req.user, 'user');
  const cur = shortStringBytes(req.currentPassword, 'currentPassword');
  const next = shortStringBytes(req.newPassword, 'newPassword');
  w.u8(cur.length).bytes(cur).u8(next.length).bytes(next);
  return w.finish().slice();
}

/** Decodes a ChangePassword request, ignoring trailing bytes. */
export function decodeChangePasswordRequest(payload: Uint8Array): ChangePasswordRequest {
  const r = new ByteReader(payload, 'ChangePassword');
  const user = readIdentifier(r, 'user');
  const currentPassword = r.shortString('currentPassword');
  const newPassword = r.shortString('newPassword');
  return { user, currentPassword, newPassword };
}

/** A user as GetUsers lists it (`UserResponse`). */
export interface UserInfo {
  /** The numeric id (the root user is 0). */
  readonly id: number;
  /** Creation time, µs since the epoch. */
  readonly createdAt: bigint;
  /** The {@link UserStatus} code. */
  readonly status: UserStatusCode;
  /** The username. */
  readonly username: string;
  /** VSR only: the user's options. */
  readonly options?: OptionsBlock;
}

/** A user with permissions (GetUser, and the CreateUser reply). */
export interface UserDetails extends UserInfo {
  /** The permissions, or `undefined` when the user has none. */
  readonly permissions: Permissions | undefined;
}

function writeUserInfo(w: ByteWriter, u: UserInfo, protocol: IggyProtocol): void {
  const name = wireNameBytes(u.username, 'username');
  w.u32(checkU32(u.id, 'id')).u64(checkU64(u.createdAt, 'createdAt')).u8(checkU8(u.status, 'status')).u8(name.length).bytes(name);
  if (protocol === 'vsr') {
    const o = encodeOptions(u.options ?? EMPTY);
    w.u32(o.length).bytes(o);
  }
}

function readUserInfo(r: ByteReader, protocol: IggyProtocol): UserInfo {
  const id = r.u32('id');
  const createdAt = r.u64('createdAt');
  const status = r.u8('status');
  const username = r.wireName('username');
  if (protocol === 'classic') return { id, createdAt, status, username };
  const len = r.u32('options length');
  return { id, createdAt, status, username, options: decodeOptions(r.bytesView(len, 'options')) };
}

/**
 * Encodes a user details reply: the user record then `[1][len u32][permissions]`, or four zero
 * bytes when the user has none. `undefined` encodes the empty "not found" payload.
 */
export function encodeUserDetails(u: UserDetails | undefined, protocol: IggyProtocol): Uint8Array {
  if (u === undefined) return new Uint8Array(0);
  const w = new ByteWriter(64);
  writeUserInfo(w, u, protocol);
  if (u.permissions === undefined) w.u32(0);
  else {
    w.u8(1).u32(permissionsSize(u.permissions));
    writePermissions(w, u.permissions);
  }
  return w.finish().slice();
}

/** Decodes a user details reply; an empty payload means "not found" and gives `undefined`. */
export function decodeUserDetails(payload: Uint8Array, protocol: IggyProtocol): UserDetails | undefined {
  if (payload.length === 0) return undefined;
  const r = new ByteReader(payload, 'UserDetails');
  const info = readUserInfo(r, protocol);
  if (r.u8('permissions.flag') === 0) {
    r.bytesView(3, 'permissions.length');
    r.end();
    return { ...info, permissions: undefined };
  }
  const len = r.u32('permissions.length');
  const inner = new ByteReader(r.bytesView(len, 'permissions'), 'UserDetails permissions');
  const permissions = readPermissions(inner);
  inner.end();
  r.end();
  return { ...info, permissions };
}

/** Encodes a GetUsers reply: user records back to back. */
export function encodeUserList(users: readonly UserInfo[], protocol: IggyProtocol): Uint8Array {
  const w = new ByteWriter(128);
  for (const u of users) writeUserInfo(w, u, protocol);
  return w.finish().slice();
}

/** Decodes a GetUsers reply, reading user records until the payload ends. */
export function decodeUserList(payload: Uint8Array, protocol: IggyProtocol): UserInfo[] {
  const r = new ByteReader(payload, 'GetUsers');
  const out: UserInfo[] = [];
  while (r.remaining > 0) out.push(readUserInfo(r, protocol));
  return out;
}
