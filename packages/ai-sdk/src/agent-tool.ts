import { agentMessageBody, AgentTopic, RejectedError, replyTopicFor, resolveAgentMessageBody, type AgdxClient, type AgentIdLike, type AgentMessage, type ReplySignerPolicy, type Verifier } from '@agdx/agents';
import { AgentId, CodecError, ContentType, ConversationId, CorrelationId, decodeAgentErrorBody, InvalidError, MAX_METADATA_VALUE_BYTES, MintUlid, utf8Length } from '@agdx/wire';
import { jsonSchema, tool, type FlexibleSchema, type JSONSchema7, type Tool, type ToolExecutionOptions } from 'ai';
import { jsonText } from './json-text.js';
import { utf8Pieces } from './utf8-pieces.js';

/** What {@link agentTool} needs to turn an AGDX agent into an AI SDK tool. */
export interface AgentToolOptions {
  /** The agent that does the work: every call is a command addressed to it (`agdx.to`). */
  readonly agent: AgentIdLike;
  /** The topic the agent listens on (default `agent.sessions`). */
  readonly topic?: string | undefined;
  /** Who calls: the commands' `source` and the requester replies are addressed to. */
  readonly source: AgentIdLike;
  /** The tool's input: an AI SDK schema (zod, `jsonSchema(...)`, Standard Schema) or a plain JSON Schema object. */
  readonly inputSchema: FlexibleSchema<unknown> | JSONSchema7;
  /** What the tool does, for the model. */
  readonly description?: string | undefined;
  /** The command's operation (the work the agent serves); none by default. */
  readonly operation?: string | undefined;
  /** The session each call belongs to; a fresh conversation per call by default. */
  readonly conversation?: ConversationId | undefined;
  /** Where the reply is awaited (default: the request topic, through the client's layout). */
  readonly replyTopic?: string | undefined;
  /** How long a call waits for the agent's reply, in milliseconds (required: a tool must not hang a model step). */
  readonly timeoutMs: number;
  /** Overrides the client's verifier for the replies (`null` turns verification off). */
  readonly verifier?: Verifier | null | undefined;
  /** With a verifier: who may answer (default: the agent). */
  readonly expectFrom?: ReplySignerPolicy | undefined;
}

const encoder = new TextEncoder();
// Text replies are given back as sent, a leading U+FEFF included (the default decoder drops it).
const lossy = new TextDecoder('utf-8', { ignoreBOM: true });
// JSON replies: the default decoder drops one leading byte order mark, which JSON lets a parser
// ignore, so a reply written with one is still parsed.
const jsonReplyText = new TextDecoder('utf-8');

// A plain JSON Schema has none of the markers an AI SDK schema carries (a Standard Schema's
// `~standard`, a zod definition, the `validate` of jsonSchema(...)).
function toFlexibleSchema(schema: FlexibleSchema<unknown> | JSONSchema7): FlexibleSchema<unknown> {
  if (typeof schema === 'function') return schema as FlexibleSchema<unknown>;
  if (typeof schema !== 'object' || schema === null) throw new InvalidError('inputSchema must be an AI SDK schema or a JSON Schema object', { context: { field: 'inputSchema' } });
  const marked = schema as Record<string | symbol, unknown>;
  if ('~standard' in marked || '_def' in marked || '_zod' in marked || typeof marked['validate'] === 'function' || 'jsonSchema' in marked) return schema as FlexibleSchema<unknown>;
  return jsonSchema(schema as JSONSchema7);
}

function text(value: unknown, field: string, required: boolean): string | undefined {
  if (value === undefined && !required) return undefined;
  if (typeof value !== 'string' || value.length === 0) throw new InvalidError(`${field} must be a non-empty string`, { context: { field } });
  return value;
}

function checkOptions(options: AgentToolOptions): { agent: AgentId; source: AgentId; topic: string } {
  if (typeof options !== 'object' || options === null) throw new InvalidError('agentTool needs options', { context: { field: 'options' } });
  const agent = typeof options.agent === 'string' ? AgentId.new(options.agent) : options.agent;
  const source = typeof options.source === 'string' ? AgentId.new(options.source) : options.source;
  if (!(agent instanceof AgentId)) throw new InvalidError('agent must be an agent id', { context: { field: 'agent' } });
  if (!(source instanceof AgentId)) throw new InvalidError('source must be an agent id', { context: { field: 'source' } });
  const { timeoutMs } = options;
  if (typeof timeoutMs !== 'number' || !Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    throw new InvalidError('timeoutMs must be a positive, finite number of milliseconds', { context: { field: 'timeoutMs' } });
  }
  if (options.conversation !== undefined && !(options.conversation instanceof ConversationId)) {
    throw new InvalidError('conversation must be a ConversationId', { context: { field: 'conversation' } });
  }
  text(options.operation, 'operation', false);
  text(options.description, 'description', false);
  text(options.replyTopic, 'replyTopic', false);
  return { agent, source, topic: text(options.topic ?? AgentTopic.Sessions, 'topic', true)! };
}

