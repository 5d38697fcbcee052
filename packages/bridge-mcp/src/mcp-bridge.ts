import {
  LIFECYCLE_CONTENT_TYPE,
  PublishFailedError,
  SDK_VERSION,
  sessionEndEnvelope,
  SESSIONS_TOPIC,
  FrontedReplies,
  type AgdxClient,
  type AgentIdLike,
  type ReplySignerPolicy,
  tracedServe,
} from '@agdx/agents';
import {
  AgdxError,
  AgentErrorCode,
  AgentId,
  ContentType,
  ConversationId,
  CorrelationId,
  InvalidError,
  TaskState,
} from '@agdx/wire';
import { bridgeAgentId, bridgeHopsAfter, jsonBody, nonEmptyName, startChildSession } from '@agdx/bridge-kit';
import { compileSchema, type SchemaCheck } from './json-schema.js';
import { checkListParams, readCallToolParams, readGetPromptParams, readInitializeParams, readResourceReadParams } from './params.js';
import { renderPrompt } from './prompt-render.js';
import {
  MEMORY_TOOLS,
  promptToJson,
  toolToJson,
  type McpPrompt,
  type McpPromptResult,
  type McpReadResourceResult,
  type McpResource,
  type McpRole,
  type McpTool,
} from './catalog.js';
import { isJsonObject, parseRpcRequest, PublicErrorMessage, publicErrorMessage, rpcError, rpcErrorFor, rpcResult, rpcServeOutcome, safeRequestId, servedMethodName, type JsonRpcResponse } from '@agdx/bridge-kit';
import { checkedStructuredContent, toolResultFromEnvelope, toolResultToJson, type McpToolResult } from './tool-result.js';
import { runMemoryTool, type MemoryToolStore } from './memory-tools.js';

/** The protocol version the bridge answers when the client asks for none (or for one it does not speak). */
export const MCP_DEFAULT_PROTOCOL_VERSION: '2025-11-25' = '2025-11-25';
/** The MCP protocol versions the bridge speaks, newest first. */
export const MCP_SUPPORTED_PROTOCOL_VERSIONS: readonly string[] = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'];
/** Default tool call wait: 30 s. */
export const DEFAULT_TOOL_TIMEOUT_MS: number = 30_000;

/** The methods the bridge serves (seed 002's seven, and the empty template list MCP clients ask for); anything else gets an error response. */
export const McpMethod: {
  readonly Initialize: 'initialize';
  readonly ToolsList: 'tools/list';
  readonly ToolsCall: 'tools/call';
  readonly ResourcesList: 'resources/list';
  readonly ResourceTemplatesList: 'resources/templates/list';
  readonly ResourcesRead: 'resources/read';
  readonly PromptsList: 'prompts/list';
  readonly PromptsGet: 'prompts/get';
} = {
  Initialize: 'initialize',
  ToolsList: 'tools/list',
  ToolsCall: 'tools/call',
  ResourcesList: 'resources/list',
  ResourceTemplatesList: 'resources/templates/list',
  ResourcesRead: 'resources/read',
  PromptsList: 'prompts/list',
  PromptsGet: 'prompts/get',
};
/** One of the served methods. */
export type McpMethod = (typeof McpMethod)[keyof typeof McpMethod];
const MCP_METHODS: readonly string[] = Object.values(McpMethod);

/** The initialize result. */
export interface McpInitializeResult {
  /** The negotiated protocol version. */
  readonly protocolVersion: string;
  /** The server's name (the bridge's server name) and the SDK version. */
  readonly serverInfo: { readonly name: string; readonly version: string };
  /** `tools` always; `resources` and `prompts` when any are configured. */
  readonly capabilities: { readonly tools: Record<string, never>; readonly resources?: Record<string, never>; readonly prompts?: Record<string, never> };
}

/** Options of a tool call. */
export interface CallToolOptions {
  /** The agent that takes the call; without it every agent on the request topic receives it. */
  readonly target?: AgentIdLike | undefined;
  /** Aborting stops the wait (CancelledError). */
  readonly signal?: AbortSignal | undefined;
}

/** Options of {@link McpBridge.withTool}. */
export interface ToolOptions {
  /** Display title. */
  readonly title?: string | undefined;
  /** JSON Schema (an object) of the structured result. */
  readonly outputSchema?: Record<string, unknown> | undefined;
}

