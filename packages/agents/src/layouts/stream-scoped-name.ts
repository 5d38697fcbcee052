import { InvalidError } from '@agdx/wire';

/** The prefix of a stream-scoped managed name. */
export const STREAM_SCOPE_PREFIX = 'stream:';

/** A stream-scoped name taken apart. */
export interface StreamScopedName {
  /** The stream (tenant). */
  readonly stream: string;
  /** The name inside the stream. */
  readonly local: string;
}

/**
 * Scopes a managed name to a stream: `stream:<stream>/<local>` (seed 000). A name that already
 * starts with `stream:` passes through unchanged.
 * @throws InvalidError for an empty stream or local name, or a stream containing `/` (the result
 * could not be parsed back).
 */
export function streamScopedName(stream: string, local: string): string {
  if (typeof local !== 'string' || local.length === 0) throw new InvalidError('scoped name must not be empty', { context: { field: 'local' } });
  if (local.startsWith(STREAM_SCOPE_PREFIX)) return local;
  if (typeof stream !== 'string' || stream.length === 0) throw new InvalidError('stream must not be empty', { context: { field: 'stream' } });
  if (stream.includes('/')) throw new InvalidError('stream name for a scoped name must not contain `/`', { context: { field: 'stream' } });
  return `${STREAM_SCOPE_PREFIX}${stream}/${local}`;
}

/** Splits `stream:<stream>/<local>`; `undefined` when `name` is not a well-formed scoped name. */
export function parseStreamScopedName(name: string): StreamScopedName | undefined {
  if (typeof name !== 'string' || !name.startsWith(STREAM_SCOPE_PREFIX)) return undefined;
  const rest = name.slice(STREAM_SCOPE_PREFIX.length);
  const slash = rest.indexOf('/');
  if (slash <= 0 || slash === rest.length - 1) return undefined;
  return { stream: rest.slice(0, slash), local: rest.slice(slash + 1) };
}
