/**
 * Shared plumbing of the AGDX edge bridges (`@agdx/bridge-a2a`, `@agdx/bridge-mcp`): JSON-RPC 2.0
 * envelopes with the fixed public error messages, JSON request bodies with a size cap, the
 * optional edge-authorization hook, and JSON body encoding for envelopes. Runtime-neutral; the
 * node:http adapter lives in `@agdx/bridge-kit/node`.
 * @module
 */

export {
  BRIDGE_APP_ERROR_CODE,
  isJsonObject,
  parseRpcRequest,
  publicErrorData,
  PublicErrorMessage,
  publicErrorMessage,
  requestIdOf,
  rpcError,
  rpcErrorFor,
  rpcResult,
  safeRequestId,
} from './json-rpc.js';
export type { JsonRpcErrorObject, JsonRpcId, JsonRpcResponse, ParsedRpcRequest, PublicErrorData } from './json-rpc.js';
export { rpcServeOutcome } from './rpc-serve-outcome.js';
export { OTHER_METHOD, servedMethodName } from './served-method.js';
export { authenticateRequest, authorizeRequest, DEFAULT_MAX_BODY_BYTES, jsonResponse, readJsonBody, rpcErrorResponse } from './http-common.js';
export type { EdgeAuthorization, JsonBody } from './http-common.js';
export { jsonBody } from './body.js';
export { limitBody } from './body-limit.js';
export { reserveEventStream } from './stream-gate.js';
export { parseWith } from './params.js';
export { bridgeAgentId, bridgeHopsAfter, nonEmptyName, startChildSession } from './bridge-identity.js';
export type { ChildAncestry } from './bridge-identity.js';
