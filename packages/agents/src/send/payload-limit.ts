/**
 * The log's bound on one record, checked on the send path before the bytes are built. A record
 * over it is refused by every transport (Iggy's `TooBigMessagePayload`, MemoryLog the same), but
 * only after the client has encoded (and signed) the whole body, and as a PublishFailedError that
 * reads like a log failure. Refused here, it is the caller's InvalidError and nothing is built.
 */
import { MAX_PAYLOAD_BYTES } from '@agdx/transport';
import { InvalidError } from '@agdx/wire';

/**
 * Refuses a body that cannot fit one record whatever the envelope around it (the encoding adds
 * at least a few bytes): called before the body is encoded or signed.
 * @throws InvalidError with `context` `{ field: 'body', bytes, cap }`.
 */
export function checkBodyFits(body: Uint8Array): void {
  if (body.length >= MAX_PAYLOAD_BYTES) throw tooLarge('body', body.length);
}

/**
 * Refuses an encoded envelope over the bound (a body just under it, with the envelope's fields),
 * before it reaches the appender.
 * @throws InvalidError with `context` `{ field: 'payload', bytes, cap }`.
 */
export function checkPayloadFits(payload: Uint8Array): void {
  if (payload.length > MAX_PAYLOAD_BYTES) throw tooLarge('payload', payload.length);
}

function tooLarge(field: string, bytes: number): InvalidError {
  return new InvalidError(`the ${field} is ${bytes}B; one record holds at most ${MAX_PAYLOAD_BYTES}B (use a claim check for larger bodies)`, {
    context: { field, bytes, cap: MAX_PAYLOAD_BYTES },
  });
}
