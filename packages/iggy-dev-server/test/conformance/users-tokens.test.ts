// Conformance: the user and personal-access-token commands the official Node SDK sends, in
// the order its e2e suites use them, both generations. Rules from the Iggy sources:
// core/metadata stm/user.rs (unique names, root undeletable), the permissioner
// (41 Unauthorized), core/server users.rs and pat.rs (ChangePassword checks the current
// password; a token is returned raw once and logs in until deleted or expired).
import { describe, expect, it } from 'vitest';
import {
  CommandCode,
  UserStatus,
  decodeRawTokenReply,
  decodeTokenList,
  decodeUserDetails,
  decodeUserList,
  encodeChangePasswordRequest,
  encodeCreateStreamRequest,
  encodeCreateTokenRequest,
  encodeCreateUserRequest,
  encodeDeleteTokenRequest,
  encodeUpdatePermissionsRequest,
  encodeUpdateUserRequest,
  encodeUserTarget,
  globalPermissions,
} from '@agdx/iggy-protocol';
import type { IggyProtocol } from '@agdx/iggy-protocol';
import { PROTOCOLS, RawClient, fresh, suiteServer } from './harness.js';

const node = suiteServer('memory');

async function loginAs(protocol: IggyProtocol, username: string, password: string): Promise<RawClient> {
  const c = await RawClient.connect(node.server.port, protocol);
  const r = await c.login(username, password);
  if (!r.ok) throw r.error;
  return c;
}

describe.each(PROTOCOLS)('users and tokens (%s)', (protocol) => {
  it('users: create, list, get by name and id, update, change password, update permissions, delete', async () => {
    const root = await node.client(protocol);
    const name = fresh('user').slice(0, 40);
    const created = decodeUserDetails(await root.ok(CommandCode.CreateUser, encodeCreateUserRequest({ username: name, password: 'secret1', status: UserStatus.Active }, protocol)), protocol);
    expect(created).toMatchObject({ username: name, status: UserStatus.Active });
    const id = created?.id as number;
    expect(await root.refused(CommandCode.CreateUser, encodeCreateUserRequest({ username: name, password: 'secret1', status: UserStatus.Active }, protocol))).toBe(46);
    expect(decodeUserList(await root.ok(CommandCode.GetUsers), protocol).map((u) => u.username)).toContain(name);
    for (const user of [name, id]) expect(decodeUserDetails(await root.ok(CommandCode.GetUser, encodeUserTarget({ user })), protocol)?.id).toBe(id);

    // Without permissions the new user may log in but not create streams (41).
    const plain = await loginAs(protocol, name, 'secret1');
    expect(await plain.refused(CommandCode.CreateStream, encodeCreateStreamRequest({ name: fresh('denied') }, protocol))).toBe(41);
    plain.close();

    const renamed = `${name}-r`;
    await root.ok(CommandCode.UpdateUser, encodeUpdateUserRequest({ user: id, username: renamed }, protocol));
    await root.ok(CommandCode.ChangePassword, encodeChangePasswordRequest({ user: renamed, currentPassword: 'secret1', newPassword: 'secret2' }));
    expect(await root.refused(CommandCode.ChangePassword, encodeChangePasswordRequest({ user: renamed, currentPassword: 'wrong1', newPassword: 'secret3' }))).toBe(42);
    await root.ok(CommandCode.UpdatePermissions, encodeUpdatePermissionsRequest({ user: renamed, permissions: { global: { ...globalPermissions(false), manageStreams: true }, streams: [] } }));
    const admin = await loginAs(protocol, renamed, 'secret2');
    await admin.ok(CommandCode.CreateStream, encodeCreateStreamRequest({ name: fresh('allowed') }, protocol));
    admin.close();

    await root.ok(CommandCode.DeleteUser, encodeUserTarget({ user: id }));
    expect(decodeUserDetails(await root.ok(CommandCode.GetUser, encodeUserTarget({ user: id })), protocol)).toBeUndefined();
    expect(await root.refused(CommandCode.DeleteUser, encodeUserTarget({ user: 0 }))).toBe(48);
  });

  it('tokens: create (the raw token once), list, log in with it, delete, and a deleted token no longer logs in', async () => {
    const root = await node.client(protocol);
    const name = fresh('tok').slice(0, 28);
    const token = decodeRawTokenReply(await root.ok(CommandCode.CreatePersonalAccessToken, encodeCreateTokenRequest({ name, expiry: 3_600_000_000n })));
    expect(token.length).toBeGreaterThan(20);
    const listed = decodeTokenList(await root.ok(CommandCode.GetPersonalAccessTokens)).find((t) => t.name === name);
    expect(listed?.expiresAt).toBeGreaterThan(0n);
    const viaToken = await RawClient.connect(node.server.port, protocol);
    expect((await viaToken.loginWithToken(token)).ok).toBe(true);
    expect((await viaToken.ok(CommandCode.GetUsers)).length).toBeGreaterThan(0);
    viaToken.close();
    await root.ok(CommandCode.DeletePersonalAccessToken, encodeDeleteTokenRequest({ name }));
    expect(decodeTokenList(await root.ok(CommandCode.GetPersonalAccessTokens)).some((t) => t.name === name)).toBe(false);
    const again = await RawClient.connect(node.server.port, protocol);
    const outcome = await again.loginWithToken(token).catch((e: unknown) => e);
    expect(outcome).not.toMatchObject({ ok: true });
    again.close();
  });
});
