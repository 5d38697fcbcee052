/**
 * zod schemas of the params of each MCP method the bridge serves: the untrusted JSON a client
 * sends. Unknown members pass (MCP adds `_meta` and new optional fields over time); the members
 * the bridge reads must have the right type.
 */
import { z } from 'zod';

/** `initialize` params: the version is optional here, since seed 002's handleRpc accepts none. */
export const InitializeParams = z.looseObject({ protocolVersion: z.string().optional() });

/** `tools/list`, `resources/list`, `resources/templates/list`, `prompts/list` params: an optional cursor. */
export const ListParams = z.looseObject({ cursor: z.string().optional() });

/** `tools/call` params: the tool's name and its arguments object. */
export const CallToolParams = z.looseObject({
  name: z.string().min(1),
  arguments: z.record(z.string(), z.unknown()).optional(),
});

/** `resources/read` params. */
export const ReadResourceParams = z.looseObject({ uri: z.string().min(1) });

/** `prompts/get` params: MCP prompt arguments are strings. */
export const GetPromptParams = z.looseObject({
  name: z.string().min(1),
  arguments: z.record(z.string(), z.string()).optional(),
});
