// Users, permissions and personal access tokens: golden bytes derived from the layouts in Iggy's
// core/binary_protocol (requests/users, responses/users, primitives/permissions.rs,
// personal_access_tokens), round trips in both generations, and hostile input.
import { describe, expect, it } from 'vitest';
import {
  IggyCodecError,
  IggyInvalidError,
  TOKEN_EXPIRY_NEVER,
  UserStatus,
  decodeChangePasswordRequest,
  decodeCreateTokenRequest,
  decodeCreateUserRequest,
  decodeDeleteTokenRequest,
  decodeRawTokenReply,
  decodeTokenList,
  decodeUpdatePermissionsRequest,
  decodeUpdateUserRequest,
  decodeUserDetails,
  decodeUserList,
  decodeUserTarget,
  encodeChangePasswordRequest,
  encodeCreateTokenRequest,
  encodeCreateUserRequest,
  encodeDeleteTokenRequest,
  encodeRawTokenReply,
  encodeTokenList,
  encodeUpdatePermissionsRequest,
  encodeUpdateUserRequest,
  encodeUserDetails,
  encodeUserList,
  encodeUserTarget,
  globalPermissions,
  headerValue,
} from '../src/index.js';
import type { IggyProtocol, Permissions, UserDetails } from '../src/index.js';
import { hex, toHex } from './helpers.js';

const PROTOCOLS: readonly IggyProtocol[] = ['classic', 'vsr'];

// Stream 42 (manage, read, read topics, poll) with topic 7 (manage, read, send).
const SCOPED: Permissions = {
  global: globalPermissions(true),
  streams: [
    {
      streamId: 42,
      manageStream: true,
      readStream: true,
      manageTopics: false,
      readTopics: true,
      pollMessages: true,
      sendMessages: false,
      topics: [{ topicId: 7, manageTopic: true, readTopic: true, pollMessages: false, sendMessages: true }],
    },
  ],
};
const SCOPED_HEX = '01010101010101010101 01 2a000000 010100010100 01 07000000 01010001 00 00';

function appended(bytes: Uint8Array, ...extra: number[]): Uint8Array {
  return Uint8Array.from([...bytes, ...extra]);
}

describe('permissions', () => {
  it('encode the global flags, the stream and its topic with continuation bytes', () => {
    const bytes = encodeUpdatePermissionsRequest({ user: 3, permissions: SCOPED });
    expect(toHex(bytes)).toBe(toHex(hex(`01 04 03000000 01 20000000 ${SCOPED_HEX}`)));
    expect(decodeUpdatePermissionsRequest(bytes)).toEqual({ user: 3, permissions: SCOPED });
  });

  it('absent permissions are a single zero flag', () => {
    expect(toHex(encodeUpdatePermissionsRequest({ user: 'ann' }))).toBe('0203616e6e00');
    expect(decodeUpdatePermissionsRequest(hex('0203616e6e00'))).toEqual({ user: 'ann', permissions: undefined });
  });

  it('read any non-zero flag byte as true, as Iggy does', () => {
    const bytes = hex(`01 04 03000000 01 0b000000 ff00000000000000000200`);
    const p = decodeUpdatePermissionsRequest(bytes).permissions;
    expect(p?.global.manageServers).toBe(true);
    expect(p?.global.sendMessages).toBe(true);
    expect(p?.global.readServers).toBe(false);
  });

  it('refuse a declared length that differs from the structure', () => {
    expect(() => decodeUpdatePermissionsRequest(hex(`01 04 03000000 01 0c000000 ${'00'.repeat(11)} 00`))).toThrow(IggyCodecError);
  });

  it('refuse every truncation of a scoped structure', () => {
    const bytes = encodeUpdatePermissionsRequest({ user: 3, permissions: SCOPED });
    for (let n = 0; n < bytes.length; n++) expect(() => decodeUpdatePermissionsRequest(bytes.subarray(0, n))).toThrow(IggyCodecError);
  });

  it('refuse ids that are not u32 on encode', () => {
    const bad = { ...SCOPED, streams: [{ ...SCOPED.streams[0]!, streamId: -1 }] };
    expect(() => encodeUpdatePermissionsRequest({ user: 3, permissions: bad })).toThrow(IggyInvalidError);
  });
});

