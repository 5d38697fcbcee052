/**
 * The persisted users, permissions and personal access tokens (`users.json` under the data
 * folder). Passwords are scrypt hashes and tokens SHA-256 digests, never the secrets; big
 * integers travel as decimal strings and options blocks as base64, so the file is plain JSON.
 */

import type { Permissions } from '@agdx/iggy-protocol';

/** A user as persisted. */
export interface UserSnapshot {
  /** Numeric id (the root user is 0). */
  readonly id: number;
  /** Username. */
  readonly username: string;
  /** The password hash. */
  readonly passwordHash: string;
  /** Status code (1 active, 2 inactive). */
  readonly status: number;
  /** Creation time, µs. */
  readonly createdAt: string;
  /** Permissions, absent when the user has none. */
  readonly permissions?: Permissions;
  /** The VSR options block, base64 (empty today). */
  readonly options: string;
}

/** A personal access token as persisted. */
export interface TokenSnapshot {
  /** The owner's id. */
  readonly userId: number;
  /** The token's name (unique per user). */
  readonly name: string;
  /** SHA-256 hex digest of the raw token. */
  readonly hash: string;
  /** Expiry, µs since the epoch; absent = never. */
  readonly expiresAt?: string;
}

/** The whole persisted user state. */
export interface UsersSnapshot {
  /** Format version (1). */
  readonly version: 1;
  /** Users. */
  readonly users: readonly UserSnapshot[];
  /** Tokens. */
  readonly tokens: readonly TokenSnapshot[];
}
