/**
 * The command-line flags for the connection and login limits, shared by `agdx-iggy-dev` and
 * `agdx dev` so the two commands accept the same names with the same help. Ranges are checked
 * by `startDevServer` itself (a `DevServerError` of kind `invalid`).
 */

import type { DevServerOptions } from './options.js';

/** The numeric options settable from the command line. */
export type LimitOption = 'maxConnections' | 'preLoginTimeoutMs' | 'idleTimeoutMs' | 'preLoginBufferBytes' | 'loginFailuresPerConnection' | 'loginFailuresPerAddress' | 'loginLockoutMs' | 'loginFailureDelayMs';

/** One flag: `--<flag> <n>` sets `option`. */
export interface LimitFlag {
  /** The flag without the leading dashes. */
  readonly flag: string;
  /** The option it sets. */
  readonly option: LimitOption;
  /** One line of help, default included. */
  readonly help: string;
}

/** Every limit flag, in the order the help lists them. */
export const LIMIT_FLAGS: readonly LimitFlag[] = [
  { flag: 'max-connections', option: 'maxConnections', help: 'open connections at most; unauthenticated ones are shed first (default 1024)' },
  { flag: 'pre-login-timeout', option: 'preLoginTimeoutMs', help: 'ms a connection may stay without logging in (default 10000)' },
  { flag: 'idle-timeout', option: 'idleTimeoutMs', help: 'ms a logged-in connection may send no request; 0 = never (default 300000)' },
  { flag: 'pre-login-buffer', option: 'preLoginBufferBytes', help: 'bytes a connection may hold before login (default 4096)' },
  { flag: 'login-failures-per-connection', option: 'loginFailuresPerConnection', help: 'failed logins before a connection is closed (default 3)' },
  { flag: 'login-failures-per-address', option: 'loginFailuresPerAddress', help: 'failed logins before an address is locked out (default 10)' },
  { flag: 'login-lockout', option: 'loginLockoutMs', help: 'ms failures are remembered and a lockout lasts (default 60000)' },
  { flag: 'login-failure-delay', option: 'loginFailureDelayMs', help: 'ms a failed login answer is held, doubling per failure (default 100)' },
];

/** The help lines of {@link LIMIT_FLAGS}, aligned like the other options of both commands. */
export function limitFlagsHelp(): string {
  return LIMIT_FLAGS.map((f) => `  --${`${f.flag} <n>`.padEnd(34)} ${f.help}`).join('\n');
}

/** The `parseArgs` option specs of {@link LIMIT_FLAGS}. */
export function limitFlagSpecs(): Record<string, { readonly type: 'string' }> {
  return Object.fromEntries(LIMIT_FLAGS.map((f) => [f.flag, { type: 'string' as const }]));
}

/**
 * Reads the limit flags out of parsed values: the options they set, or an error message naming
 * the first flag whose value is not a whole number.
 */
export function limitOptionsFromFlags(values: Readonly<Record<string, unknown>>): { readonly options: Partial<Pick<DevServerOptions, LimitOption>> } | { readonly error: string } {
  const options: Partial<Record<LimitOption, number>> = {};
  for (const f of LIMIT_FLAGS) {
    const raw = values[f.flag];
    if (raw === undefined) continue;
    const n = typeof raw === 'string' && /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
    if (!Number.isSafeInteger(n)) return { error: `--${f.flag} must be a whole number, got ${String(raw)}` };
    options[f.option] = n;
  }
  return { options };
}
