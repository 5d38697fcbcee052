// Users, permissions and personal access tokens over TCP, in both protocol generations: user
// administration, Iggy's permission rules with 41, logins of inactive users, token expiry and
// revocation with each generation's answer, and persistence across a restart.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CommandCode,
  IggyError,
  UserStatus,
  decodeRawTokenReply,
  decodeStreamDetails,
  decodeTokenList,
  decodeUserDetails,
  decodeUserList,
  encodeChangePasswordRequest,
  encodeCreateConsumerGroupRequest,
  encodeCreateStreamRequest,
  encodeCreateTokenRequest,
  encodeCreateUserRequest,
  encodeDeleteTokenRequest,
  encodeStreamTarget,
  encodeTopicTarget,
  encodeUpdatePermissionsRequest,
  encodeUpdateUserRequest,
  encodeUserTarget,
  globalPermissions,
} from '@agdx/iggy-protocol';
import type { IggyProtocol, Permissions } from '@agdx/iggy-protocol';
import { startDevServer } from '@agdx/iggy-dev-server';
import type { DevServer } from '@agdx/iggy-dev-server';
import { createTopic, pollFrom, sendTexts } from './helpers/ops.js';
import { PROTOCOLS, RawClient } from './helpers/raw-client.js';

const NONE = globalPermissions(false);

let server: DevServer;
const internalErrors: unknown[] = [];
beforeAll(async () => {
  server = await startDevServer({ port: 0, onInternalError: (e) => internalErrors.push(e) });
});
afterAll(async () => {
  await server.close();
});

async function rootClient(protocol: IggyProtocol, port = server.port): Promise<RawClient> {
  const c = await RawClient.connect(port, protocol);
  await c.login();
  return c;
}

/** The Iggy code of a failed login (a classic status or the code of a VSR eviction). */
async function loginFailure(p: Promise<{ readonly ok: boolean; readonly code?: number }>): Promise<number> {
  try {
    const r = await p;
    if (r.ok) throw new Error('login succeeded');
    return r.code ?? -1;
  } catch (e) {
    if (e instanceof IggyError) return e.code;
    throw e;
  }
}

function readerOf(streamId: number): Permissions {
  return {
    global: NONE,
    streams: [{ streamId, manageStream: false, readStream: true, manageTopics: false, readTopics: true, pollMessages: true, sendMessages: false, topics: [] }],
  };
}

