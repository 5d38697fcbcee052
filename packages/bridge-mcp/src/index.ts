/**
 * Expose AGDX agents to MCP clients: tools, resources and prompts over JSON-RPC and Streamable HTTP.
 * @module
 */
export const PLACEHOLDER: true = true;
