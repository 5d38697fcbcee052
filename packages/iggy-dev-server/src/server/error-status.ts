/** Maps what a command threw to the Iggy status a client receives. */

import { IggyError, IggyProtocolError } from '@agdx/iggy-protocol';

/**
 * The status of a refusal: an `IggyError` keeps its code; a codec or integrity error uses the
 * Iggy code it names (`context.iggyCode`), else 4 (InvalidFormat). Anything else is a bug and
 * is rethrown so the connection, not the server, pays for it.
 */
export function statusOf(error: unknown): number {
  if (error instanceof IggyError) return error.code;
  if (IggyProtocolError.is(error)) {
    const code = error.context?.['iggyCode'];
    return typeof code === 'number' ? code : 4;
  }
  throw error;
}