describe.each(PROTOCOLS)('users [%s]', (protocol) => {
  it('CreateUser without permissions matches the Rust wire layout test', () => {
    const bytes = encodeCreateUserRequest({ username: 'u', password: 'p', status: 0 }, protocol);
    expect(toHex(bytes)).toBe('017501700000');
    expect(decodeCreateUserRequest(bytes, protocol)).toMatchObject({ username: 'u', password: 'p', status: 0, permissions: undefined });
  });

  it('CreateUser with permissions round-trips', () => {
    const req = { username: 'alice', password: 'secret', status: UserStatus.Inactive, permissions: SCOPED };
    const bytes = encodeCreateUserRequest(req, protocol);
    expect(toHex(bytes.subarray(0, 19))).toBe(toHex(hex('05616c696365 06736563726574 02 01 20000000')));
    expect(decodeCreateUserRequest(bytes, protocol)).toMatchObject(req);
  });

  it('UpdateUser carries presence flags', () => {
    expect(toHex(encodeUpdateUserRequest({ user: 5, status: 2 }, protocol))).toBe('01040500000000' + '0102');
    const full = encodeUpdateUserRequest({ user: 'bob', username: 'robert', status: 1 }, protocol);
    expect(decodeUpdateUserRequest(full, protocol)).toMatchObject({ user: 'bob', username: 'robert', status: 1 });
    // A flag other than 1 means absent, as in Iggy's decoder.
    expect(decodeUpdateUserRequest(hex('0104050000000200'), protocol)).toMatchObject({ user: 5, username: undefined, status: undefined });
  });

  it('user details with and without permissions', () => {
    const opts = protocol === 'vsr' ? '00000000' : '';
    const bare: UserDetails = { id: 7, createdAt: 1n, status: 1, username: 'bob', permissions: undefined };
    const bytes = encodeUserDetails(bare, protocol);
    expect(toHex(bytes)).toBe(toHex(hex(`07000000 0100000000000000 01 03626f62 ${opts} 00000000`)));
    expect(decodeUserDetails(bytes, protocol)).toMatchObject(bare);
    const scoped = encodeUserDetails({ ...bare, permissions: SCOPED }, protocol);
    expect(toHex(scoped)).toBe(toHex(hex(`07000000 0100000000000000 01 03626f62 ${opts} 01 20000000 ${SCOPED_HEX}`)));
    expect(decodeUserDetails(scoped, protocol)?.permissions).toEqual(SCOPED);
    expect(decodeUserDetails(new Uint8Array(0), protocol)).toBeUndefined();
    for (let n = 1; n < scoped.length; n++) expect(() => decodeUserDetails(scoped.subarray(0, n), protocol)).toThrow(IggyCodecError);
  });

  it('user lists', () => {
    const users = [
      { id: 0, createdAt: 1n, status: 1, username: 'iggy' },
      { id: 1, createdAt: 9n, status: 2, username: 'bob' },
    ];
    const decoded = decodeUserList(encodeUserList(users, protocol), protocol);
    expect(decoded).toHaveLength(2);
    expect(decoded[1]).toMatchObject(users[1]!);
    expect(decodeUserList(new Uint8Array(0), protocol)).toEqual([]);
    expect(() => decodeUserList(hex('0700000001'), protocol)).toThrow(IggyCodecError);
  });
});

