/**
 * Expose AGDX agents to MCP clients: tools, resources and prompts over JSON-RPC and Streamable HTTP.
 * @module
 */
import { BRIDGE_APP_ERROR_CODE } from '@agdx/bridge-kit';
export {
  DEFAULT_TOOL_TIMEOUT_MS,
  MCP_DEFAULT_PROTOCOL_VERSION,
  MCP_SUPPORTED_PROTOCOL_VERSIONS,
  McpBridge,
  McpMethod,
} from './mcp-bridge.js';
export type { CallToolOptions, McpInitializeResult, ToolOptions } from './mcp-bridge.js';
export { MEMORY_TOOLS, promptToJson, toolToJson } from './catalog.js';
export { MEMORY_RECALL_DEFAULT_LIMIT, MEMORY_RECALL_MAX_LIMIT, MEMORY_REMEMBER_MAX_TEXT, runMemoryTool } from './memory-tools.js';
export type { MemoryRecallLike, MemoryToolStore, RecalledMemoryItem } from './memory-tools.js';
export type {
  McpPrompt,
  McpPromptArgument,
  McpPromptResult,
  McpReadResourceResult,
  McpResource,
  McpRole,
  McpTool,
} from './catalog.js';
export { checkedStructuredContent, OUTPUT_SCHEMA_MISMATCH, toolResultFromEnvelope, toolResultToJson } from './tool-result.js';
export { checkListParams, readCallToolParams, readGetPromptParams, readInitializeParams, readResourceReadParams } from './params.js';
export type { SchemaCheck } from './json-schema.js';
export { MAX_NESTING_DEPTH, MAX_UNIQUE_ITEMS_PAIRS } from './validation-cost.js';
export type { McpTextContent, McpToolResult, McpToolResultJson } from './tool-result.js';
export { PublicErrorMessage, publicErrorMessage } from '@agdx/bridge-kit';
/** The JSON-RPC error code of every failed bridge call (application error, -32000). */
export const MCP_APP_ERROR_CODE: -32000 = BRIDGE_APP_ERROR_CODE;
export type { JsonRpcErrorObject, JsonRpcId, JsonRpcResponse } from '@agdx/bridge-kit';
export { createMcpHttpHandler, MCP_PROTOCOL_VERSION_HEADER } from './http-handler.js';
export type { McpHttpHandlerOptions } from './http-handler.js';
export { DEFAULT_MAX_BODY_BYTES } from '@agdx/bridge-kit';
export type { EdgeAuthorization } from '@agdx/bridge-kit';
