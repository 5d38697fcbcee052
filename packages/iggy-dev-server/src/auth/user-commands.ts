/**
 * The user and personal-access-token commands (31–37, 41–43) for a logged-in connection. The
 * caller has already checked permissions (`authorize.ts`). Validation follows each generation:
 * classic (Iggy 0.8) checks username 3..50 (43) and password 3..100 (44) bytes in its handlers
 * and token names 3..30 bytes (50); VSR (Iggy 0.9) checks usernames in its state machine and
 * neither passwords nor token names.
 */

import {
  CommandCode,
  IggyError,
  decodeChangePasswordRequest,
  decodeCreateTokenRequest,
  decodeCreateUserRequest,
  decodeDeleteTokenRequest,
  decodeUpdatePermissionsRequest,
  decodeUpdateUserRequest,
  decodeUserTarget,
  encodeRawTokenReply,
  encodeTokenList,
  encodeUserDetails,
  encodeUserList,
} from '@agdx/iggy-protocol';
import type { IggyProtocol, UserDetails } from '@agdx/iggy-protocol';
import type { UserDirectory, UserRecord } from './user-directory.js';

/** The codes {@link executeUserCommand} serves. */
export const USER_COMMAND_CODES: ReadonlySet<number> = new Set([
  CommandCode.GetUser,
  CommandCode.GetUsers,
  CommandCode.CreateUser,
  CommandCode.DeleteUser,
  CommandCode.UpdateUser,
  CommandCode.UpdatePermissions,
  CommandCode.ChangePassword,
  CommandCode.GetPersonalAccessTokens,
  CommandCode.CreatePersonalAccessToken,
  CommandCode.DeletePersonalAccessToken,
]);

const EMPTY = new Uint8Array(0);
const utf8 = new TextEncoder();
const INVALID_USERNAME = 43;
const INVALID_PASSWORD = 44;
const INVALID_TOKEN_NAME = 50;
const UNSUPPORTED_OPTION_KEY = 4041;

function checkLength(text: string, min: number, max: number, code: number): void {
  const n = utf8.encode(text).length;
  if (n < min || n > max) throw new IggyError(code);
}

function details(u: UserRecord): UserDetails {
  return { id: u.id, createdAt: u.createdAt, status: u.status, username: u.username, permissions: u.permissions, options: u.options };
}

/** Runs one user or token command for `userId` and returns the reply payload. */
export function executeUserCommand(users: UserDirectory, userId: number, protocol: IggyProtocol, code: number, payload: Uint8Array): Uint8Array {
  const classic = protocol === 'classic';
  switch (code) {
    case CommandCode.GetUser: {
      const u = users.find(decodeUserTarget(payload).user);
      return encodeUserDetails(u === undefined ? undefined : details(u), protocol);
    }
    case CommandCode.GetUsers:
      return encodeUserList(users.list().map(details), protocol);
    case CommandCode.CreateUser: {
      const req = decodeCreateUserRequest(payload, protocol);
      // Iggy 0.9 defines no user option keys yet, so any key is refused.
      if (req.options !== undefined && req.options.size > 0) throw new IggyError(UNSUPPORTED_OPTION_KEY);
      checkLength(req.username, 3, 50, INVALID_USERNAME);
      if (classic) checkLength(req.password, 3, 100, INVALID_PASSWORD);
      return encodeUserDetails(details(users.create({ ...req, permissions: req.permissions })), protocol);
    }
    case CommandCode.UpdateUser: {
      const req = decodeUpdateUserRequest(payload, protocol);
      if (req.options !== undefined && req.options.size > 0) throw new IggyError(UNSUPPORTED_OPTION_KEY);
      if (req.username !== undefined) checkLength(req.username, 3, 50, INVALID_USERNAME);
      users.update(req.user, req);
      return EMPTY;
    }
    case CommandCode.DeleteUser:
      users.delete(decodeUserTarget(payload).user);
      return EMPTY;
    case CommandCode.UpdatePermissions: {
      const req = decodeUpdatePermissionsRequest(payload);
      users.setPermissions(req.user, req.permissions);
      return EMPTY;
    }
    case CommandCode.ChangePassword: {
      const req = decodeChangePasswordRequest(payload);
      if (classic) {
        checkLength(req.currentPassword, 3, 100, INVALID_PASSWORD);
        checkLength(req.newPassword, 3, 100, INVALID_PASSWORD);
      }
      if (users.find(req.user) === undefined) throw new IggyError(20);
      if (!users.checkPassword(req.user, req.currentPassword) || req.newPassword.length === 0) throw new IggyError(42);
      users.setPassword(req.user, req.newPassword);
      return EMPTY;
    }
    case CommandCode.GetPersonalAccessTokens:
      return encodeTokenList(users.tokensOf(userId));
    case CommandCode.CreatePersonalAccessToken: {
      const req = decodeCreateTokenRequest(payload);
      if (classic) checkLength(req.name, 3, 30, INVALID_TOKEN_NAME);
      return encodeRawTokenReply(users.createToken(userId, req.name, req.expiry));
    }
    case CommandCode.DeletePersonalAccessToken:
      users.deleteToken(userId, decodeDeleteTokenRequest(payload).name);
      return EMPTY;
    default:
      throw new IggyError(3);
  }
}
