/**
 * `IggyAdmin`: Iggy's user and personal-access-token administration over an
 * {@link IggyTransport}'s connections (`transport.admin`), in both protocol generations. What a
 * caller may do is decided by the server's permissions; a refusal keeps its Iggy code in
 * `context.iggyCode` (41 when the logged-in user lacks the permission).
 */

import {
  CommandCode,
  TOKEN_EXPIRY_NEVER,
  TOKEN_EXPIRY_SERVER_DEFAULT,
  UserStatus,
  decodeRawTokenReply,
  decodeTokenList,
  decodeUserDetails,
  decodeUserList,
  encodeChangePasswordRequest,
  encodeCreateTokenRequest,
  encodeCreateUserRequest,
  encodeDeleteTokenRequest,
  encodeUpdatePermissionsRequest,
  encodeUpdateUserRequest,
  encodeUserTarget,
} from '@agdx/iggy-protocol';
import type { Identifier, Permissions, UserDetails, UserInfo } from '@agdx/iggy-protocol';
import { InvalidArgumentError, checkSignal } from '@agdx/transport';
import type { CallOptions } from '@agdx/transport';
import { toTransportError } from './error-mapping.js';

/** Whether a user may log in. */
export type IggyUserStatus = 'active' | 'inactive';

/** A user as listed. */
export interface IggyUser {
  /** Numeric id (the root user is 0). */
  readonly id: number;
  /** Username. */
  readonly username: string;
  /** `active`, or `inactive` (every login refused). */
  readonly status: IggyUserStatus;
  /** Creation time, µs since the epoch. */
  readonly createdAtMicros: bigint;
}

/** A user with its permissions. */
export interface IggyUserDetails extends IggyUser {
  /** The permissions, `undefined` when the user has none. */
  readonly permissions: Permissions | undefined;
}

/** A personal access token as listed (the token itself is shown only once, at creation). */
export interface IggyToken {
  /** The token's name. */
  readonly name: string;
  /** When it expires, µs since the epoch; `undefined` = never. */
  readonly expiresAtMicros: bigint | undefined;
}

/** A new user. */
export interface CreateUserInput {
  /** Username (the server accepts 3..50 bytes). */
  readonly username: string;
  /** Password (the server accepts 3..100 bytes). */
  readonly password: string;
  /** Default `active`. */
  readonly status?: IggyUserStatus;
  /** Default none. */
  readonly permissions?: Permissions;
}

/** Changes to a user; absent fields stay as they are. */
export interface UpdateUserInput {
  /** A new username. */
  readonly username?: string;
  /** A new status. */
  readonly status?: IggyUserStatus;
}

/** How long a new token lives. */
export interface CreateTokenInput {
  /** Lifetime in µs, or `never`; default: the server's default (never, on Iggy 0.9). */
  readonly expiryMicros?: bigint | 'never';
}

/** What the admin API needs from a transport: its protocol and a way to send one command. */
export interface AdminChannel {
  /** The connection's protocol generation. */
  readonly protocol: 'vsr' | 'classic';
  /** Sends one command and resolves with the reply payload (typed transport errors only). */
  request(code: number, body: Uint8Array, options: { readonly signal?: AbortSignal | undefined; readonly idempotent?: boolean }): Promise<Uint8Array>;
}

function statusOf(code: number): IggyUserStatus {
  return code === UserStatus.Inactive ? 'inactive' : 'active';
}

function codeOf(status: IggyUserStatus | undefined, field: string): number | undefined {
  if (status === undefined) return undefined;
  if (status === 'active') return UserStatus.Active;
  if (status === 'inactive') return UserStatus.Inactive;
  throw new InvalidArgumentError(`${field} must be 'active' or 'inactive'`, { context: { field } });
}

function userOf(u: UserInfo): IggyUser {
  return { id: u.id, username: u.username, status: statusOf(u.status), createdAtMicros: u.createdAt };
}

function detailsOf(u: UserDetails): IggyUserDetails {
  return { ...userOf(u), permissions: u.permissions };
}

function guarded<T>(fn: () => T, command?: number): T {
  try {
    return fn();
  } catch (error) {
    throw toTransportError(error, command === undefined ? {} : { command });
  }
}

/** User administration: GetUser(s), CreateUser, UpdateUser, DeleteUser, UpdatePermissions, ChangePassword. */
export class IggyUsers {
  readonly #channel: AdminChannel;

  /** Use `transport.admin.users`. */
  constructor(channel: AdminChannel) {
    this.#channel = channel;
  }

