import { InvalidError } from '@agdx/wire';

const encoder = new TextEncoder();
// The default decoder drops one leading byte order mark, which JSON lets a parser ignore: bytes that
// start with one are accepted as JSON (and ride on as they are).
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The JSON body of a bridge call: bytes ride as they are, a string is JSON text sent byte for
 * byte, anything else is encoded with JSON.stringify. The result must be UTF-8 JSON.
 * @throws InvalidError when it is not JSON.
 */
export function jsonBody(value: unknown, what: string): Uint8Array {
  if (value instanceof Uint8Array) {
    checkJsonBytes(value, what);
    return value;
  }
  if (typeof value === 'string') {
    checkJsonText(value, what);
    return encoder.encode(value);
  }
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (cause) {
    throw new InvalidError(`${what} cannot be encoded as JSON`, { cause, context: { field: what } });
  }
  if (text === undefined) throw new InvalidError(`${what} cannot be encoded as JSON`, { context: { field: what } });
  return encoder.encode(text);
}

function checkJsonText(text: string, what: string): void {
  try {
    JSON.parse(text);
  } catch (cause) {
    throw new InvalidError(`${what} must be JSON`, { cause, context: { field: what } });
  }
}

function checkJsonBytes(bytes: Uint8Array, what: string): void {
  let text: string;
  try {
    text = strictUtf8.decode(bytes);
  } catch (cause) {
    throw new InvalidError(`${what} must be UTF-8 JSON`, { cause, context: { field: what } });
  }
  checkJsonText(text, what);
}
