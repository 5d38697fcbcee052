/** A tool the bridge lists. */
export interface McpTool {
  /** Tool name (what tools/call names and the AGDX command's `tool` field carries). */
  readonly name: string;
  /** Display title. */
  readonly title?: string | undefined;
  /** Description. */
  readonly description?: string | undefined;
  /** JSON Schema of the arguments (an object schema). */
  readonly inputSchema: Record<string, unknown>;
  /** JSON Schema of the structured result; with it, results carry `structuredContent`. */
  readonly outputSchema?: Record<string, unknown> | undefined;
}

/** A text resource the bridge serves itself. */
export interface McpResource {
  /** Resource URI. */
  readonly uri: string;
  /** Name. */
  readonly name: string;
  /** Media type. */
  readonly mimeType?: string | undefined;
  /** Contents. */
  readonly text: string;
}

/** A prompt argument. */
export interface McpPromptArgument {
  /** Name. */
  readonly name: string;
  /** Description. */
  readonly description?: string | undefined;
  /** Whether it must be given. */
  readonly required?: boolean | undefined;
}

/** A prompt as prompts/list shows it. */
export interface McpPrompt {
  /** Name. */
  readonly name: string;
  /** Description. */
  readonly description?: string | undefined;
  /** Arguments. */
  readonly arguments?: readonly McpPromptArgument[] | undefined;
}

/** A prompt message role. */
export type McpRole = 'user' | 'assistant';

/** A prompts/get result. */
export interface McpPromptResult {
  /** The prompt's description. */
  readonly description?: string | undefined;
  /** The messages, as text content. */
  readonly messages: readonly { readonly role: McpRole; readonly content: { readonly type: 'text'; readonly text: string } }[];
}

/** A resources/read result. */
export interface McpReadResourceResult {
  /** The one text item of the resource. */
  readonly contents: readonly { readonly uri: string; readonly mimeType?: string; readonly text: string }[];
}

/** The memory tools' fixed definitions (seed 002 `withMemoryTools`). */
export const MEMORY_TOOLS: readonly McpTool[] = [
  {
    name: 'remember',
    description: 'Store a memory item for later recall.',
    inputSchema: {
      type: 'object',
      properties: { text: { type: 'string', description: 'The content to remember.' } },
      required: ['text'],
    },
  },
  {
    name: 'recall',
    description: 'Retrieve the memory items most relevant to a query.',
    inputSchema: {
      type: 'object',
      properties: {
        query: { type: 'string', description: 'What to recall.' },
        limit: { type: 'integer', minimum: 1, description: 'Max items to return.' },
      },
      required: ['query'],
    },
  },
];

/** The tools/list JSON of a tool (undefined members left out). */
export function toolToJson(tool: McpTool): Record<string, unknown> {
  return {
    name: tool.name,
    ...(tool.title !== undefined ? { title: tool.title } : {}),
    ...(tool.description !== undefined ? { description: tool.description } : {}),
    inputSchema: tool.inputSchema,
    ...(tool.outputSchema !== undefined ? { outputSchema: tool.outputSchema } : {}),
  };
}

/** The prompts/list JSON of a prompt (undefined members left out). */
export function promptToJson(prompt: McpPrompt): Record<string, unknown> {
  return {
    name: prompt.name,
    ...(prompt.description !== undefined ? { description: prompt.description } : {}),
    ...(prompt.arguments !== undefined
      ? {
          arguments: prompt.arguments.map((a) => ({
            name: a.name,
            ...(a.description !== undefined ? { description: a.description } : {}),
            ...(a.required !== undefined ? { required: a.required } : {}),
          })),
        }
      : {}),
  };
}