describe.each(PROTOCOLS)('users [%s]', (protocol) => {
  const name = (s: string): string => `${s}-${protocol}`;

  it('creates, reads, lists, renames and deletes users with Iggy codes for every refusal', async () => {
    const root = await rootClient(protocol);
    const perms: Permissions = { global: { ...NONE, readUsers: true }, streams: [{ streamId: 1, manageStream: true, readStream: true, manageTopics: true, readTopics: true, pollMessages: true, sendMessages: true, topics: [{ topicId: 1, manageTopic: true, readTopic: true, pollMessages: true, sendMessages: true }] }] };
    const created = decodeUserDetails(await root.ok(CommandCode.CreateUser, encodeCreateUserRequest({ username: name('ann'), password: 'secret-1', status: UserStatus.Active, permissions: perms }, protocol)), protocol);
    expect(created).toMatchObject({ username: name('ann'), status: 1, permissions: perms });
    const byName = decodeUserDetails(await root.ok(CommandCode.GetUser, encodeUserTarget({ user: name('ann') })), protocol);
    const byId = decodeUserDetails(await root.ok(CommandCode.GetUser, encodeUserTarget({ user: created!.id })), protocol);
    expect(byId).toEqual(byName);
    expect(byId?.permissions).toEqual(perms);
    expect(decodeUserDetails(await root.ok(CommandCode.GetUser, encodeUserTarget({ user: 'nobody' })), protocol)).toBeUndefined();
    const list = decodeUserList(await root.ok(CommandCode.GetUsers), protocol);
    expect(list.map((u) => u.username)).toEqual(expect.arrayContaining(['iggy', name('ann')]));
    expect(list.find((u) => u.username === 'iggy')?.id).toBe(0);

    expect(await root.refused(CommandCode.CreateUser, encodeCreateUserRequest({ username: name('ann'), password: 'secret-1', status: 1 }, protocol))).toBe(46);
    expect(await root.refused(CommandCode.CreateUser, encodeCreateUserRequest({ username: 'ab', password: 'secret-1', status: 1 }, protocol))).toBe(43);
    if (protocol === 'classic') expect(await root.refused(CommandCode.CreateUser, encodeCreateUserRequest({ username: name('short'), password: 'ab', status: 1 }, protocol))).toBe(44);

    await root.ok(CommandCode.UpdateUser, encodeUpdateUserRequest({ user: created!.id, username: name('anna') }, protocol));
    expect(decodeUserDetails(await root.ok(CommandCode.GetUser, encodeUserTarget({ user: created!.id })), protocol)?.username).toBe(name('anna'));
    expect(await root.refused(CommandCode.UpdateUser, encodeUpdateUserRequest({ user: created!.id, username: 'iggy' }, protocol))).toBe(46);
    expect(await root.refused(CommandCode.UpdateUser, encodeUpdateUserRequest({ user: 'nobody', status: 2 }, protocol))).toBe(20);

    expect(await root.refused(CommandCode.DeleteUser, encodeUserTarget({ user: 0 }))).toBe(48);
    expect(await root.refused(CommandCode.UpdatePermissions, encodeUpdatePermissionsRequest({ user: 'iggy', permissions: perms }))).toBe(49);
    await root.ok(CommandCode.DeleteUser, encodeUserTarget({ user: name('anna') }));
    expect(await root.refused(CommandCode.DeleteUser, encodeUserTarget({ user: name('anna') }))).toBe(20);
    root.close();
  });

  it("enforces Iggy's permission rules with 41, and applies new permissions at once", async () => {
    const root = await rootClient(protocol);
    await createTopic(root, name('open'), 't', 1);
    await createTopic(root, name('closed'), 't', 1);
    const open = decodeStreamDetails(await root.ok(CommandCode.GetStream, encodeStreamTarget({ stream: name('open') })), protocol)!;
    await sendTexts(root, name('open'), 't', 0, ['a']);
    const reader = decodeUserDetails(await root.ok(CommandCode.CreateUser, encodeCreateUserRequest({ username: name('reader'), password: 'secret-1', status: 1, permissions: readerOf(open.id) }, protocol)), protocol)!;

    const c = await RawClient.connect(server.port, protocol);
    expect((await c.login(name('reader'), 'secret-1')).ok).toBe(true);
    expect(decodeStreamDetails(await c.ok(CommandCode.GetStream, encodeStreamTarget({ stream: name('open') })), protocol)?.name).toBe(name('open'));
    expect(await c.refused(CommandCode.GetStream, encodeStreamTarget({ stream: name('closed') }))).toBe(41);
    // A stream that does not exist is not refused by permissions; the command answers "not found".
    expect(decodeStreamDetails(await c.ok(CommandCode.GetStream, encodeStreamTarget({ stream: 'no-such-stream' })), protocol)).toBeUndefined();
    expect(await c.refused(CommandCode.GetStreams)).toBe(41);
    expect(await c.refused(CommandCode.CreateStream, encodeCreateStreamRequest({ name: name('mine') }, protocol))).toBe(41);
    expect(await c.refused(CommandCode.DeleteStream, encodeStreamTarget({ stream: name('open') }))).toBe(41);
    expect((await pollFrom(c, name('open'), 't', 0, 0n)).messages).toHaveLength(1);
    await expect(pollFrom(c, name('closed'), 't', 0, 0n)).rejects.toMatchObject({ code: 41 });
    await expect(sendTexts(c, name('open'), 't', 0, ['b'])).rejects.toMatchObject({ code: 41 });
    expect(await c.refused(CommandCode.GetStats)).toBe(41);
    expect(await c.refused(CommandCode.GetUsers)).toBe(41);
    // Reading itself and changing its own password need no users permission.
    expect(decodeUserDetails(await c.ok(CommandCode.GetUser, encodeUserTarget({ user: reader.id })), protocol)?.username).toBe(name('reader'));
    expect(await c.refused(CommandCode.GetUser, encodeUserTarget({ user: 0 }))).toBe(41);
    expect(await c.refused(CommandCode.ChangePassword, encodeChangePasswordRequest({ user: 0, currentPassword: 'iggy', newPassword: 'hacked' }))).toBe(41);
    expect(await c.refused(CommandCode.UpdatePermissions, encodeUpdatePermissionsRequest({ user: reader.id, permissions: { global: globalPermissions(true), streams: [] } }))).toBe(41);

    await root.ok(CommandCode.UpdatePermissions, encodeUpdatePermissionsRequest({ user: reader.id, permissions: { ...readerOf(open.id), global: { ...NONE, sendMessages: true } } }));
    await sendTexts(c, name('open'), 't', 0, ['b']);
    await root.ok(CommandCode.UpdatePermissions, encodeUpdatePermissionsRequest({ user: reader.id }));
    expect(await c.refused(CommandCode.GetStream, encodeStreamTarget({ stream: name('open') }))).toBe(41);
    c.close();

    // A grant on one topic alone: that topic and its groups, but not the stream's topic list.
    const topicOnly: Permissions = { global: NONE, streams: [{ streamId: open.id, manageStream: false, readStream: false, manageTopics: false, readTopics: false, pollMessages: false, sendMessages: false, topics: [{ topicId: open.topics[0]!.id, manageTopic: false, readTopic: true, pollMessages: false, sendMessages: true }] }] };
    await root.ok(CommandCode.CreateUser, encodeCreateUserRequest({ username: name('narrow'), password: 'secret-1', status: 1, permissions: topicOnly }, protocol));
    const n = await RawClient.connect(server.port, protocol);
    await n.login(name('narrow'), 'secret-1');
    await n.ok(CommandCode.GetTopic, encodeTopicTarget({ stream: open.id, topic: 't' }));
    expect(await n.refused(CommandCode.GetTopics, encodeStreamTarget({ stream: open.id }))).toBe(41);
    expect(await n.refused(CommandCode.DeleteTopic, encodeTopicTarget({ stream: open.id, topic: 't' }))).toBe(41);
    await n.ok(CommandCode.CreateConsumerGroup, encodeCreateConsumerGroupRequest({ stream: open.id, topic: 't', name: 'g' }));
    await sendTexts(n, name('open'), 't', 0, ['c']);
    // Reading a topic includes polling it, as in Iggy.
    expect((await pollFrom(n, name('open'), 't', 0, 0n)).messages.length).toBeGreaterThan(0);
    n.close();
    root.close();
  });

  it('changes passwords and refuses inactive users with each generation’s answer', async () => {
    const root = await rootClient(protocol);
    const u = decodeUserDetails(await root.ok(CommandCode.CreateUser, encodeCreateUserRequest({ username: name('pat'), password: 'first-pw', status: 1 }, protocol)), protocol)!;
    const c = await RawClient.connect(server.port, protocol);
    await c.login(name('pat'), 'first-pw');
    expect(await c.refused(CommandCode.ChangePassword, encodeChangePasswordRequest({ user: u.id, currentPassword: 'wrong-pw', newPassword: 'second-pw' }))).toBe(42);
    await c.ok(CommandCode.ChangePassword, encodeChangePasswordRequest({ user: u.id, currentPassword: 'first-pw', newPassword: 'second-pw' }));
    c.close();
    const old = await RawClient.connect(server.port, protocol);
    expect(await loginFailure(old.login(name('pat'), 'first-pw'))).toBe(42);
    old.close();

    await root.ok(CommandCode.UpdateUser, encodeUpdateUserRequest({ user: u.id, status: UserStatus.Inactive }, protocol));
    const inactive = await RawClient.connect(server.port, protocol);
    // Iggy 0.8 answers 47; Iggy 0.9 evicts a password login of an inactive user as bad credentials.
    expect(await loginFailure(inactive.login(name('pat'), 'second-pw'))).toBe(protocol === 'classic' ? 47 : 42);
    inactive.close();
    root.close();
  });
});

