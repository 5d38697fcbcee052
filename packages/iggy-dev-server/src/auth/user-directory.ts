/**
 * The users, their permissions and their personal access tokens, as Iggy's users state machine
 * keeps them (`core/metadata/src/stm/user.rs`): ids are the lowest free slot, usernames are
 * unique, the root user (id 0) cannot be deleted or have its permissions changed, tokens are
 * unique per user by name and stored only as digests. Every change is handed to `save` before
 * the caller replies, so with disk storage it survives a restart.
 *
 * Refusals are thrown as `IggyError` with Iggy's codes; which code a protocol generation reports
 * for a failed login is decided by the caller from the typed outcome.
 */

import { IggyError, TOKEN_EXPIRY_NEVER, TOKEN_EXPIRY_SERVER_DEFAULT, UserStatus, decodeOptions, encodeOptions, globalPermissions } from '@agdx/iggy-protocol';
import type { HeaderValue, Identifier, Permissions, TokenInfo } from '@agdx/iggy-protocol';
import { DevServerError } from '../errors.js';
import type { UserSnapshot, UsersSnapshot } from '../storage/users.js';
import type { CompiledPermissions } from './permission-rules.js';
import { compilePermissions } from './permission-rules.js';
import { hashPassword, hashToken, mintToken, verifyPassword } from './secrets.js';

/** Iggy error codes the directory raises. */
export const AuthStatus = {
  ResourceNotFound: 20,
  UserAlreadyExists: 46,
  CannotDeleteUser: 48,
  CannotChangePermissions: 49,
  TokenAlreadyExists: 51,
  TokensLimitReached: 52,
  UsersLimitReached: 55,
  InvalidTokenExpiry: 56,
} as const;

/** The root user's id. */
export const ROOT_USER_ID = 0;

/** Iggy's token cleaner runs once a minute, so an expired token stays listed up to that long. */
const TOKEN_CLEANER_MICROS = 60_000_000n;
const U64_MAX = 0xffff_ffff_ffff_ffffn;

/** A user. The directory owns these objects; callers only read them. */
export interface UserRecord {
  /** Numeric id. */
  readonly id: number;
  /** Username. */
  readonly username: string;
  /** Status code ({@link UserStatus}). */
  readonly status: number;
  /** Creation time, µs. */
  readonly createdAt: bigint;
  /** Permissions as set (undefined = none). */
  readonly permissions: Permissions | undefined;
  /** The same, indexed for the permission rules. */
  readonly compiled: CompiledPermissions | undefined;
  /** VSR options (none are defined yet, so always empty). */
  readonly options: ReadonlyMap<string, HeaderValue>;
}

interface MutableUser {
  id: number;
  username: string;
  passwordHash: string;
  status: number;
  createdAt: bigint;
  permissions: Permissions | undefined;
  compiled: CompiledPermissions | undefined;
  options: ReadonlyMap<string, HeaderValue>;
}

interface TokenRecord {
  readonly userId: number;
  readonly name: string;
  readonly hash: string;
  readonly expiresAt: bigint | undefined;
}

/** What a password or token login resolved to. */
export type LoginOutcome =
  | { readonly ok: true; readonly userId: number }
  | { readonly ok: false; readonly reason: 'credentials' | 'inactive' | 'unknown-token' | 'expired-token' };

/** How the directory is set up. */
export interface UserDirectoryOptions {
  /** The root user's credentials (applied on every start, so the server's URL stays valid). */
  readonly root: { readonly username: string; readonly password: string };
  /** Static tokens that log in as root (not listed, never expire). */
  readonly staticTokens?: readonly string[];
  /** The server clock, µs since the epoch. */
  readonly now: () => bigint;
  /** The state saved by an earlier run, if any. */
  readonly saved?: UsersSnapshot | undefined;
  /** Persists the whole state; called after every change. */
  readonly save: (snapshot: UsersSnapshot) => void;
  /** Most users (Iggy answers 55 beyond its limit); default 10,000. */
  readonly maxUsers?: number;
  /** Most tokens per user (Iggy's `max_tokens_per_user`); default 100. */
  readonly maxTokensPerUser?: number;
}

