import { authenticateRequest, authorizeRequest, DEFAULT_MAX_BODY_BYTES, jsonResponse, readJsonBody, rpcErrorResponse, type EdgeAuthorization } from '@agdx/bridge-kit';
import { isJsonObject, parseRpcRequest, PublicErrorMessage, publicErrorMessage, requestIdOf, rpcError, rpcResult } from '@agdx/bridge-kit';
import { MCP_SUPPORTED_PROTOCOL_VERSIONS, type McpBridge } from './mcp-bridge.js';

/** The header carrying the negotiated protocol version on every request after initialize. */
export const MCP_PROTOCOL_VERSION_HEADER: 'mcp-protocol-version' = 'mcp-protocol-version';

/** Options of {@link createMcpHttpHandler}. */
export interface McpHttpHandlerOptions {
  /** Optional edge authorization of every POST. */
  readonly authorize?: EdgeAuthorization | undefined;
  /** Largest accepted body in bytes (default 1 MiB). */
  readonly maxBodyBytes?: number | undefined;
}

function isNotification(message: unknown): boolean {
  return isJsonObject(message) && typeof message['method'] === 'string' && !('id' in message);
}

function isClientResponse(message: unknown): boolean {
  return isJsonObject(message) && !('method' in message) && ('result' in message || 'error' in message) && 'id' in message;
}

/**
 * A web-standard `(Request) => Promise<Response>` handler serving the MCP Streamable HTTP
 * endpoint on every path: POST answers a request with one `application/json` JSON-RPC response
 * (`ping` with an empty result, as MCP requires of every server) and a notification (or a
 * client's response) with 202; GET and DELETE get 405 (no server
 * stream, no sessions). A body that is not JSON, a batch array, or an unsupported
 * `MCP-Protocol-Version` header gets a 4xx before the bridge runs.
 */
export function createMcpHttpHandler(bridge: McpBridge, options: McpHttpHandlerOptions = {}): (request: Request) => Promise<Response> {
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  return async (request) => {
    try {
      if (request.method.toUpperCase() !== 'POST') return new Response(null, { status: 405, headers: { allow: 'POST' } });
      const version = request.headers.get(MCP_PROTOCOL_VERSION_HEADER);
      if (version !== null && !MCP_SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
        return rpcErrorResponse(400, null, PublicErrorMessage.InvalidRequest);
      }
      // Who is calling is settled from the headers before a byte of the body is read.
      const unauthenticated = await authenticateRequest(options.authorize, request);
      if (unauthenticated !== undefined) return unauthenticated;
      const body = await readJsonBody(request, maxBodyBytes);
      if (!body.ok) return body.response;
      const message = body.value;
      if (isClientResponse(message)) return new Response(null, { status: 202 });
      const parsed = parseRpcRequest(message);
      if (parsed === undefined) return rpcErrorResponse(400, requestIdOf(message), PublicErrorMessage.InvalidRequest);
      const denied = await authorizeRequest(options.authorize, request, parsed.method, parsed.id);
      if (denied !== undefined) return denied;
      if (isNotification(message)) return new Response(null, { status: 202 });
      // MCP requires every server to answer ping; handleRpc keeps seed 002's seven methods only.
      if (parsed.method === 'ping') return jsonResponse(200, rpcResult(parsed.id, {}));
      // A client that goes away (the request's signal) stops its tool call's wait.
      return jsonResponse(200, await bridge.handleRpc(message, { signal: request.signal }));
    } catch (error) {
      return jsonResponse(500, rpcError(null, publicErrorMessage(error)));
    }
  };
}
