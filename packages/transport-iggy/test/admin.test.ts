/**
 * `transport.admin` against @agdx/iggy-dev-server in a separate process, both protocols: user
 * administration, permissions as the server enforces them, personal access tokens and logging
 * in with one from the connection string, and the typed errors of each refusal.
 */

import { ClosedError, ConflictError, InvalidArgumentError, NotFoundError, TransportError } from '@agdx/transport';
import { IggyTransport, iggyCodeOf } from '@agdx/transport-iggy';
import type { Permissions } from '@agdx/transport-iggy';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevServerProcess, type DevServerProcess } from './support/dev-server-process.js';

let server: DevServerProcess;
beforeAll(async () => {
  server = await startDevServerProcess();
}, 30_000);
afterAll(async () => {
  await server?.stop();
});

const NO_GLOBAL = {
  manageServers: false,
  readServers: false,
  manageUsers: false,
  readUsers: false,
  manageStreams: false,
  readStreams: false,
  manageTopics: false,
  readTopics: false,
  pollMessages: false,
  sendMessages: false,
};

/** Runs `fn` with a connected transport and closes it afterwards. */
async function withTransport<T>(target: string, fn: (t: IggyTransport) => Promise<T>): Promise<T> {
  const t = await IggyTransport.connect(target);
  try {
    return await fn(t);
  } finally {
    await t.close();
  }
}

async function failure(p: Promise<unknown>): Promise<TransportError> {
  try {
    await p;
  } catch (e) {
    if (TransportError.is(e)) return e;
    throw e;
  }
  throw new Error('expected a refusal');
}

describe.each(['vsr', 'classic'] as const)('transport.admin [%s]', (protocol) => {
  const url = (credentials: string): string => `iggy://${credentials}@127.0.0.1:${server.port}?protocol=${protocol}`;
  const name = (s: string): string => `${s}-${protocol}`;

  it('manages users and their permissions, which the server then enforces', async () => {
    const root = await IggyTransport.connect(url('iggy:iggy'));
    const perms: Permissions = { global: { ...NO_GLOBAL, readStreams: true }, streams: [] };
    const created = await root.admin.users.create({ username: name('alice'), password: 'alice-pw', permissions: perms });
    expect(created).toMatchObject({ username: name('alice'), status: 'active', permissions: perms });
    expect(created.createdAtMicros).toBeGreaterThan(0n);
    expect(await root.admin.users.get(name('alice'))).toEqual(created);
    expect((await root.admin.users.list()).map((u) => u.username)).toEqual(expect.arrayContaining(['iggy', name('alice')]));
    expect(await root.admin.users.get('nobody-here')).toBeUndefined();

    const duplicate = await failure(root.admin.users.create({ username: name('alice'), password: 'other-pw' }));
    expect(duplicate).toBeInstanceOf(ConflictError);
    expect(iggyCodeOf(duplicate)).toBe(46);
    expect(await failure(root.admin.users.delete(0))).toBeInstanceOf(ConflictError);
    expect(await failure(root.admin.users.delete('nobody-here'))).toBeInstanceOf(NotFoundError);

    await withTransport(url(`${name('alice')}:alice-pw`), async (alice) => {
      // The user may read itself but not list users, and may not create streams.
      expect((await alice.admin.users.get(created.id))?.username).toBe(name('alice'));
      expect(iggyCodeOf(await failure(alice.admin.users.list()))).toBe(41);
      expect(iggyCodeOf(await failure(alice.ensureStream(name('not-allowed'))))).toBe(41);
      await root.admin.users.setPermissions(created.id, { global: { ...NO_GLOBAL, manageStreams: true, readStreams: true }, streams: [] });
      await alice.ensureStream(name('allowed'));
      await alice.admin.users.changePassword(created.id, 'alice-pw', 'alice-pw-2');
    });
    await root.admin.users.update(created.id, { username: name('alicia'), status: 'inactive' });
    expect(await root.admin.users.get(created.id)).toMatchObject({ username: name('alicia'), status: 'inactive' });
    await failure(IggyTransport.connect(url(`${name('alicia')}:alice-pw-2`), { reconnect: { maxAttempts: 1 } }));
    await root.admin.users.update(created.id, { status: 'active' });
    await withTransport(url(`${name('alicia')}:alice-pw-2`), async (alicia) => {
      expect((await alicia.admin.users.get(name('alicia')))?.id).toBe(created.id);
    });
    await root.admin.users.delete(created.id);
    expect(await root.admin.users.get(created.id)).toBeUndefined();
    await root.close();
  });

  it('creates a token, logs in with it from the connection string, lists and revokes it', async () => {
    const root = await IggyTransport.connect(url('iggy:iggy'));
    const token = await root.admin.tokens.create(name('deploy'), { expiryMicros: 3_600_000_000n });
    expect((await root.admin.tokens.list()).find((t) => t.name === name('deploy'))?.expiresAtMicros).toBeGreaterThan(0n);
    expect(iggyCodeOf(await failure(root.admin.tokens.create(name('deploy'))))).toBe(51);
    await withTransport(url(`:${encodeURIComponent(token)}`), (viaToken) => viaToken.ensureStream(name('via-token')));
    await root.admin.tokens.delete(name('deploy'));
    expect((await root.admin.tokens.list()).some((t) => t.name === name('deploy'))).toBe(false);
    expect(await failure(root.admin.tokens.delete(name('deploy')))).toBeInstanceOf(NotFoundError);
    const revoked = await failure(IggyTransport.connect(url(`:${encodeURIComponent(token)}`), { reconnect: { maxAttempts: 1 } }));
    expect(revoked.kind).not.toBe('closed');
    await root.close();
  });

  it('refuses bad arguments before sending and calls after close', async () => {
    const t = await IggyTransport.connect(url('iggy:iggy'));
    expect(await failure(t.admin.tokens.create('x', { expiryMicros: -1n }))).toBeInstanceOf(InvalidArgumentError);
    expect(await failure(t.admin.users.create({ username: '', password: 'pw-pw-pw' }))).toBeInstanceOf(InvalidArgumentError);
    expect(await failure(t.admin.users.update(1, { status: 'sleeping' as never }))).toBeInstanceOf(InvalidArgumentError);
    const admin = t.admin;
    await t.close();
    expect(await failure(admin.users.list())).toBeInstanceOf(ClosedError);
    expect(() => t.admin).toThrow(ClosedError);
  });
});
