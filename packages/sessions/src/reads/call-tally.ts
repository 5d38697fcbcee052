import { readBridgeHops, type AgentEnvelope } from '@agdx/wire';

const MODEL_STREAM_PURPOSES: ReadonlySet<string> = new Set(['chat', 'reasoning']);
const TOOL_STREAM_PURPOSE = 'tool_args';

/** The records that say a model or a tool was called, one identity per call. */
function callIdentity(envelope: AgentEnvelope, fallback: string): string {
  // One call often shows up several times: a reasoning stream and a chat stream answer the same
  // request under its correlation, and a tool's argument stream shares the correlation its
  // result answers. Keying by correlation counts each call once however many records carry it.
  return envelope.correlation?.toString() ?? envelope.channel?.toString() ?? envelope.record?.toString() ?? fallback;
}

/**
 * Counts the model calls and tool calls of one session from the envelopes that carry them, and
 * notes the bridge a conversation came through.
 *
 * A model call shows as a model request or response (display `model.request`, `model.response`)
 * or the opening chunk of a `chat` or `reasoning` stream; a tool call as an `execute_tool`
 * command or its result (display `tool.call`, `tool.result`) or the opening chunk of a
 * `tool_args` stream. Records of one call share its correlation (or, without one, its channel),
 * and each identity counts once, so a request and its response are one call, and a response
 * whose request is not on the scanned topics still counts.
 */
export class CallTally {
  readonly #model = new Set<string>();
  readonly #tool = new Set<string>();
  /** The purpose each chunk stream opened with, by channel: later chunks do not repeat it. */
  readonly #purposes = new Map<string, string>();
  #bridge: string | undefined;
  #seen = false;

  /** Observes one envelope of the session; `display` is its timeline display type. */
  observe(envelope: AgentEnvelope, display: string, position: string): void {
    if (!this.#seen) {
      this.#seen = true;
      // The first record says who opened the conversation: a bridge stamps its hop on every
      // request it forwards, so a conversation a bridge opened is a bridge call.
      this.#bridge = readBridgeHops(envelope.metadata)[0];
    }
    const opening = envelope.kind === 'chunk' && (envelope.sequence ?? 0n) === 0n ? envelope.operation : undefined;
    if (opening !== undefined && envelope.channel !== undefined) this.#purposes.set(envelope.channel.toString(), opening);
    if (display === 'model.request' || display === 'model.response' || (opening !== undefined && MODEL_STREAM_PURPOSES.has(opening))) {
      this.#model.add(callIdentity(envelope, position));
    } else if (display === 'tool.call' || display === 'tool.result' || opening === TOOL_STREAM_PURPOSE) {
      this.#tool.add(callIdentity(envelope, position));
    }
  }

  /**
   * The purpose of a chunk's stream: its own operation on the opening chunk, else the purpose its
   * channel opened with (observed earlier), else undefined.
   */
  purposeOf(envelope: AgentEnvelope): string | undefined {
    if (envelope.kind !== 'chunk') return undefined;
    return envelope.operation ?? (envelope.channel !== undefined ? this.#purposes.get(envelope.channel.toString()) : undefined);
  }

  /**
   * The display type of a record whose envelope display is `display`: a later chunk of a `chat`
   * or `reasoning` stream shows as `model.stream` like the chunk that opened it.
   */
  displayOf(envelope: AgentEnvelope, display: string): string {
    const purpose = this.purposeOf(envelope);
    return purpose !== undefined && MODEL_STREAM_PURPOSES.has(purpose) ? 'model.stream' : display;
  }

  /** Distinct model calls seen. */
  get modelCalls(): bigint {
    return BigInt(this.#model.size);
  }

  /** Distinct tool calls seen. */
  get toolCalls(): bigint {
    return BigInt(this.#tool.size);
  }

  /** The first bridge named by the conversation's first envelope, if a bridge opened it. */
  get bridge(): string | undefined {
    return this.#bridge;
  }
}
