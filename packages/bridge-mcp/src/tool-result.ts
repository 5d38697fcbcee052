import { decodeAgentErrorBody, type AgentEnvelope } from '@agdx/wire';

/** One content item of a tool result; TypeScript objects name the type in `kind`. */
export interface McpTextContent {
  /** Always `text`. */
  readonly kind: 'text';
  /** The reply body as UTF-8. */
  readonly text: string;
}

/** The result of a tool call as the bridge returns it. */
export interface McpToolResult {
  /** The reply body as one text item, or nothing for an empty body. */
  readonly content: readonly McpTextContent[];
  /** The reply body parsed as JSON, when the tool declares an output schema. */
  readonly structuredContent?: Record<string, unknown> | undefined;
  /** True when the worker answered with an AGDX error. */
  readonly isError?: true | undefined;
}

/** The MCP JSON of a tool result (`CallToolResult`), where content items name the type in `type`. */
export interface McpToolResultJson {
  /** Content blocks. */
  readonly content: readonly { readonly type: 'text'; readonly text: string }[];
  /** Structured result. */
  readonly structuredContent?: Record<string, unknown>;
  /** Tool error flag. */
  readonly isError?: true;
}

// ignoreBOM: the text item is the reply as sent, a leading U+FEFF included (the default drops it).
const lossy = new TextDecoder('utf-8', { ignoreBOM: true });

function structured(text: string): Record<string, unknown> | undefined {
  try {
    // JSON lets a parser ignore one leading byte order mark; JSON.parse refuses it, so skip it here.
    const value: unknown = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** An error reply's text: the message of its AgentErrorBody, or the body as UTF-8 when it is not one. */
function errorText(body: Uint8Array): string {
  try {
    return decodeAgentErrorBody(body).message ?? '';
  } catch {
    return lossy.decode(body);
  }
}

/**
 * The tool result a reply carries: its body as one text item (none for an empty body; an error's AgentErrorBody gives its message), and
 * `isError: true` for an AGDX error. With `withStructuredContent`, a successful body that is a
 * JSON object also becomes `structuredContent` (MCP requires it when a tool declares an output schema).
 */
export function toolResultFromEnvelope(envelope: AgentEnvelope, withStructuredContent: boolean = false): McpToolResult {
  const body = envelope.body ?? new Uint8Array(0);
  const isError = envelope.kind === 'error';
  const text = isError ? errorText(body) : lossy.decode(body);
  const content: McpTextContent[] = text.length > 0 ? [{ kind: 'text', text }] : [];
  const structuredContent = withStructuredContent && !isError ? structured(text) : undefined;
  return {
    content,
    ...(structuredContent !== undefined ? { structuredContent } : {}),
    ...(isError ? { isError: true as const } : {}),
  };
}

/** The MCP JSON of a tool result. */
export function toolResultToJson(result: McpToolResult): McpToolResultJson {
  return {
    content: result.content.map((item) => ({ type: item.kind, text: item.text })),
    ...(result.structuredContent !== undefined ? { structuredContent: result.structuredContent } : {}),
    ...(result.isError === true ? { isError: true as const } : {}),
  };
}

/** The text of a result refused for its structured content; the worker's body is not shown. */
export const OUTPUT_SCHEMA_MISMATCH: string = 'the tool result does not match the tool output schema';

/**
 * A successful result of a tool with an output schema, checked: its `structuredContent` must be
 * present (MCP requires it then) and match the schema. A result that fails becomes a tool error
 * (`isError: true`) without the structured content, so an MCP client, which checks the schema
 * itself and fails the whole call otherwise, still receives an answer. Error results and tools
 * without an output schema pass unchanged.
 */
export function checkedStructuredContent(result: McpToolResult, output: { check(value: unknown, what: string): void } | undefined): McpToolResult {
  if (output === undefined || result.isError === true) return result;
  try {
    if (result.structuredContent === undefined) throw new Error('no structured content');
    output.check(result.structuredContent, 'structuredContent');
    return result;
  } catch {
    return { content: [{ kind: 'text', text: OUTPUT_SCHEMA_MISMATCH }], isError: true };
  }
}