interface ToolEntry {
  readonly tool: McpTool;
  readonly input: SchemaCheck;
  readonly output: SchemaCheck | undefined;
}

interface CallPlan {
  readonly tool: ToolEntry;
  readonly body: Uint8Array;
  readonly target: AgentIdLike | undefined;
  readonly signal: AbortSignal | undefined;
  readonly ancestry?: { readonly parent: ConversationId; readonly root: ConversationId } | undefined;
}

// Arguments are JSON: the default decoder drops one leading byte order mark (which JSON lets a
// parser ignore), as bridge-kit's jsonBody did when it accepted them.
const utf8 = new TextDecoder('utf-8');

function childEndError(error: unknown): { code: number; message: string } {
  if (AgdxError.is(error, 'timeout')) return { code: AgentErrorCode.DeadlineExceeded, message: 'tool call timed out' };
  return { code: AgentErrorCode.Internal, message: 'tool call failed' };
}

/**
 * Serves AGDX agents to MCP clients as tools, with resources and prompts the bridge answers
 * itself. A tool call is an AGDX command on the request topic (`tool` = the tool name) whose
 * answer is the first correlated response or error on the reply topic.
 */
export class McpBridge {
  #client: AgdxClient;
  readonly #id: AgentId;
  readonly #requestTopic: string;
  readonly #replyTopic: string;
  readonly #serverName: string;
  readonly #tools: ToolEntry[] = [];
  readonly #resources: McpResource[] = [];
  readonly #prompts: { prompt: McpPrompt; messages: readonly (readonly [McpRole, string])[] }[] = [];
  #timeoutMs: number = DEFAULT_TOOL_TIMEOUT_MS;
  #hops: readonly string[];
  readonly #replies = new FrontedReplies();
  #onError: ((error: unknown) => void) | undefined;
  #memory: MemoryToolStore | undefined;

  /**
   * A bridge publishing as `id` on `requestTopic`, reading answers on `replyTopic`, and
   * introducing itself as `serverName`.
   * @throws InvalidError for an invalid id, topic or server name.
   */
  constructor(client: AgdxClient, id: AgentIdLike, requestTopic: string, replyTopic: string, serverName: string) {
    this.#client = client;
    this.#id = bridgeAgentId(id);
    this.#requestTopic = nonEmptyName(requestTopic, 'request topic');
    this.#replyTopic = nonEmptyName(replyTopic, 'reply topic');
    this.#serverName = nonEmptyName(serverName, 'server name');
    this.#hops = bridgeHopsAfter(this.#id);
  }

  /**
   * Points the bridge at another stream on the same connection (reply hubs stay shared). Use
   * separate credentials when log permissions must keep the streams apart.
   */
  withDefaultStream(stream: string): this {
    this.#client = this.#client.withDefaultStream(stream);
    return this;
  }

  /** The bridge's agent id. */
  get id(): AgentId {
    return this.#id;
  }

  /** The hop path stamped on the commands the bridge publishes. */
  get bridgeHops(): readonly string[] {
    return this.#hops;
  }

  /** The tool call wait in milliseconds. */
  get timeoutMs(): number {
    return this.#timeoutMs;
  }