function fail(code: number): never {
  throw new IggyError(code);
}

/** The users of one server. */
export class UserDirectory {
  readonly #users = new Map<number, MutableUser>();
  readonly #byName = new Map<string, number>();
  readonly #tokens = new Map<number, Map<string, TokenRecord>>();
  readonly #byHash = new Map<string, TokenRecord>();
  readonly #staticTokens: ReadonlySet<string>;
  readonly #now: () => bigint;
  readonly #save: (snapshot: UsersSnapshot) => void;
  readonly #maxUsers: number;
  readonly #maxTokens: number;

  constructor(options: UserDirectoryOptions) {
    this.#now = options.now;
    this.#save = options.save;
    this.#maxUsers = options.maxUsers ?? 10_000;
    this.#maxTokens = options.maxTokensPerUser ?? 100;
    this.#staticTokens = new Set((options.staticTokens ?? []).map(hashToken));
    if (options.saved !== undefined) this.#restore(options.saved);
    this.#applyRoot(options.root.username, options.root.password);
    this.#persist();
  }

  #applyRoot(username: string, password: string): void {
    const holder = this.#byName.get(username);
    if (holder !== undefined && holder !== ROOT_USER_ID) throw new DevServerError('storage', `the saved users give the root name ${username} to user ${holder}`);
    const root = this.#users.get(ROOT_USER_ID);
    if (root === undefined) {
      this.#insert({ id: ROOT_USER_ID, username, passwordHash: hashPassword(password), status: UserStatus.Active, createdAt: this.#now(), permissions: ROOT_PERMISSIONS, compiled: compilePermissions(ROOT_PERMISSIONS), options: new Map() });
      return;
    }
    this.#byName.delete(root.username);
    root.username = username;
    this.#byName.set(username, ROOT_USER_ID);
    if (!verifyPassword(password, root.passwordHash)) root.passwordHash = hashPassword(password);
  }

  #insert(u: MutableUser): void {
    this.#users.set(u.id, u);
    this.#byName.set(u.username, u.id);
    this.#tokens.set(u.id, new Map());
  }

  /** The user with this numeric id or username. */
  find(id: Identifier): UserRecord | undefined {
    return typeof id === 'number' ? this.#users.get(id) : this.#lookupName(id);
  }

  #lookupName(name: string): MutableUser | undefined {
    const id = this.#byName.get(name);
    return id === undefined ? undefined : this.#users.get(id);
  }

  #get(id: Identifier): MutableUser {
    return (typeof id === 'number' ? this.#users.get(id) : this.#lookupName(id)) ?? fail(AuthStatus.ResourceNotFound);
  }

  /** Every user, by id. */
  list(): UserRecord[] {
    return [...this.#users.values()].sort((a, b) => a.id - b.id);
  }

  /** The indexed permissions of a user (undefined for none or an unknown user). */
  permissionsOf(userId: number): CompiledPermissions | undefined {
    return this.#users.get(userId)?.compiled;
  }

  /** Creates a user (46 when the name is taken, 55 at the limit). */
  create(req: { readonly username: string; readonly password: string; readonly status: number; readonly permissions: Permissions | undefined }): UserRecord {
    if (this.#byName.has(req.username)) fail(AuthStatus.UserAlreadyExists);
    if (this.#users.size >= this.#maxUsers) fail(AuthStatus.UsersLimitReached);
    let id = 0;
    while (this.#users.has(id)) id++;
    // Iggy keeps an unknown status code as its default, Active.
    const status = req.status === UserStatus.Inactive ? UserStatus.Inactive : UserStatus.Active;
    const user: MutableUser = { id, username: req.username, passwordHash: hashPassword(req.password), status, createdAt: this.#now(), permissions: req.permissions, compiled: compilePermissions(req.permissions), options: new Map() };
    this.#insert(user);
    this.#persist();
    return user;
  }

  /** Renames a user and/or changes its status; an unknown status code is ignored, as in Iggy. */
  update(id: Identifier, change: { readonly username?: string | undefined; readonly status?: number | undefined }): void {
    const user = this.#get(id);
    if (change.username !== undefined) {
      const holder = this.#byName.get(change.username);
      if (holder !== undefined && holder !== user.id) fail(AuthStatus.UserAlreadyExists);
      this.#byName.delete(user.username);
      user.username = change.username;
      this.#byName.set(user.username, user.id);
    }
    if (change.status === UserStatus.Active || change.status === UserStatus.Inactive) user.status = change.status;
    this.#persist();
  }

  /** Deletes a user and its tokens (48 for the root user). */
  delete(id: Identifier): void {
    const user = this.#get(id);
    if (user.id === ROOT_USER_ID) fail(AuthStatus.CannotDeleteUser);
    this.#users.delete(user.id);
    this.#byName.delete(user.username);
    for (const t of this.#tokens.get(user.id)?.values() ?? []) this.#byHash.delete(t.hash);
    this.#tokens.delete(user.id);
    this.#persist();
  }

  /** Replaces a user's permissions (49 for the root user). */
  setPermissions(id: Identifier, permissions: Permissions | undefined): void {
    const user = this.#get(id);
    if (user.id === ROOT_USER_ID) fail(AuthStatus.CannotChangePermissions);
    user.permissions = permissions;
    user.compiled = compilePermissions(permissions);
    this.#persist();
  }

  /** True when `password` is the user's current password (false for an unknown user). */
  checkPassword(id: Identifier, password: string): boolean {
    const user = typeof id === 'number' ? this.#users.get(id) : this.#lookupName(id);
    return user !== undefined && verifyPassword(password, user.passwordHash);
  }

  /** Sets a user's password. */
  setPassword(id: Identifier, password: string): void {
    this.#get(id).passwordHash = hashPassword(password);
    this.#persist();
  }

  /**
   * A password login. Like Iggy 0.8, an unknown user is `credentials`, an inactive one
   * `inactive` (checked before the password), a wrong password `credentials`.
   */
  login(username: string, password: string): LoginOutcome {
    const user = this.#lookupName(username);
    if (user === undefined) return { ok: false, reason: 'credentials' };
    if (user.status !== UserStatus.Active) return { ok: false, reason: 'inactive' };
    if (!verifyPassword(password, user.passwordHash)) return { ok: false, reason: 'credentials' };
    return { ok: true, userId: user.id };
  }

  /** A token login: unknown, expired, or the owner inactive. */
  loginWithToken(raw: string): LoginOutcome {
    const hash = hashToken(raw);
    if (this.#staticTokens.has(hash)) return { ok: true, userId: ROOT_USER_ID };
    this.#sweep();
    const token = this.#byHash.get(hash);
    if (token === undefined) return { ok: false, reason: 'unknown-token' };
    if (token.expiresAt !== undefined && token.expiresAt <= this.#now()) return { ok: false, reason: 'expired-token' };
    if (this.#users.get(token.userId)?.status !== UserStatus.Active) return { ok: false, reason: 'inactive' };
    return { ok: true, userId: token.userId };
  }

  /**
   * Creates a token and returns the raw value (shown once). `expiry` is µs: 0 (server default)
   * and u64::MAX mean never, as in Iggy 0.9. 51 for a taken name, 52 at the per-user limit, 56
   * when the expiry lies in the past.
   */
  createToken(userId: number, name: string, expiry: bigint): string {
    this.#sweep();
    const own = this.#tokens.get(userId) ?? fail(AuthStatus.ResourceNotFound);
    if (own.size >= this.#maxTokens) fail(AuthStatus.TokensLimitReached);
    if (own.has(name)) fail(AuthStatus.TokenAlreadyExists);
    const now = this.#now();
    let expiresAt: bigint | undefined;
    if (expiry !== TOKEN_EXPIRY_SERVER_DEFAULT && expiry !== TOKEN_EXPIRY_NEVER) {
      // A lifetime that overflows u64 can never be reached: it never expires.
      expiresAt = now + expiry > U64_MAX ? undefined : now + expiry;
      if (expiresAt !== undefined && expiresAt <= now) fail(AuthStatus.InvalidTokenExpiry);
    }
    const { raw, hash } = mintToken();
    const token: TokenRecord = { userId, name, hash, expiresAt };
    own.set(name, token);
    this.#byHash.set(hash, token);
    this.#persist();
    return raw;
  }

  /** A user's tokens, by name. */
  tokensOf(userId: number): TokenInfo[] {
    this.#sweep();
    const own = [...(this.#tokens.get(userId)?.values() ?? [])];
    return own.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)).map((t) => ({ name: t.name, expiresAt: t.expiresAt }));
  }

  /** Deletes (revokes) one of a user's tokens (20 when it does not exist). */
  deleteToken(userId: number, name: string): void {
    const own = this.#tokens.get(userId);
    const token = own?.get(name) ?? fail(AuthStatus.ResourceNotFound);
    own?.delete(name);
    this.#byHash.delete(token.hash);
    this.#persist();
  }

  // Stands in for Iggy's token cleaner: tokens expired for longer than its interval are gone.
  #sweep(): void {
    const cutoff = this.#now() - TOKEN_CLEANER_MICROS;
    let removed = false;
    for (const t of this.#byHash.values()) {
      if (t.expiresAt === undefined || t.expiresAt > cutoff) continue;
      this.#tokens.get(t.userId)?.delete(t.name);
      this.#byHash.delete(t.hash);
      removed = true;
    }
    if (removed) this.#persist();
  }

  /** The state as persisted. */
  snapshot(): UsersSnapshot {
    const users: UserSnapshot[] = this.list().map((u) => {
      const m = u as MutableUser;
      const base = { id: m.id, username: m.username, passwordHash: m.passwordHash, status: m.status, createdAt: String(m.createdAt), options: Buffer.from(encodeOptions(m.options)).toString('base64') };
      return m.permissions === undefined ? base : { ...base, permissions: m.permissions };
    });
    const tokens = [...this.#byHash.values()].map((t) => {
      const base = { userId: t.userId, name: t.name, hash: t.hash };
      return t.expiresAt === undefined ? base : { ...base, expiresAt: String(t.expiresAt) };
    });
    return { version: 1, users, tokens };
  }

  #persist(): void {
    this.#save(this.snapshot());
  }

  #restore(saved: UsersSnapshot): void {
    try {
      if (saved.version !== 1 || !Array.isArray(saved.users) || !Array.isArray(saved.tokens)) throw new Error('unknown users file version');
      for (const u of saved.users) {
        if (!Number.isInteger(u.id) || u.id < 0 || typeof u.username !== 'string' || typeof u.passwordHash !== 'string' || this.#users.has(u.id) || this.#byName.has(u.username)) throw new Error(`bad user entry ${String(u.id)}`);
        const permissions = u.id === ROOT_USER_ID ? ROOT_PERMISSIONS : u.permissions;
        this.#insert({ id: u.id, username: u.username, passwordHash: u.passwordHash, status: u.status, createdAt: BigInt(u.createdAt), permissions, compiled: compilePermissions(permissions), options: decodeOptions(Buffer.from(u.options, 'base64')) });
      }
      for (const t of saved.tokens) {
        const own = this.#tokens.get(t.userId);
        if (own === undefined || typeof t.name !== 'string' || typeof t.hash !== 'string' || own.has(t.name)) throw new Error(`bad token entry ${String(t.name)}`);
        const token: TokenRecord = { userId: t.userId, name: t.name, hash: t.hash, expiresAt: t.expiresAt === undefined ? undefined : BigInt(t.expiresAt) };
        own.set(t.name, token);
        this.#byHash.set(t.hash, token);
      }
    } catch (cause) {
      throw new DevServerError('storage', 'cannot restore the saved users', { cause });
    }
  }
}

/** The root user's permissions: every global flag. */
const ROOT_PERMISSIONS: Permissions = { global: globalPermissions(true), streams: [] };
