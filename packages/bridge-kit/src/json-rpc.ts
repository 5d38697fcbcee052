import { AgdxError } from '@agdx/wire';

/** A JSON-RPC 2.0 request id; `null` when the request had none or it could not be read. */
export type JsonRpcId = string | number | null;

/** The error member of a JSON-RPC failure. */
export interface JsonRpcErrorObject {
  /** Always {@link BRIDGE_APP_ERROR_CODE}. */
  readonly code: number;
  /** One of the fixed public messages ({@link PublicErrorMessage}). */
  readonly message: string;
  /** For a refused request, which field was wrong: never internal detail (see {@link publicErrorData}). */
  readonly data?: PublicErrorData | undefined;
}

/** The `data` of a refused request: the field that failed and a short reason. */
export interface PublicErrorData {
  /** The dotted path of the first field that failed (`arguments.limit`). */
  readonly field: string;
  /** Why, in the validator's words (`expected string, received number`). */
  readonly reason?: string | undefined;
}

/** A JSON-RPC 2.0 response: exactly one of `result` and `error`. */
export type JsonRpcResponse =
  | { readonly jsonrpc: '2.0'; readonly id: JsonRpcId; readonly result: unknown }
  | { readonly jsonrpc: '2.0'; readonly id: JsonRpcId; readonly error: JsonRpcErrorObject };

/** The application error code of every bridge failure (seed 002). */
export const BRIDGE_APP_ERROR_CODE: -32000 = -32000;

/** The fixed public error messages (seed 002 "Errors"); nothing else ever reaches a client. */
export const PublicErrorMessage: {
  readonly InvalidRequest: 'invalid request';
  readonly UnsupportedOperation: 'unsupported operation';
  readonly Conflict: 'conflict';
  readonly Unauthenticated: 'unauthenticated';
  readonly Forbidden: 'forbidden';
  readonly StepUpRequired: 'step-up authorization required';
  readonly NotFound: 'not found';
  readonly Internal: 'internal error';
} = {
  InvalidRequest: 'invalid request',
  UnsupportedOperation: 'unsupported operation',
  Conflict: 'conflict',
  Unauthenticated: 'unauthenticated',
  Forbidden: 'forbidden',
  StepUpRequired: 'step-up authorization required',
  NotFound: 'not found',
  Internal: 'internal error',
};
/** One of the fixed public error messages. */
export type PublicErrorMessage = (typeof PublicErrorMessage)[keyof typeof PublicErrorMessage];

/**
 * The public message for an error. Internal detail (stack, transport messages, ids) never leaks:
 * the mapping goes by the error's stable `kind` only, and a timeout reads `internal error`.
 */
export function publicErrorMessage(error: unknown): PublicErrorMessage {
  if (!AgdxError.is(error)) return PublicErrorMessage.Internal;
  switch (error.kind as string) {
    case 'invalid':
    case 'codec':
      return PublicErrorMessage.InvalidRequest;
    case 'unsupported':
      return PublicErrorMessage.UnsupportedOperation;
    case 'conflict':
    case 'stale-session':
      return PublicErrorMessage.Conflict;
    case 'signature':
      return PublicErrorMessage.Unauthenticated;
    case 'rejected':
    case 'policy-blocked':
      return PublicErrorMessage.Forbidden;
    case 'step-up-required':
      return PublicErrorMessage.StepUpRequired;
    case 'not-found':
    case 'routing':
      return PublicErrorMessage.NotFound;
    default:
      return PublicErrorMessage.Internal;
  }
}

/**
 * The `data` a client may see for an error: only for a refused request (kind `invalid`) whose
 * context names the field, since a field name and a validator's reason describe the client's own
 * input and nothing of the server. Everything else gets no data.
 */
export function publicErrorData(error: unknown): PublicErrorData | undefined {
  if (!AgdxError.is(error, 'invalid')) return undefined;
  const field = error.context?.['field'];
  if (typeof field !== 'string' || field.length === 0) return undefined;
  const reason = error.context?.['reason'];
  return { field, ...(typeof reason === 'string' && reason.length > 0 ? { reason: reason.slice(0, 200) } : {}) };
}

/** A plain JSON object (not an array, not null). */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The id of a request as JSON-RPC reads it: a string or number id, else null. */
export function requestIdOf(request: unknown): JsonRpcId {
  if (!isJsonObject(request)) return null;
  const id = request['id'];
  return typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : null;
}

/** {@link requestIdOf} that reads a hostile object (throwing getter, proxy) as having no id. */
export function safeRequestId(request: unknown): JsonRpcId {
  try {
    return requestIdOf(request);
  } catch {
    return null;
  }
}

/** A success response. */
export function rpcResult(id: JsonRpcId, result: unknown): JsonRpcResponse {
  return { jsonrpc: '2.0', id, result };
}

/** A failure response with the fixed public message (and, for a refused field, its {@link PublicErrorData}). */
export function rpcError(id: JsonRpcId, message: PublicErrorMessage, data?: PublicErrorData): JsonRpcResponse {
  return { jsonrpc: '2.0', id, error: { code: BRIDGE_APP_ERROR_CODE, message, ...(data !== undefined ? { data } : {}) } };
}

/** The failure response for a thrown error: {@link publicErrorMessage} and {@link publicErrorData}. */
export function rpcErrorFor(id: JsonRpcId, error: unknown): JsonRpcResponse {
  return rpcError(id, publicErrorMessage(error), publicErrorData(error));
}

/** A request that passed the envelope checks: a "2.0" object with a string method and object params. */
export interface ParsedRpcRequest {
  /** Request id (null when absent). */
  readonly id: JsonRpcId;
  /** Method name. */
  readonly method: string;
  /** Params (`{}` when absent). */
  readonly params: Record<string, unknown>;
}

/** Checks the JSON-RPC envelope; undefined for a malformed request (a batch array included). */
export function parseRpcRequest(request: unknown): ParsedRpcRequest | undefined {
  if (!isJsonObject(request)) return undefined;
  if (request['jsonrpc'] !== '2.0') return undefined;
  const method = request['method'];
  if (typeof method !== 'string') return undefined;
  const id = request['id'];
  if (id !== undefined && id !== null && typeof id !== 'string' && !(typeof id === 'number' && Number.isFinite(id))) return undefined;
  const params = request['params'] ?? {};
  if (!isJsonObject(params)) return undefined;
  return { id: requestIdOf(request), method, params };
}
