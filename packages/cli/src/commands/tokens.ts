/** `agdx tokens`: the personal access tokens of the logged-in Iggy user (list, create, delete). */

import { flag, parseCommandArgs, stringOption } from '../args.js';
import { withIggy } from '../connect.js';
import { UsageError } from '../errors.js';
import { line } from '../io.js';
import { microsToIso, renderTable } from '../table.js';
import type { Command } from './command.js';
import { DEFAULT_IGGY_URL } from './tail.js';

const HELP = `Usage: agdx tokens list [options]
       agdx tokens create NAME [--expiry DURATION|never] [options]
       agdx tokens delete NAME [options]

Manages the personal access tokens of the user logged in with --iggy. create prints the token
on its own line; the server never shows it again. Log in with it as iggy://:TOKEN@host:port.

Options:
  --iggy URL            the server (default ${DEFAULT_IGGY_URL})
  --expiry DURATION     create: lifetime such as 90s, 30m, 12h or 7d, or never (default: the
                        server's default, which on Iggy 0.9 is never)
  --json                machine output (one JSON document)
  -h, --help            this help

Exit codes: 0 ok, 1 the server refused or is unreachable, 2 a usage error.`;

const UNIT_MICROS: Readonly<Record<string, bigint>> = { s: 1_000_000n, m: 60_000_000n, h: 3_600_000_000n, d: 86_400_000_000n };

/** `90s`, `30m`, `12h`, `7d` → µs; `never` → `never`. */
export function parseExpiry(text: string): bigint | 'never' {
  if (text === 'never') return 'never';
  const match = /^(\d{1,9})([smhd])$/.exec(text);
  const unit = match === null ? undefined : UNIT_MICROS[match[2] ?? ''];
  if (match === null || unit === undefined || Number(match[1]) === 0) throw new UsageError(`--expiry must be a positive duration such as 90s, 30m, 12h or 7d, or never; got "${text}"`);
  return BigInt(match[1] ?? '0') * unit;
}

function name(text: string | undefined, verb: string): string {
  if (text === undefined || text === '') throw new UsageError(`tokens ${verb} needs a NAME`);
  return text;
}

/** `agdx tokens`. */
export const tokensCommand: Command = {
  name: 'tokens',
  summary: 'list, create and delete personal access tokens on Iggy',
  help: HELP,
  async run(argv, io) {
    const args = parseCommandArgs(argv, { iggy: { type: 'string' }, expiry: { type: 'string' }, json: { type: 'boolean' } }, true);
    if (flag(args, 'help')) return line(io.out, HELP);
    const [verb, target, ...extra] = args.positionals;
    if (extra.length > 0) throw new UsageError(`tokens ${verb ?? ''} takes at most one argument, got ${args.positionals.length - 1}`);
    const iggy = stringOption(args, 'iggy') ?? DEFAULT_IGGY_URL;
    const json = flag(args, 'json');
    switch (verb) {
      case 'list': {
        if (target !== undefined) throw new UsageError(`tokens list takes no argument, got "${target}"`);
        const tokens = await withIggy(iggy, io.signal, (t) => t.admin.tokens.list({ signal: io.signal }));
        if (json) return line(io.out, JSON.stringify(tokens.map((t) => ({ name: t.name, expiresAtMicros: t.expiresAtMicros?.toString() ?? null })), null, 2));
        line(io.out, renderTable(['NAME', 'EXPIRES'], tokens.map((t) => [t.name, t.expiresAtMicros === undefined ? 'never' : microsToIso(t.expiresAtMicros)])));
        return;
      }
      case 'create': {
        const tokenName = name(target, 'create');
        const text = stringOption(args, 'expiry');
        const expiry = text === undefined ? undefined : parseExpiry(text);
        const token = await withIggy(iggy, io.signal, (t) => t.admin.tokens.create(tokenName, expiry === undefined ? {} : { expiryMicros: expiry }, { signal: io.signal }));
        if (json) return line(io.out, JSON.stringify({ name: tokenName, token }));
        return line(io.out, token);
      }
      case 'delete': {
        const tokenName = name(target, 'delete');
        await withIggy(iggy, io.signal, (t) => t.admin.tokens.delete(tokenName, { signal: io.signal }));
        return line(io.out, `deleted token ${tokenName}`);
      }
      default:
        throw new UsageError(verb === undefined ? 'tokens needs a verb: list, create, delete' : `unknown tokens verb "${verb}" (list, create, delete)`);
    }
  },
};
