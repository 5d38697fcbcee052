/** `agdx users` and `agdx tokens` against an in-process dev server, both protocols. */
import { ExitCode } from '@agdx/cli';
import { startDevServer, type DevServer } from '@agdx/iggy-dev-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agdxInProcess as agdx } from './support.js';

let server: DevServer;
beforeAll(async () => {
  server = await startDevServer({ port: 0 });
});
afterAll(async () => {
  await server.close();
});

describe.each(['vsr', 'classic'] as const)('agdx users and tokens [%s]', (protocol) => {
  const root = (): string => `iggy://iggy:iggy@127.0.0.1:${server.port}?protocol=${protocol}`;
  const as = (credentials: string): string => `iggy://${credentials}@127.0.0.1:${server.port}?protocol=${protocol}`;
  const user = `ops-${protocol}`;

  it('creates a user with permissions, shows, lists, updates, re-permissions and deletes it', async () => {
    const created = await agdx('users', 'create', user, '--password', 'ops-pw-1', '--global', 'read-streams,read-users', '--stream', '0:read-stream,poll-messages', '--topic', '0/1:send-messages', '--iggy', root());
    expect(created).toMatchObject({ code: ExitCode.Ok, err: '' });
    expect(created.out).toMatch(new RegExp(`^created user ${user} \\(id \\d+\\)\\n$`));

    const shown = await agdx('users', 'show', user, '--iggy', root());
    expect(shown.out).toContain('global: read-users, read-streams');
    expect(shown.out).toContain('stream 0: read-stream, poll-messages');
    expect(shown.out).toContain('topic 0/1: send-messages');
    const json = JSON.parse((await agdx('users', 'show', user, '--json', '--iggy', root())).out) as { permissions: { global: { readUsers: boolean; manageUsers: boolean } } };
    expect(json.permissions.global).toMatchObject({ readUsers: true, manageUsers: false });

    const listed = await agdx('users', 'list', '--iggy', root());
    expect(listed.out).toMatch(/^ID\s+USERNAME\s+STATUS\s+CREATED/);
    expect(listed.out).toContain(user);

    // The new user may list users (read-users) but not create one.
    expect((await agdx('users', 'list', '--iggy', as(`${user}:ops-pw-1`))).code).toBe(ExitCode.Ok);
    const refused = await agdx('users', 'create', 'intruder', '--password', 'intruder-pw', '--iggy', as(`${user}:ops-pw-1`));
    expect(refused.code).toBe(ExitCode.Failure);
    expect(refused.err).toMatch(/^agdx: transport: .*41.*\n$/);

    expect((await agdx('users', 'password', user, '--current', 'ops-pw-1', '--new', 'ops-pw-2', '--iggy', as(`${user}:ops-pw-1`))).code).toBe(ExitCode.Ok);
    expect((await agdx('users', 'permissions', user, '--none', '--iggy', root())).out).toContain('none');
    expect((await agdx('users', 'show', user, '--iggy', root())).out).toMatch(/permissions\s+none/);
    expect((await agdx('users', 'list', '--iggy', as(`${user}:ops-pw-2`))).code).toBe(ExitCode.Failure);

    expect((await agdx('users', 'update', user, '--status', 'inactive', '--iggy', root())).code).toBe(ExitCode.Ok);
    expect((await agdx('users', 'show', user, '--iggy', root())).out).toMatch(/status\s+inactive/);
    expect((await agdx('users', 'delete', user, '--iggy', root())).code).toBe(ExitCode.Ok);
    const gone = await agdx('users', 'show', user, '--iggy', root());
    expect(gone).toMatchObject({ code: ExitCode.Failure });
    expect(gone.err).toMatch(/^agdx: not-found: /);
    expect((await agdx('users', 'delete', '0', '--iggy', root())).err).toMatch(/^agdx: conflict: /);
  });

  it('creates a token, logs in with it, lists and deletes it', async () => {
    const created = await agdx('tokens', 'create', `ci-${protocol}`, '--expiry', '12h', '--iggy', root());
    expect(created.code).toBe(ExitCode.Ok);
    const token = created.out.trim();
    expect(token.length).toBeGreaterThan(40);
    const viaToken = await agdx('tokens', 'list', '--iggy', as(`:${encodeURIComponent(token)}`));
    expect(viaToken.code).toBe(ExitCode.Ok);
    expect(viaToken.out).toMatch(new RegExp(`ci-${protocol}\\s+\\d{4}-\\d\\d-\\d\\dT`));
    const listed = JSON.parse((await agdx('tokens', 'list', '--json', '--iggy', root())).out) as Array<{ name: string; expiresAtMicros: string | null }>;
    expect(listed.find((t) => t.name === `ci-${protocol}`)?.expiresAtMicros).toMatch(/^\d+$/);
    expect((await agdx('tokens', 'create', `ci-${protocol}`, '--iggy', root())).err).toMatch(/^agdx: conflict: /);
    expect((await agdx('tokens', 'delete', `ci-${protocol}`, '--iggy', root())).out).toBe(`deleted token ci-${protocol}\n`);
    expect((await agdx('tokens', 'delete', `ci-${protocol}`, '--iggy', root())).err).toMatch(/^agdx: not-found: /);
  });
});
