import { readCapped, rpcErrorResponse } from './http-common.js';
import { PublicErrorMessage } from './json-rpc.js';
import { attachEventStreamGate, eventStreamGateOf } from './stream-gate.js';

/**
 * Wraps a web-standard handler so that no request body over `maxBytes` reaches it: a declared
 * `Content-Length` over the cap gets 413 before a byte is read, and a body that passes the cap
 * while it is read gets 413 as soon as it does; the body (at most `maxBytes`) is then handed to
 * `handler` as a fresh request. For fetch-style runtimes with no node adapter in front (Hono,
 * Next.js route handlers, Workers), where a handler without a cap of its own, or with another
 * one, must still answer 413 at the edge's cap. A body that cannot be read gets 400.
 *
 * @throws RangeError when `maxBytes` is not a positive integer.
 */
export function limitBody(handler: (request: Request) => Promise<Response>, maxBytes: number): (request: Request) => Promise<Response> {
  if (!Number.isSafeInteger(maxBytes) || maxBytes < 1) throw new RangeError('maxBytes must be a positive integer');
  return async (request) => {
    if (request.body === null) return handler(request);
    let bytes: Uint8Array | undefined;
    try {
      bytes = await readCapped(request, maxBytes);
    } catch {
      return rpcErrorResponse(400, null, PublicErrorMessage.InvalidRequest);
    }
    if (bytes === undefined) return rpcErrorResponse(413, null, PublicErrorMessage.InvalidRequest);
    const capped = new Request(request, { body: bytes as Uint8Array<ArrayBuffer> });
    // The fresh request still reserves its event-stream slot where an adapter limits streams.
    const gate = eventStreamGateOf(request);
    if (gate !== undefined) attachEventStreamGate(capped, gate);
    return handler(capped);
  };
}
