/** What a JSON-RPC answer tells a telemetry serve span (see `tracedServe` in `@agdx/agents`). */
import type { ServeOutcome } from '@agdx/agents';
import type { JsonRpcResponse } from './json-rpc.js';

/**
 * The outcome of a served JSON-RPC call: an error response is a failure with its code and public
 * message; `conversationOf` may name the session from a successful result (a new task's id).
 */
export function rpcServeOutcome(response: JsonRpcResponse, conversationOf?: (result: unknown) => string | undefined): ServeOutcome {
  if ('error' in response) return { failure: { code: response.error.code, message: response.error.message } };
  return { conversation: conversationOf?.(response.result) };
}