describe.each(PROTOCOLS)('personal access tokens [%s]', (protocol) => {
  const name = (s: string): string => `${s}-${protocol}`;

  it('creates a token shown once, lists it, logs in with it and revokes it', async () => {
    const root = await rootClient(protocol);
    const owner = decodeUserDetails(await root.ok(CommandCode.CreateUser, encodeCreateUserRequest({ username: name('tok'), password: 'secret-1', status: 1 }, protocol)), protocol)!;
    const c = await RawClient.connect(server.port, protocol);
    await c.login(name('tok'), 'secret-1');
    const raw = decodeRawTokenReply(await c.ok(CommandCode.CreatePersonalAccessToken, encodeCreateTokenRequest({ name: 'ci-token', expiry: 0n })));
    expect(raw.length).toBeGreaterThan(40);
    expect(await c.refused(CommandCode.CreatePersonalAccessToken, encodeCreateTokenRequest({ name: 'ci-token', expiry: 0n }))).toBe(51);
    expect(decodeTokenList(await c.ok(CommandCode.GetPersonalAccessTokens))).toEqual([{ name: 'ci-token', expiresAt: undefined }]);
    // Tokens are per user: root sees none of them.
    expect(decodeTokenList(await root.ok(CommandCode.GetPersonalAccessTokens))).toEqual([]);
    if (protocol === 'classic') expect(await c.refused(CommandCode.CreatePersonalAccessToken, encodeCreateTokenRequest({ name: 'ab', expiry: 0n }))).toBe(50);

    const viaToken = await RawClient.connect(server.port, protocol);
    const login = await viaToken.loginWithToken(raw);
    expect(login.ok).toBe(true);
    expect(decodeUserDetails(await viaToken.ok(CommandCode.GetUser, encodeUserTarget({ user: owner.id })), protocol)?.username).toBe(name('tok'));
    viaToken.close();

    await c.ok(CommandCode.DeletePersonalAccessToken, encodeDeleteTokenRequest({ name: 'ci-token' }));
    expect(await c.refused(CommandCode.DeletePersonalAccessToken, encodeDeleteTokenRequest({ name: 'ci-token' }))).toBe(20);
    expect(decodeTokenList(await c.ok(CommandCode.GetPersonalAccessTokens))).toEqual([]);
    const revoked = await RawClient.connect(server.port, protocol);
    // Iggy 0.8 answers ResourceNotFound for an unknown token; Iggy 0.9 evicts (InvalidToken → 53).
    expect(await loginFailure(revoked.loginWithToken(raw))).toBe(protocol === 'classic' ? 20 : 53);
    revoked.close();
    c.close();
    root.close();
  });

  it('expires tokens on the server clock and refuses tokens of inactive users', async () => {
    await using s = await startDevServer({ port: 0 });
    const root = await rootClient(protocol, s.port);
    const raw = decodeRawTokenReply(await root.ok(CommandCode.CreatePersonalAccessToken, encodeCreateTokenRequest({ name: 'short', expiry: 1_000_000n })));
    const [listed] = decodeTokenList(await root.ok(CommandCode.GetPersonalAccessTokens));
    expect(listed?.expiresAt).toBeGreaterThan(0n);
    s.advanceTime(2_000_000n);
    const late = await RawClient.connect(s.port, protocol);
    expect(await loginFailure(late.loginWithToken(raw))).toBe(protocol === 'classic' ? 54 : 53);
    late.close();
    // Like Iggy's cleaner, an expired token disappears within a minute.
    s.advanceTime(60_000_000n);
    expect(decodeTokenList(await root.ok(CommandCode.GetPersonalAccessTokens))).toEqual([]);

    await root.ok(CommandCode.CreateUser, encodeCreateUserRequest({ username: 'sleepy', password: 'secret-1', status: UserStatus.Inactive }, protocol));
    await root.ok(CommandCode.UpdateUser, encodeUpdateUserRequest({ user: 'sleepy', status: UserStatus.Active }, protocol));
    const u = await RawClient.connect(s.port, protocol);
    await u.login('sleepy', 'secret-1');
    const sleepyToken = decodeRawTokenReply(await u.ok(CommandCode.CreatePersonalAccessToken, encodeCreateTokenRequest({ name: 'nap', expiry: 0n })));
    u.close();
    await root.ok(CommandCode.UpdateUser, encodeUpdateUserRequest({ user: 'sleepy', status: UserStatus.Inactive }, protocol));
    const blocked = await RawClient.connect(s.port, protocol);
    // Iggy 0.9 evicts with UserInactive (reason 11 → 40); Iggy 0.8 answers 47.
    expect(await loginFailure(blocked.loginWithToken(sleepyToken))).toBe(protocol === 'classic' ? 47 : 40);
    blocked.close();
    root.close();
  });
});

