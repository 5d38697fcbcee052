/**
 * What the command line reports and how it exits: one line per failure, with a stable kind, and
 * exit codes a script can rely on.
 */

import { AgdxError, InvalidError } from '@agdx/wire';

/** Exit codes of `agdx`: 0 success, 1 a runtime failure, 2 a usage error. */
export const ExitCode: { readonly Ok: 0; readonly Failure: 1; readonly Usage: 2 } = { Ok: 0, Failure: 1, Usage: 2 };
/** An exit code of `agdx`. */
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** A bad command line: an unknown subcommand or option, a missing or malformed value. Exits 2. */
export class UsageError extends InvalidError {
  /** Marks the error as the caller's mistake, so the command exits 2 and names `usage`. */
  readonly usage: true = true;
}

/** True for a {@link UsageError}, including one thrown by another copy of this package. */
export function isUsageError(error: unknown): boolean {
  return error instanceof Error && (error as { usage?: unknown }).usage === true;
}

/** The kind printed for an error: `usage`, an AGDX kind, the node error code, or `internal`. */
export function errorKindOf(error: unknown): string {
  if (isUsageError(error)) return 'usage';
  if (AgdxError.is(error)) return error.kind;
  if (error instanceof Error) {
    const { kind, code } = error as Error & { kind?: unknown; code?: unknown };
    if (typeof kind === 'string') return kind;
    if (typeof code === 'string') return code;
  }
  return 'internal';
}

/** The one line printed for a failure: `agdx: <kind>: <message>`. */
export function errorLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return `agdx: ${errorKindOf(error)}: ${message.split('\n')[0] ?? ''}`;
}

/** The exit code for a failure. */
export function exitCodeOf(error: unknown): ExitCode {
  return isUsageError(error) ? ExitCode.Usage : ExitCode.Failure;
}
