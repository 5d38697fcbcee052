/**
 * Expose AGDX agents to MCP clients: tools, resources and prompts over JSON-RPC and Streamable HTTP.
 * @module
 */
export {
  DEFAULT_TOOL_TIMEOUT_MS,
  MCP_DEFAULT_PROTOCOL_VERSION,
  MCP_SUPPORTED_PROTOCOL_VERSIONS,
  McpBridge,
  McpMethod,
} from './mcp-bridge.js';
export type { CallToolOptions, McpInitializeResult, ToolOptions } from './mcp-bridge.js';
export { MEMORY_TOOLS, promptToJson, toolToJson } from './catalog.js';
export type {
  McpPrompt,
  McpPromptArgument,
  McpPromptResult,
  McpReadResourceResult,
  McpResource,
  McpRole,
  McpTool,
} from './catalog.js';
export { toolResultFromEnvelope, toolResultToJson } from './tool-result.js';
export type { McpTextContent, McpToolResult, McpToolResultJson } from './tool-result.js';
export { MCP_APP_ERROR_CODE, PublicErrorMessage, publicErrorMessage } from './json-rpc.js';
export type { JsonRpcErrorObject, JsonRpcId, JsonRpcResponse } from './json-rpc.js';
export { createMcpHttpHandler, MCP_PROTOCOL_VERSION_HEADER } from './http-handler.js';
export type { McpHttpHandlerOptions } from './http-handler.js';
export { DEFAULT_MAX_BODY_BYTES } from './http-common.js';
export type { EdgeAuthorization } from './http-common.js';