describe('users on disk', () => {
  let folder: string;
  beforeAll(() => {
    folder = mkdtempSync(join(tmpdir(), 'agdx-iggy-users-'));
  });
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  it('keeps users, permissions and tokens across a restart, and stores no secret in clear', async () => {
    const perms = readerOf(0);
    let raw: string;
    {
      await using s = await startDevServer({ port: 0, data: folder });
      const root = await rootClient('vsr', s.port);
      await root.ok(CommandCode.CreateUser, encodeCreateUserRequest({ username: 'keeper', password: 'keeper-pw', status: 1, permissions: perms }, 'vsr'));
      const c = await RawClient.connect(s.port, 'vsr');
      await c.login('keeper', 'keeper-pw');
      raw = decodeRawTokenReply(await c.ok(CommandCode.CreatePersonalAccessToken, encodeCreateTokenRequest({ name: 'kept', expiry: 0n })));
      c.close();
      root.close();
    }
    const file = readFileSync(join(folder, 'users.json'), 'utf8');
    expect(file).not.toContain('keeper-pw');
    expect(file).not.toContain(raw);

    await using s = await startDevServer({ port: 0, data: folder });
    for (const protocol of PROTOCOLS) {
      const root = await rootClient(protocol, s.port);
      expect(decodeUserDetails(await root.ok(CommandCode.GetUser, encodeUserTarget({ user: 'keeper' })), protocol)?.permissions).toEqual(perms);
      root.close();
      const viaPassword = await RawClient.connect(s.port, protocol);
      expect((await viaPassword.login('keeper', 'keeper-pw')).ok).toBe(true);
      expect(decodeTokenList(await viaPassword.ok(CommandCode.GetPersonalAccessTokens)).map((t) => t.name)).toEqual(['kept']);
      viaPassword.close();
      const viaToken = await RawClient.connect(s.port, protocol);
      expect((await viaToken.loginWithToken(raw)).ok).toBe(true);
      viaToken.close();
    }
  });
});

