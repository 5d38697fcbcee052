/**
 * The AgentErrorBody an `error` envelope carries (`fail`, a chunk stream's `fail`, a handler's
 * `ctx.fail`). Wire's encoder writes whatever it is given, but every reader decodes the body
 * strictly (a u8 code, a text message, at most 1 MiB): a body outside that would be published
 * and then be unreadable to the requester it fails, which would see a bare rejection. Checked
 * here, it is the caller's InvalidError and nothing is published.
 */
import { AgdxError, CAPSULE_LIMITS, decodeAgentErrorBody, encodeAgentErrorBody, InvalidError, utf8Length, type AgentErrorBody } from '@agdx/wire';
import { checkObject } from './refinements.js';

/**
 * Checks an AgentErrorBody argument and encodes it, proven readable by wire's strict decoder.
 * @throws InvalidError (`context.field` names the field) for a code that is not an integer
 * 0..255, a message that is not a string or longer than the body cap, a `retryable` that is not a
 * boolean, a `detail` that is not a Map, or a body that would not decode.
 */
export function encodeErrorBody(value: unknown): Uint8Array {
  const body = checkObject<AgentErrorBody>(value, 'error body');
  const { code, message, retryable, detail } = body;
  if (typeof code !== 'number' || !Number.isInteger(code) || code < 0 || code > 255) throw invalid('code', 'must be an AgentErrorCode, an integer 0..255');
  const cap = CAPSULE_LIMITS.errorBody.maxBytes;
  if (message !== undefined) {
    if (typeof message !== 'string') throw invalid('message', 'must be a string');
    // Measured before anything is encoded.
    const bytes = utf8Length(message);
    if (bytes > cap) throw invalid('message', `is ${bytes}B, exceeds the error body cap ${cap}B`);
  }
  if (retryable !== undefined && typeof retryable !== 'boolean') throw invalid('retryable', 'must be a boolean');
  if (detail !== undefined && !(detail instanceof Map)) throw invalid('detail', 'must be a Map of metadata values');
  try {
    const encoded = encodeAgentErrorBody(body);
    decodeAgentErrorBody(encoded);
    return encoded;
  } catch (cause) {
    if (AgdxError.is(cause, 'invalid')) throw cause;
    const reason = cause instanceof Error ? cause.message : String(cause);
    throw new InvalidError(`the error body would not be readable: ${reason}`, { cause, context: { field: 'error body' } });
  }
}

function invalid(field: string, problem: string): InvalidError {
  return new InvalidError(`\`error body\` \`${field}\` ${problem}`, { context: { field } });
}
