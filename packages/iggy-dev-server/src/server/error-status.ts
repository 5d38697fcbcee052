/** Maps what a command threw to the Iggy status a client receives. */

import { IggyError, IggyProtocolError } from '@agdx/iggy-protocol';
import type { IggyProtocol } from '@agdx/iggy-protocol';
import { Status } from '../log/broker.js';

/**
 * The status of a refusal: an `IggyError` keeps its code; a codec or integrity error uses the
 * Iggy code it names (`context.iggyCode`). A body that does not decode otherwise gets what the
 * generation answers: Iggy 0.9 maps every decode failure to InvalidCommand (3)
 * (core/server/src/dispatch.rs and responses.rs, `map_err(|_| IggyError::InvalidCommand)`);
 * Iggy 0.8 does too, except a value its layout forbids (`context.validation`, its
 * `WireError::Validation`), which is InvalidFormat (4) (core/server/src/binary/dispatch.rs
 * `decode`). Other kinds of protocol error keep 4. Anything else is a bug and is rethrown so
 * the connection, not the server, pays for it.
 */
export function statusOf(error: unknown, protocol: IggyProtocol): number {
  if (error instanceof IggyError) return error.code;
  if (IggyProtocolError.is(error)) {
    const code = error.context?.['iggyCode'];
    if (typeof code === 'number') return code;
    if (error.kind !== 'codec') return Status.InvalidFormat;
    return protocol === 'classic' && error.context?.['validation'] === true ? Status.InvalidFormat : Status.InvalidCommand;
  }
  throw error;
}