describe.each(PROTOCOLS)('hostile bodies from a user with partial permissions [%s]', (protocol) => {
  it('answers every truncated or corrupted user, token and stream command with a status', async () => {
    const root = await rootClient(protocol);
    const stream = `hostile-${protocol}`;
    await createTopic(root, stream, 't', 1);
    const perms: Permissions = { global: { ...NONE, manageUsers: true, readUsers: true }, streams: [{ ...readerOf(0).streams[0]!, streamId: 0, topics: [{ topicId: 0, manageTopic: false, readTopic: true, pollMessages: true, sendMessages: true }] }] };
    const me = decodeUserDetails(await root.ok(CommandCode.CreateUser, encodeCreateUserRequest({ username: `fuzzer-${protocol}`, password: 'fuzzer-pw', status: 1, permissions: perms }, protocol)), protocol)!;
    const c = await RawClient.connect(server.port, protocol);
    await c.login(`fuzzer-${protocol}`, 'fuzzer-pw');
    const bodies: Array<[number, Uint8Array]> = [
      [CommandCode.CreateUser, encodeCreateUserRequest({ username: `made-${protocol}`, password: 'made-pw', status: 1, permissions: perms }, protocol)],
      [CommandCode.UpdateUser, encodeUpdateUserRequest({ user: `made-${protocol}`, username: `renamed-${protocol}`, status: 2 }, protocol)],
      [CommandCode.UpdatePermissions, encodeUpdatePermissionsRequest({ user: `made-${protocol}`, permissions: perms })],
      [CommandCode.ChangePassword, encodeChangePasswordRequest({ user: me.id, currentPassword: 'fuzzer-pw', newPassword: 'fuzzer-pw' })],
      [CommandCode.GetUser, encodeUserTarget({ user: 0 })],
      [CommandCode.CreatePersonalAccessToken, encodeCreateTokenRequest({ name: 'fuzz-token', expiry: 5_000_000n })],
      [CommandCode.DeletePersonalAccessToken, encodeDeleteTokenRequest({ name: 'fuzz-token' })],
      [CommandCode.GetStream, encodeStreamTarget({ stream })],
      [CommandCode.DeleteStream, encodeStreamTarget({ stream })],
    ];
    let seed = 0x5eed;
    const rand = (n: number): number => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed % n;
    };
    let answered = 0;
    for (const [code, body] of bodies) {
      const variants = [body, ...Array.from({ length: body.length }, (_, n) => body.subarray(0, n))];
      for (let i = 0; i < 24; i++) {
        const b = body.slice();
        for (let f = 0; f <= rand(3); f++) b[rand(b.length)] = rand(256);
        variants.push(b);
      }
      for (const v of variants) {
        const r = await c.call(code, v);
        if (!r.ok) expect(r.code).toBeGreaterThan(0);
        answered++;
      }
    }
    expect(answered).toBeGreaterThan(300);
    expect(internalErrors).toEqual([]);
    c.close();
    // The root user is untouched and still in charge.
    const again = await rootClient(protocol);
    expect(decodeStreamDetails(await again.ok(CommandCode.GetStream, encodeStreamTarget({ stream })), protocol)?.name).toBe(stream);
    again.close();
    root.close();
  });
});
