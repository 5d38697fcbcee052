/** `agdx users`: Iggy user administration (list, show, create, update, permissions, password, delete). */

import type { IggyUser, IggyUserDetails, IggyUserStatus } from '@agdx/transport-iggy';
import { flag, listOption, parseCommandArgs, stringOption } from '../args.js';
import { withIggy } from '../connect.js';
import { UsageError } from '../errors.js';
import { line } from '../io.js';
import { PERMISSION_FLAGS, describePermissions, permissionsFrom } from '../permission-args.js';
import { microsToIso, renderTable } from '../table.js';
import type { Command } from './command.js';
import { DEFAULT_IGGY_URL } from './tail.js';

const HELP = `Usage: agdx users list [options]
       agdx users show USER [options]
       agdx users create NAME --password P [--inactive] [permissions] [options]
       agdx users update USER [--username NEW] [--status active|inactive] [options]
       agdx users permissions USER [permissions | --none] [options]
       agdx users password USER --current P --new P [options]
       agdx users delete USER [options]

Manages the users of an Iggy server (or agdx dev). USER is a numeric id or a username. What
you may do depends on the permissions of the user in --iggy (the root user may do everything).

Permissions (create and permissions replace them all; unnamed flags are off):
  --global LIST         global flags, comma separated, or all:
                        ${PERMISSION_FLAGS.global.join(', ')}
  --stream ID:LIST      on one stream (repeatable): ${PERMISSION_FLAGS.stream.join(', ')}
  --topic S/T:LIST      on one topic of a stream (repeatable): ${PERMISSION_FLAGS.topic.join(', ')}
  --none                permissions: remove every permission

Options:
  --iggy URL            the server (default ${DEFAULT_IGGY_URL})
  --json                machine output (one JSON document)
  -h, --help            this help

Exit codes: 0 ok, 1 the server refused or is unreachable (41 = missing permission), 2 a usage error.`;

function userRef(text: string | undefined, verb: string): number | string {
  if (text === undefined || text === '') throw new UsageError(`users ${verb} needs a USER (id or username)`);
  return /^\d+$/.test(text) ? Number(text) : text;
}

function statusOption(text: string | undefined): IggyUserStatus | undefined {
  if (text === undefined) return undefined;
  if (text !== 'active' && text !== 'inactive') throw new UsageError(`--status must be active or inactive, got "${text}"`);
  return text;
}

function required(value: string | undefined, option: string, verb: string): string {
  if (value === undefined) throw new UsageError(`users ${verb} needs ${option}`);
  return value;
}

function toJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? v.toString() : v), 2);
}

function userRow(u: IggyUser): string[] {
  return [String(u.id), u.username, u.status, microsToIso(u.createdAtMicros)];
}

function printDetails(out: { write(text: string): unknown }, u: IggyUserDetails): void {
  for (const [label, value] of [['id', String(u.id)], ['username', u.username], ['status', u.status], ['created', microsToIso(u.createdAtMicros)]]) line(out, `${(label ?? '').padEnd(11)} ${value ?? ''}`);
  const [first, ...rest] = describePermissions(u.permissions);
  line(out, `${'permissions'.padEnd(11)} ${first ?? ''}`);
  for (const l of rest) line(out, `${''.padEnd(11)} ${l}`);
}

/** `agdx users`. */
export const usersCommand: Command = {
  name: 'users',
  summary: 'manage Iggy users and their permissions',
  help: HELP,
  async run(argv, io) {
    const args = parseCommandArgs(
      argv,
      {
        iggy: { type: 'string' },
        json: { type: 'boolean' },
        password: { type: 'string' },
        inactive: { type: 'boolean' },
        username: { type: 'string' },
        status: { type: 'string' },
        global: { type: 'string' },
        stream: { type: 'string', multiple: true },
        topic: { type: 'string', multiple: true },
        none: { type: 'boolean' },
        current: { type: 'string' },
        new: { type: 'string' },
      },
      true,
    );
    if (flag(args, 'help')) return line(io.out, HELP);
    const [verb, target, ...extra] = args.positionals;
    if (extra.length > 0) throw new UsageError(`users ${verb ?? ''} takes at most one argument, got ${args.positionals.length - 1}`);
    const iggy = stringOption(args, 'iggy') ?? DEFAULT_IGGY_URL;
    const json = flag(args, 'json');
    const permissions = (): ReturnType<typeof permissionsFrom> => permissionsFrom(stringOption(args, 'global'), listOption(args, 'stream'), listOption(args, 'topic'));
    switch (verb) {
      case 'list': {
        if (target !== undefined) throw new UsageError(`users list takes no argument, got "${target}"`);
        const users = await withIggy(iggy, io.signal, (t) => t.admin.users.list({ signal: io.signal }));
        if (json) return line(io.out, toJson(users));
        line(io.out, renderTable(['ID', 'USERNAME', 'STATUS', 'CREATED'], users.map(userRow)));
        return;
      }
      case 'show': {
        const user = userRef(target, 'show');
        const details = await withIggy(iggy, io.signal, (t) => t.admin.users.get(user, { signal: io.signal }));
        if (details === undefined) throw Object.assign(new Error(`no user ${String(user)}`), { kind: 'not-found' });
        if (json) return line(io.out, toJson(details));
        return printDetails(io.out, details);
      }
      case 'create': {
        if (target === undefined) throw new UsageError('users create needs a NAME');
        const input = { username: target, password: required(stringOption(args, 'password'), '--password', 'create'), status: flag(args, 'inactive') ? ('inactive' as const) : ('active' as const), permissions: permissions() };
        const created = await withIggy(iggy, io.signal, (t) => t.admin.users.create(input, { signal: io.signal }));
        if (json) return line(io.out, toJson(created));
        return line(io.out, `created user ${created.username} (id ${created.id})`);
      }
      case 'update': {
        const user = userRef(target, 'update');
        const username = stringOption(args, 'username');
        const status = statusOption(stringOption(args, 'status'));
        if (username === undefined && status === undefined) throw new UsageError('users update needs --username or --status');
        await withIggy(iggy, io.signal, (t) => t.admin.users.update(user, { ...(username === undefined ? {} : { username }), ...(status === undefined ? {} : { status }) }, { signal: io.signal }));
        return line(io.out, `updated user ${String(user)}`);
      }
      case 'permissions': {
        const user = userRef(target, 'permissions');
        const next = permissions();
        if (flag(args, 'none') === (next !== undefined)) throw new UsageError('users permissions needs either --none or at least one of --global, --stream, --topic');
        await withIggy(iggy, io.signal, (t) => t.admin.users.setPermissions(user, next, { signal: io.signal }));
        return line(io.out, `set the permissions of user ${String(user)}: ${describePermissions(next).join('; ')}`);
      }
      case 'password': {
        const user = userRef(target, 'password');
        const current = required(stringOption(args, 'current'), '--current', 'password');
        const next = required(stringOption(args, 'new'), '--new', 'password');
        await withIggy(iggy, io.signal, (t) => t.admin.users.changePassword(user, current, next, { signal: io.signal }));
        return line(io.out, `changed the password of user ${String(user)}`);
      }
      case 'delete': {
        const user = userRef(target, 'delete');
        await withIggy(iggy, io.signal, (t) => t.admin.users.delete(user, { signal: io.signal }));
        return line(io.out, `deleted user ${String(user)}`);
      }
      default:
        throw new UsageError(verb === undefined ? 'users needs a verb: list, show, create, update, permissions, password, delete' : `unknown users verb "${verb}" (list, show, create, update, permissions, password, delete)`);
    }
  },
};