/**
 * The most of an agent's error message that a tool error carries, in UTF-8 bytes. The AI SDK hands
 * the message to the model, and an agent's message can be as long as its record: a longer one is
 * cut between code points and says how many bytes were left out.
 */
export const MAX_TOOL_ERROR_MESSAGE_BYTES = 2048;

/** `message` within {@link MAX_TOOL_ERROR_MESSAGE_BYTES}, and its whole length in UTF-8 bytes. */
function boundedMessage(message: string): { message: string; messageBytes: number } {
  const messageBytes = utf8Length(message);
  if (messageBytes <= MAX_TOOL_ERROR_MESSAGE_BYTES) return { message, messageBytes };
  const kept = utf8Pieces(message, MAX_TOOL_ERROR_MESSAGE_BYTES)[0] as Uint8Array;
  return { message: `${lossy.decode(kept)}… (${messageBytes - kept.length} more bytes)`, messageBytes };
}

/**
 * The tool result of an agent's reply: a JSON body parsed, any other body as UTF-8 text.
 * @throws RejectedError when the agent answered with an error (the AI SDK reports it to the model
 * as a tool error); CodecError when a JSON reply is not JSON.
 */
async function replyOutput(client: AgdxClient, reply: AgentMessage, agent: AgentId): Promise<unknown> {
  if (reply.envelope?.kind === 'error') {
    let message = 'the agent answered with an error';
    let context: Record<string, unknown> = { agent: agent.asStr() };
    try {
      const body = decodeAgentErrorBody(reply.envelope.body);
      message = body.message ?? message;
      context = { ...context, code: body.code, retryable: body.retryable };
    } catch {
      message = lossy.decode(reply.envelope.body) || message;
    }
    const bounded = boundedMessage(message);
    throw new RejectedError(bounded.message, { context: { ...context, messageBytes: bounded.messageBytes } });
  }
  const store = client.blobStore;
  const body = store === undefined ? agentMessageBody(reply) : await resolveAgentMessageBody(reply, store);
  if (reply.contentType !== ContentType.json) return lossy.decode(body);
  try {
    return JSON.parse(jsonReplyText.decode(body)) as unknown;
  } catch (error) {
    throw new CodecError(`the reply of ${agent.asStr()} is not JSON`, { cause: error, context: { agent: agent.asStr() } });
  }
}

/**
 * An AI SDK tool backed by an AGDX agent. Its `execute` sends the input as a JSON command to the
 * agent (a fresh correlation per call, `gen_ai.tool.call.id` naming the model's call) and awaits
 * the correlated reply with `client.request`, with its timeout, verifier and `expectFrom`; the
 * AI SDK's abort signal cancels the wait. The reply becomes the tool's output.
 * @throws InvalidError at once for bad options. A call rejects with TimeoutError, CancelledError,
 * RejectedError (an error reply) or CodecError (a reply that is not the JSON it claims to be),
 * which the AI SDK hands to the model as a tool error.
 */
export function agentTool(client: AgdxClient, options: AgentToolOptions): Tool<unknown, unknown> {
  const { agent, source, topic } = checkOptions(options);
  const inputSchema = toFlexibleSchema(options.inputSchema);
  const replyTopic = replyTopicFor(client.layout, options.replyTopic ?? topic, source.asStr());
  const execute = async (input: unknown, execution: ToolExecutionOptions<Record<string, unknown>>): Promise<unknown> => {
    const conversation = options.conversation ?? ConversationId.new();
    const builder = client
      .agdx(topic, source, conversation)
      .command(MintUlid.mint(CorrelationId), encoder.encode(jsonText(input)))
      .contentType(ContentType.json)
      .withTarget(agent);
    // The id is the model's: one longer than a metadata value can hold is left out, not a failed call.
    const callId = execution?.toolCallId;
    if (typeof callId === 'string' && callId.length > 0 && utf8Length(callId) <= MAX_METADATA_VALUE_BYTES) builder.withMetadata('gen_ai.tool.call.id', callId);
    if (options.operation !== undefined) builder.withOperation(options.operation);
    const reply = await client.request(builder, {
      replyTopic,
      timeoutMs: options.timeoutMs,
      signal: execution?.abortSignal,
      verifier: options.verifier,
      expectFrom: options.expectFrom,
    });
    return replyOutput(client, reply, agent);
  };
  return tool<unknown, unknown, Record<string, unknown>>({ description: options.description, inputSchema, execute });
}