describe('VSR user options', () => {
  it('CreateUser and UpdateUser end with an options block; user records prefix theirs', () => {
    const options = new Map([['k', headerValue.string('v')]]);
    const create = decodeCreateUserRequest(encodeCreateUserRequest({ username: 'abc', password: 'xyz', status: 1, options }, 'vsr'), 'vsr');
    expect(create.options?.get('k')).toEqual(options.get('k'));
    const update = decodeUpdateUserRequest(encodeUpdateUserRequest({ user: 1, options }, 'vsr'), 'vsr');
    expect(update.options?.size).toBe(1);
    const details = decodeUserDetails(encodeUserDetails({ id: 1, createdAt: 0n, status: 1, username: 'abc', options, permissions: undefined }, 'vsr'), 'vsr');
    expect(details?.options?.get('k')).toEqual(options.get('k'));
  });

  it('a malformed options tail is a codec error, not ignored', () => {
    const bytes = appended(encodeCreateUserRequest({ username: 'abc', password: 'xyz', status: 1 }, 'vsr'), 9);
    expect(() => decodeCreateUserRequest(bytes, 'vsr')).toThrow(IggyCodecError);
  });
});

describe('requests Iggy decodes while ignoring trailing bytes', () => {
  it('user targets, ChangePassword, UpdatePermissions, classic CreateUser and UpdateUser', () => {
    expect(decodeUserTarget(appended(encodeUserTarget({ user: 9 }), 0, 0, 1))).toEqual({ user: 9 });
    const cp = encodeChangePasswordRequest({ user: 'ann', currentPassword: 'old', newPassword: 'new' });
    expect(toHex(cp)).toBe('0203616e6e036f6c64036e6577');
    expect(decodeChangePasswordRequest(appended(cp, 7))).toEqual({ user: 'ann', currentPassword: 'old', newPassword: 'new' });
    expect(decodeUpdatePermissionsRequest(hex('010409000000 00 ffff')).user).toBe(9);
    expect(decodeCreateUserRequest(appended(encodeCreateUserRequest({ username: 'abc', password: 'xyz', status: 1 }, 'classic'), 5), 'classic').username).toBe('abc');
    expect(decodeUpdateUserRequest(hex('0104050000000000 01'), 'classic')).toMatchObject({ user: 5 });
  });

  it('still refuses truncated bodies', () => {
    expect(() => decodeUserTarget(hex('010405'))).toThrow(IggyCodecError);
    expect(() => decodeChangePasswordRequest(hex('0203616e6e036f6c'))).toThrow(IggyCodecError);
  });
});

describe('personal access tokens', () => {
  it('CreatePersonalAccessToken is [name][expiry u64]', () => {
    const bytes = encodeCreateTokenRequest({ name: 'ci', expiry: 1800n });
    expect(toHex(bytes)).toBe('0263690807000000000000');
    expect(decodeCreateTokenRequest(appended(bytes, 1))).toEqual({ name: 'ci', expiry: 1800n });
    expect(decodeCreateTokenRequest(encodeCreateTokenRequest({ name: 'x', expiry: TOKEN_EXPIRY_NEVER })).expiry).toBe(TOKEN_EXPIRY_NEVER);
    expect(() => decodeCreateTokenRequest(hex('02636908070000'))).toThrow(IggyCodecError);
    expect(() => encodeCreateTokenRequest({ name: '', expiry: 0n })).toThrow(IggyInvalidError);
  });

  it('DeletePersonalAccessToken and the raw token reply are one WireName', () => {
    expect(toHex(encodeDeleteTokenRequest({ name: 'ci' }))).toBe('026369');
    expect(decodeDeleteTokenRequest(hex('02636900'))).toEqual({ name: 'ci' });
    expect(decodeRawTokenReply(encodeRawTokenReply('tok'))).toBe('tok');
    expect(() => decodeRawTokenReply(hex('00'))).toThrow(IggyCodecError);
    expect(() => decodeRawTokenReply(hex('0374'))).toThrow(IggyCodecError);
  });

  it('token lists map expiry 0 to "never"', () => {
    const bytes = encodeTokenList([
      { name: 'ci', expiresAt: undefined },
      { name: 'x', expiresAt: 5n },
    ]);
    expect(toHex(bytes)).toBe(toHex(hex('026369 0000000000000000 0178 0500000000000000')));
    expect(decodeTokenList(bytes)).toEqual([
      { name: 'ci', expiresAt: undefined },
      { name: 'x', expiresAt: 5n },
    ]);
    expect(() => decodeTokenList(hex('02636900'))).toThrow(IggyCodecError);
  });
});