  async #send(code: number, encode: () => Uint8Array, options: CallOptions | undefined, idempotent = false): Promise<Uint8Array> {
    checkSignal(options?.signal);
    const body = guarded(encode);
    return this.#channel.request(code, body, { signal: options?.signal, idempotent });
  }

  /** Every user (needs `read_users` or `manage_users`). */
  async list(options?: CallOptions): Promise<IggyUser[]> {
    const payload = await this.#send(CommandCode.GetUsers, () => new Uint8Array(0), options, true);
    return guarded(() => decodeUserList(payload, this.#channel.protocol), CommandCode.GetUsers).map(userOf);
  }

  /** One user by id or username; `undefined` when it does not exist. Any user may read itself. */
  async get(user: Identifier, options?: CallOptions): Promise<IggyUserDetails | undefined> {
    const payload = await this.#send(CommandCode.GetUser, () => encodeUserTarget({ user }), options, true);
    const details = guarded(() => decodeUserDetails(payload, this.#channel.protocol), CommandCode.GetUser);
    return details === undefined ? undefined : detailsOf(details);
  }

  /** Creates a user (needs `manage_users`); a taken username is a `conflict` error. */
  async create(input: CreateUserInput, options?: CallOptions): Promise<IggyUserDetails> {
    const status = codeOf(input.status, 'status') ?? UserStatus.Active;
    const payload = await this.#send(CommandCode.CreateUser, () => encodeCreateUserRequest({ username: input.username, password: input.password, status, permissions: input.permissions }, this.#channel.protocol), options);
    const details = guarded(() => decodeUserDetails(payload, this.#channel.protocol), CommandCode.CreateUser);
    // Iggy always answers CreateUser with the new user; an empty reply is a broken server.
    if (details === undefined) throw toTransportError(new Error('CreateUser answered without the user'), { command: CommandCode.CreateUser });
    return detailsOf(details);
  }

  /** Renames a user and/or changes its status (needs `manage_users`). */
  async update(user: Identifier, input: UpdateUserInput, options?: CallOptions): Promise<void> {
    const status = codeOf(input.status, 'status');
    await this.#send(CommandCode.UpdateUser, () => encodeUpdateUserRequest({ user, username: input.username, status }, this.#channel.protocol), options);
  }

  /** Deletes a user and its tokens (needs `manage_users`; the root user cannot be deleted). */
  async delete(user: Identifier, options?: CallOptions): Promise<void> {
    await this.#send(CommandCode.DeleteUser, () => encodeUserTarget({ user }), options);
  }

  /** Replaces a user's permissions; `undefined` removes them all (needs `manage_users`). */
  async setPermissions(user: Identifier, permissions: Permissions | undefined, options?: CallOptions): Promise<void> {
    await this.#send(CommandCode.UpdatePermissions, () => encodeUpdatePermissionsRequest({ user, permissions }), options);
  }

  /** Changes a password; a wrong current password is refused (Iggy code 42). */
  async changePassword(user: Identifier, currentPassword: string, newPassword: string, options?: CallOptions): Promise<void> {
    await this.#send(CommandCode.ChangePassword, () => encodeChangePasswordRequest({ user, currentPassword, newPassword }), options);
  }
}

/** The logged-in user's personal access tokens. */
export class IggyTokens {
  readonly #channel: AdminChannel;

  /** Use `transport.admin.tokens`. */
  constructor(channel: AdminChannel) {
    this.#channel = channel;
  }

  /** The logged-in user's tokens, by name. */
  async list(options?: CallOptions): Promise<IggyToken[]> {
    checkSignal(options?.signal);
    const payload = await this.#channel.request(CommandCode.GetPersonalAccessTokens, new Uint8Array(0), { signal: options?.signal, idempotent: true });
    return guarded(() => decodeTokenList(payload), CommandCode.GetPersonalAccessTokens).map((t) => ({ name: t.name, expiresAtMicros: t.expiresAt }));
  }

  /**
   * Creates a token and returns it. This is the only time the server reveals it; log in with
   * `iggy://:<token>@host:port`. A taken name is a `conflict` error.
   */
  async create(name: string, input: CreateTokenInput = {}, options?: CallOptions): Promise<string> {
    checkSignal(options?.signal);
    const e = input.expiryMicros;
    if (e !== undefined && e !== 'never' && (typeof e !== 'bigint' || e <= 0n || e >= TOKEN_EXPIRY_NEVER)) {
      throw new InvalidArgumentError("expiryMicros must be a positive bigint below u64::MAX or 'never'", { context: { field: 'expiryMicros' } });
    }
    const expiry = e === undefined ? TOKEN_EXPIRY_SERVER_DEFAULT : e === 'never' ? TOKEN_EXPIRY_NEVER : e;
    const body = guarded(() => encodeCreateTokenRequest({ name, expiry }));
    const payload = await this.#channel.request(CommandCode.CreatePersonalAccessToken, body, { signal: options?.signal });
    return guarded(() => decodeRawTokenReply(payload), CommandCode.CreatePersonalAccessToken);
  }

  /** Deletes (revokes) one of the logged-in user's tokens; an unknown name is `not-found`. */
  async delete(name: string, options?: CallOptions): Promise<void> {
    checkSignal(options?.signal);
    const body = guarded(() => encodeDeleteTokenRequest({ name }));
    await this.#channel.request(CommandCode.DeletePersonalAccessToken, body, { signal: options?.signal });
  }
}

/** User and token administration; get it from `transport.admin`. */
export class IggyAdmin {
  /** Users. */
  readonly users: IggyUsers;
  /** The logged-in user's personal access tokens. */
  readonly tokens: IggyTokens;

  /** Builds the admin API over a channel (`transport.admin` does this for you). */
  constructor(channel: AdminChannel) {
    this.users = new IggyUsers(channel);
    this.tokens = new IggyTokens(channel);
  }
}