  /**
   * Adds a tool. The input schema must be a JSON object (MCP also requires `type: "object"`
   * when a type is given). Every call's arguments are checked against it before anything is
   * published, and a structured result against the output schema before it is returned.
   * @throws InvalidError for a missing, non-object or uncompilable schema, a bad name or a duplicate.
   */
  withTool(name: string, description: string | undefined, inputSchema: unknown, options: ToolOptions = {}): this {
    nonEmptyName(name, 'tool name');
    if (!isJsonObject(inputSchema)) throw new InvalidError('MCP tool input schema must be a JSON object', { context: { field: 'inputSchema' } });
    if (inputSchema['type'] !== undefined && inputSchema['type'] !== 'object') {
      throw new InvalidError('MCP tool input schema must describe an object', { context: { field: 'inputSchema' } });
    }
    if (options.outputSchema !== undefined && !isJsonObject(options.outputSchema)) {
      throw new InvalidError('MCP tool output schema must be a JSON object', { context: { field: 'outputSchema' } });
    }
    if (description !== undefined && typeof description !== 'string') throw new InvalidError('tool description must be a string', { context: { field: 'description' } });
    this.#addTool({
      name,
      title: options.title,
      description,
      inputSchema: structuredClone(inputSchema),
      outputSchema: options.outputSchema !== undefined ? structuredClone(options.outputSchema) : undefined,
    });
    return this;
  }

  /**
   * Adds the `remember` and `recall` tools with their fixed schemas. Without `store`, a worker
   * handles them like any tool. With a `@agdx/sessions` memory handle as `store`, the bridge runs
   * them itself: `remember` stores the text, `recall` ranks the items by keyword (hybrid on a
   * vector memory handle) and answers `{items: [{id, text, score}]}`.
   */
  withMemoryTools(store?: MemoryToolStore): this {
    if (store !== undefined && (typeof store.remember !== 'function' || typeof store.recall !== 'function')) {
      throw new InvalidError('a memory tool store needs remember and recall', { context: { field: 'store' } });
    }
    for (const tool of MEMORY_TOOLS) this.#addTool(tool);
    this.#memory = store;
    return this;
  }

  /**
   * Adds a text resource the bridge serves itself.
   * @throws InvalidError for a bad or duplicate URI.
   */
  withResource(uri: string, name: string, mimeType: string | undefined, text: string): this {
    nonEmptyName(uri, 'resource uri');
    if (typeof name !== 'string' || typeof text !== 'string' || (mimeType !== undefined && typeof mimeType !== 'string')) {
      throw new InvalidError('resource name, media type and text must be strings', { context: { field: 'resource' } });
    }
    if (this.#resources.some((r) => r.uri === uri)) throw new InvalidError(`resource ${uri} is already configured`, { context: { field: 'uri' } });
    this.#resources.push({ uri, name, mimeType, text });
    return this;
  }

  /**
   * Adds a prompt with its messages as (role, text) pairs.
   * @throws InvalidError for a bad name, a duplicate or a role other than user/assistant.
   */
  withPrompt(prompt: McpPrompt, messages: readonly (readonly [McpRole, string])[] = []): this {
    if (!isJsonObject(prompt)) throw new InvalidError('a prompt must be an object', { context: { field: 'prompt' } });
    nonEmptyName(prompt.name, 'prompt name');
    if (!Array.isArray(messages)) throw new InvalidError('prompt messages must be an array of [role, text] pairs', { context: { field: 'messages' } });
    for (const message of messages) {
      const [role, text] = Array.isArray(message) ? (message as readonly unknown[]) : [];
      if ((role !== 'user' && role !== 'assistant') || typeof text !== 'string') {
        throw new InvalidError('a prompt message is a user or assistant role with a text', { context: { field: 'messages' } });
      }
    }
    if (this.#prompts.some((p) => p.prompt.name === prompt.name)) throw new InvalidError(`prompt ${prompt.name} is already configured`, { context: { field: 'name' } });
    this.#prompts.push({ prompt: structuredClone(prompt), messages: messages.map(([role, text]) => [role, text] as const) });
    return this;
  }

  /**
   * The agent this bridge fronts: tool calls without an explicit target are addressed to it, and
   * with a verifier on the client only replies signed by its key (and speaking as it) count.
   * @throws InvalidError for an invalid agent id.
   */
  forAgent(agent: AgentIdLike): this {
    this.#replies.front(agent);
    return this;
  }

  /** The agent this bridge fronts, when set. */
  get frontedAgent(): AgentId | undefined {
    return this.#replies.fronted;
  }

  /**
   * With a verifier on the client: whose signed replies answer a tool call, instead of the
   * call's target or the fronted agent. Without it, and without a target or
   * {@link McpBridge.forAgent}, a verified call fails (HandlerConfigError) rather than trust any
   * enrolled key.
   * @throws InvalidError for an empty list or an invalid agent id.
   */
  withReplySigners(policy: ReplySignerPolicy): this {
    this.#replies.trust(policy);
    return this;
  }

  /**
   * Told about failures the bridge survives without failing the call: a child session end (the
   * `callToolIn` lifecycle record) that could not be published. Errors thrown here are ignored.
   */
  onError(hook: (error: unknown) => void): this {
    if (typeof hook !== 'function') throw new InvalidError('onError must be a function', { context: { field: 'onError' } });
    this.#onError = hook;
    return this;
  }

  /**
   * How long a tool call waits for its reply (default 30 s).
   * @throws InvalidError unless finite and non-negative.
   */
  withTimeout(ms: number): this {
    if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0) throw new InvalidError('timeout must be a finite, non-negative number of milliseconds', { context: { field: 'timeoutMs' } });
    this.#timeoutMs = ms;
    return this;
  }

  /**
   * Continues a path that a call already took through other bridges.
   * @throws InvalidError when the path already holds this bridge (a loop); nothing is published.
   */
  withBridgeHops(previous: readonly string[]): this {
    this.#hops = bridgeHopsAfter(this.#id, previous);
    return this;
  }

  /**
   * The initialize result. The protocol version is the client's when the bridge speaks it, else
   * the newest the bridge speaks (the client then decides whether to go on).
   * @throws InvalidError for a non-string protocol version.
   */
  initialize(params: { readonly protocolVersion?: unknown } = {}): McpInitializeResult {
    const requested = readInitializeParams(params).protocolVersion;
    const protocolVersion = requested !== undefined && MCP_SUPPORTED_PROTOCOL_VERSIONS.includes(requested) ? requested : MCP_DEFAULT_PROTOCOL_VERSION;
    return {
      protocolVersion,
      serverInfo: { name: this.#serverName, version: SDK_VERSION },
      capabilities: {
        tools: {},
        ...(this.#resources.length > 0 ? { resources: {} } : {}),
        ...(this.#prompts.length > 0 ? { prompts: {} } : {}),
      },
    };
  }

  /** The configured tools, in the order they were added. */
  listTools(): readonly McpTool[] {
    return this.#tools.map((entry) => entry.tool);
  }

  /** The configured resources (without their text). */
  listResources(): readonly Omit<McpResource, 'text'>[] {
    return this.#resources.map(({ uri, name, mimeType }) => ({ uri, name, ...(mimeType !== undefined ? { mimeType } : {}) }));
  }

  /**
   * Reads a configured resource.
   * @throws InvalidError for an unknown URI.
   */
  readResource(uri: string): McpReadResourceResult {
    const resource = this.#resources.find((r) => r.uri === uri);
    if (resource === undefined) throw new InvalidError('unknown MCP resource', { context: { field: 'uri' } });
    return { contents: [{ uri: resource.uri, ...(resource.mimeType !== undefined ? { mimeType: resource.mimeType } : {}), text: resource.text }] };
  }

  /** The configured prompts. */
  listPrompts(): readonly McpPrompt[] {
    return this.#prompts.map((p) => p.prompt);
  }

  /**
   * A configured prompt's messages. With `args`, each `{name}` of a declared argument in a
   * message is replaced by its value (an optional argument left out becomes empty text), in one
   * pass, so a value is never itself expanded. Without `args` the messages come back as
   * configured (seed 002's answer, a template a client can show).
   * @throws InvalidError for an unknown name, a missing required argument or a non-string value.
   */
  getPrompt(name: string, args?: Readonly<Record<string, string>>): McpPromptResult {
    const entry = this.#prompts.find((p) => p.prompt.name === name);
    if (entry === undefined) throw new InvalidError('unknown MCP prompt', { context: { field: 'name' } });
    const render = args === undefined ? (text: string) => text : renderPrompt(entry.prompt, args);
    return {
      ...(entry.prompt.description !== undefined ? { description: entry.prompt.description } : {}),
      messages: entry.messages.map(([role, text]) => ({ role, content: { type: 'text' as const, text: render(text) } })),
    };
  }

  /**
   * Calls a tool: publishes a command carrying the arguments (a Uint8Array or JSON string rides
   * as it is, another value is encoded as JSON) and waits for the correlated reply. The arguments
   * must match the tool's input schema; nothing is published otherwise. An AGDX error reply is a
   * result with `isError: true`, and so is a structured result that does not match the output schema.
   * @throws InvalidError for an unknown tool, non-JSON arguments or arguments the schema refuses
   * (`context.field` names the member); TimeoutError; CancelledError; publish failures.
   */
  async callTool(name: string, args: unknown, options: CallToolOptions = {}): Promise<McpToolResult> {
    const tool = this.#tool(name);
    const body = this.#checkedArguments(tool, args);
    const local = this.#memoryTool(tool.tool, args, options.signal);
    if (local !== undefined) return local;
    return this.#call({ tool, body, target: options.target, signal: options.signal });
  }

  /** {@link callTool} addressed to one agent. */
  async callToolTo(target: AgentIdLike, name: string, args: unknown, options: Omit<CallToolOptions, 'target'> = {}): Promise<McpToolResult> {
    return this.callTool(name, args, { ...options, target });
  }

  /**
   * Runs the call as a child session of `parent` (tree rooted at `root`): a submitted start
   * first, then the command with the same ancestry, then the end the bridge writes itself:
   * Completed on a tool result, Failed on a tool error, a timeout or a transport error.
   */
  async callToolIn(parent: ConversationId, root: ConversationId, name: string, args: unknown, options: CallToolOptions = {}): Promise<McpToolResult> {
    const tool = this.#tool(name);
    return this.#call({ tool, body: this.#checkedArguments(tool, args), target: options.target, signal: options.signal, ancestry: { parent, root } });
  }

  /**
   * Serves one JSON-RPC request without HTTP: the {@link McpMethod}s only. Params are checked
   * with a zod schema per method. Every failure (including notifications, `ping`, other methods
   * and batch arrays) is a response with code -32000 and a fixed public message; a refused
   * field is named in the error's `data` (`{field, reason}`). It never throws. Aborting
   * `options.signal` (the HTTP handler passes the request's, so a client that goes away) stops a
   * tool call's wait at once, answered as cancelled (`internal error`), instead of holding it
   * until the tool timeout.
   */
  async handleRpc(request: unknown, options: { readonly signal?: AbortSignal | undefined } = {}): Promise<JsonRpcResponse> {
    let parsed: ReturnType<typeof parseRpcRequest>;
    try {
      parsed = parseRpcRequest(request);
    } catch {
      // A hostile object (a throwing getter or proxy) is a malformed request too.
      return rpcError(null, PublicErrorMessage.InvalidRequest);
    }
    if (parsed === undefined) return rpcError(safeRequestId(request), PublicErrorMessage.InvalidRequest);
    const call = parsed;
    const signal = options?.signal;
    // The method is the client's text: one the bridge does not serve is reported as `_OTHER`.
    const method = servedMethodName(call.method, MCP_METHODS);
    return tracedServe(this.#client.telemetry, () => ({ protocol: 'mcp', method, agent: this.#id }), () => this.#serve(call, signal), (answer) => rpcServeOutcome(answer));
  }

  // One parsed call; every failure becomes an error response.
  async #serve(parsed: NonNullable<ReturnType<typeof parseRpcRequest>>, signal: AbortSignal | undefined): Promise<JsonRpcResponse> {
    const { id, params } = parsed;
    try {
      switch (parsed.method) {
        case McpMethod.Initialize:
          return rpcResult(id, this.initialize(params));
        case McpMethod.ToolsList:
          checkListParams(params, McpMethod.ToolsList);
          return rpcResult(id, { tools: this.#tools.map((entry) => toolToJson(entry.tool)) });
        case McpMethod.ToolsCall: {
          const call = readCallToolParams(params);
          const tool = this.#tool(call.name);
          // The schema judges the arguments as they ride in the command body, not zod's copy of
          // them: that copy leaves out a `__proto__` member, which the body keeps. A call without
          // arguments is checked as `{}`, so a required member is refused here rather than left
          // for the worker to trip over.
          const args = params['arguments'] ?? {};
          tool.input.check(args, 'arguments');
          // The command body is the whole MCP params object (name, arguments, ...), as in the reference.
          const result = (await this.#memoryTool(tool.tool, args, signal)) ?? (await this.#call({ tool, body: jsonBody(params, 'tools/call params'), target: undefined, signal }));
          return rpcResult(id, toolResultToJson(result));
        }
        case McpMethod.ResourcesList:
          checkListParams(params, McpMethod.ResourcesList);
          return rpcResult(id, { resources: this.listResources() });
        case McpMethod.ResourceTemplatesList:
          checkListParams(params, McpMethod.ResourceTemplatesList);
          // The bridge serves fixed resources only; MCP clients (the Inspector) still ask.
          return rpcResult(id, { resourceTemplates: [] });
        case McpMethod.ResourcesRead:
          return rpcResult(id, this.readResource(readResourceReadParams(params).uri));
        case McpMethod.PromptsList:
          checkListParams(params, McpMethod.PromptsList);
          return rpcResult(id, { prompts: this.#prompts.map((p) => promptToJson(p.prompt)) });
        case McpMethod.PromptsGet: {
          const get = readGetPromptParams(params);
          return rpcResult(id, this.getPrompt(get.name, get.arguments));
        }
        default:
          return rpcError(id, PublicErrorMessage.UnsupportedOperation);
      }
    } catch (error) {
      return rpcErrorFor(id, error);
    }
  }

  #addTool(tool: McpTool): void {
    if (this.#tools.some((t) => t.tool.name === tool.name)) throw new InvalidError(`tool ${tool.name} is already configured`, { context: { field: 'name' } });
    const input = compileSchema(tool.inputSchema, 'inputSchema');
    const output = tool.outputSchema !== undefined ? compileSchema(tool.outputSchema, 'outputSchema') : undefined;
    this.#tools.push({ tool, input, output });
  }

  /** The memory tools run here when a store was given; undefined sends the call to a worker. */
  #memoryTool(tool: McpTool, args: unknown, signal: AbortSignal | undefined): Promise<McpToolResult> | undefined {
    if (this.#memory === undefined || (tool.name !== 'remember' && tool.name !== 'recall')) return undefined;
    return runMemoryTool(this.#memory, tool.name, args, signal);
  }

  #tool(name: unknown): ToolEntry {
    const tool = typeof name === 'string' ? this.#tools.find((t) => t.tool.name === name) : undefined;
    if (tool === undefined) throw new InvalidError('unknown MCP tool', { context: { field: 'name' } });
    return tool;
  }

  /** The JSON body of programmatic arguments, refused unless they match the input schema. */
  #checkedArguments(tool: ToolEntry, args: unknown): Uint8Array {
    const body = jsonBody(args, 'tool arguments');
    // jsonBody proved the bytes are UTF-8 JSON; the schema judges the value they carry.
    tool.input.check(JSON.parse(utf8.decode(body)), 'arguments');
    return body;
  }

  async #call(plan: CallPlan): Promise<McpToolResult> {
    const conversation = ConversationId.new();
    const ancestry = plan.ancestry;
    const target = this.#replies.targetOf(plan.target);
    // Checked before anything is published: a verifying bridge must know whom it trusts.
    const expectFrom = this.#replies.policyFor(target, this.#client.verifier !== undefined);
    if (ancestry !== undefined) {
      await startChildSession(this.#client, conversation, this.#id, ancestry, plan.signal);
    }
    const builder = this.#client
      .agdx(this.#requestTopic, this.#id, conversation)
      .command(CorrelationId.fromBytes(conversation.toBytes()), plan.body)
      .withTool(plan.tool.tool.name)
      .contentType(ContentType.json)
      .withBridgeHops(this.#hops);
    if (target !== undefined) builder.withTarget(target);
    if (ancestry !== undefined) builder.withParent(ancestry.parent, ancestry.root);
    let result: McpToolResult;
    try {
      const reply = await this.#client.request(builder, { replyTopic: this.#replyTopic, timeoutMs: this.#timeoutMs, signal: plan.signal, expectFrom });
      if (reply.envelope === undefined) throw new InvalidError('the tool reply is not an AGDX envelope');
      result = checkedStructuredContent(toolResultFromEnvelope(reply.envelope, plan.tool.output !== undefined), plan.tool.output);
    } catch (error) {
      if (ancestry !== undefined) await this.#endChild(conversation, TaskState.Failed, childEndError(error));
      throw error;
    }
    if (ancestry !== undefined) {
      await this.#endChild(conversation, result.isError === true ? TaskState.Failed : TaskState.Completed, result.isError === true ? { code: AgentErrorCode.ToolFailure, message: 'tool error' } : undefined);
    }
    return result;
  }

  async #endChild(conversation: ConversationId, state: number, error: { code: number; message: string } | undefined): Promise<void> {
    const end = sessionEndEnvelope(conversation, this.#id, state, error !== undefined ? { error } : {});
    try {
      await this.#client.publish(SESSIONS_TOPIC, end, LIFECYCLE_CONTENT_TYPE);
    } catch (error) {
      // The call's own outcome is what the caller needs; a lost end leaves the child open, as a
      // crash would, and the owner hears of it.
      try {
        this.#onError?.(
          new PublishFailedError('the child session end could not be published; the child session stays open', {
            cause: error,
            context: { session: conversation.toString(), state },
          }),
        );
      } catch {
        // An observer's failure must not change the call's outcome.
      }
    }
  }
}
