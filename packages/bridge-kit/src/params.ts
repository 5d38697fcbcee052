import { InvalidError } from '@agdx/wire';
import type { z } from 'zod';

/** The dotted path of a zod issue (`arguments.limit`, `message.parts.0.text`); `params` for the root. */
function pathOf(path: readonly PropertyKey[]): string {
  return path.length === 0 ? 'params' : path.map((key) => String(key)).join('.');
}

/**
 * Checks untrusted JSON against a zod schema and returns the parsed value.
 *
 * The thrown error names the first field that failed (its dotted path in `context.field`), so a
 * bridge can tell the client which member was wrong while the public message stays fixed. zod's
 * `safeParse` never throws for bad data; a schema's own throwing refinement is caught too, so
 * hostile input only ever produces an `InvalidError`.
 * @param what what the value is, for the message (`tools/call params`).
 * @throws InvalidError (kind `invalid`) when the value does not match.
 */
export function parseWith<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
  let result: ReturnType<S['safeParse']>;
  try {
    result = schema.safeParse(value) as ReturnType<S['safeParse']>;
  } catch (cause) {
    throw new InvalidError(`${what} could not be read`, { cause, context: { field: 'params' } });
  }
  if (result.success) return result.data as z.output<S>;
  const issue = result.error.issues[0];
  const field = issue === undefined ? 'params' : pathOf(issue.path);
  const reason = issue?.message ?? 'invalid';
  throw new InvalidError(`${what}: ${field}: ${reason}`, { cause: result.error, context: { field, reason } });
}
