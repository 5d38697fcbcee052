/**
 * The params of each MCP method the bridge serves, checked with zod: the untrusted JSON a client
 * sends. Unknown members pass (MCP adds `_meta` and new optional fields over time); the members
 * the bridge reads must have the right type. Each reader throws an `InvalidError` naming the
 * first failing field (see `parseWith`).
 */
import { parseWith } from '@agdx/bridge-kit';
import { z } from 'zod';

const InitializeSchema = z.looseObject({ protocolVersion: z.string().optional() });
const ListSchema = z.looseObject({ cursor: z.string().optional() });
const CallToolSchema = z.looseObject({ name: z.string().min(1), arguments: z.record(z.string(), z.unknown()).optional() });
const ReadResourceSchema = z.looseObject({ uri: z.string().min(1) });
// MCP prompt arguments are strings.
const GetPromptSchema = z.looseObject({ name: z.string().min(1), arguments: z.record(z.string(), z.string()).optional() });

/** `initialize` params; the version is optional, since seed 002's handleRpc accepts none. @throws InvalidError */
export function readInitializeParams(params: unknown): { readonly protocolVersion?: string | undefined } {
  return parseWith(InitializeSchema, params, 'initialize params');
}

/** The params of a list method: an optional string `cursor`. @throws InvalidError */
export function checkListParams(params: unknown, method: string): void {
  parseWith(ListSchema, params, `${method} params`);
}

/** `tools/call` params: the tool's name and its arguments object. @throws InvalidError */
export function readCallToolParams(params: unknown): { readonly name: string; readonly arguments?: Record<string, unknown> | undefined } {
  return parseWith(CallToolSchema, params, 'tools/call params');
}

/** `resources/read` params. @throws InvalidError */
export function readResourceReadParams(params: unknown): { readonly uri: string } {
  return parseWith(ReadResourceSchema, params, 'resources/read params');
}

/** `prompts/get` params: the prompt's name and its string arguments. @throws InvalidError */
export function readGetPromptParams(params: unknown): { readonly name: string; readonly arguments?: Record<string, string> | undefined } {
  return parseWith(GetPromptSchema, params, 'prompts/get params');
}
