/**
 * The AG-UI surface of a client: shared state writes, the folded state, a conversation's
 * AG-UI events and the live endpoint (seed 002, AG-UI).
 */

import { AgentTopic, type AgdxClient, type MessagePosition } from '@agdx/agents';
import { layoutFingerprint, sessions, type Sessions } from '@agdx/sessions';
import { AgentId, ConversationId, InvalidError, isJsonObject, parseJsonPatch, type JsonValue, type SkippedRecordHandler } from '@agdx/wire';
import { locateConversationEverywhere } from './conversation-log.js';
import { ReplayCache, type AguiSnapshotWritten, type ReplayContext } from './conversation-replay.js';
import type { AguiEvent } from './events.js';
import { buildAguiHandler, checkSnapshotEvery, type AguiHandlerOptions, type AguiRequestHandler } from './live-handler.js';

/** Settings of an {@link AguiBridge}. */
export interface AguiBridgeOptions {
  /** The stream (default: the client's default stream). */
  readonly stream?: string | undefined;
  /**
   * Receives each record a read skipped (in {@link AguiBridge.aguiEvents}, the live handler unless
   * it has its own, and the state fold), as a `CodecError` naming its stream, topic, partition and
   * offset. Reads go on past it.
   */
  readonly onError?: SkippedRecordHandler | undefined;
  /**
   * Whether a conversation not yet read by this bridge starts from its newest AG-UI fold snapshot
   * (on `agui.snapshots`) instead of offset 0 (default true). A snapshot that fails a check is
   * reported to `onError` and the log is read from the start.
   */
  readonly snapshots?: boolean | undefined;
  /** Write a conversation's fold snapshot after a read that folded at least this many of its records since the last (default: only when {@link AguiBridge.snapshot} is called). */
  readonly snapshotEvery?: number | undefined;
}

/** Call options. */
export interface AguiCallOptions {
  /** Cancels the call. */
  readonly signal?: AbortSignal | undefined;
}

/** An agent id as text or as a wire {@link AgentId}. */
export type AguiSource = AgentId | string;

function checkConversation(conversation: unknown): ConversationId {
  if (!(conversation instanceof ConversationId)) throw new InvalidError('expected a ConversationId', { context: { field: 'conversation' } });
  return conversation;
}

/**
 * AG-UI for frontends over an {@link AgdxClient} (seed 002 writes these as `laser.*` methods).
 * State goes through the session lane of `agent.sessions`, exactly as `@agdx/sessions` writes
 * and folds it, so every reader sees one state model.
 */
export class AguiBridge {
  readonly #client: AgdxClient;
  readonly #stream: string | undefined;
  readonly #sessions: Sessions;
  readonly #onError: SkippedRecordHandler | undefined;
  readonly #snapshots: boolean;
  readonly #snapshotEvery: number | undefined;
  /** Kept replays of {@link aguiEvents} and of the live handler (when it reports to the same `onError`). */
  readonly #replays = new ReplayCache();

  /** @param client the client whose log holds the conversations */
  constructor(client: AgdxClient, options: AguiBridgeOptions = {}) {
    this.#client = client;
    this.#stream = options.stream;
    this.#onError = options.onError;
    checkSnapshotEvery(options.snapshotEvery);
    this.#snapshots = options.snapshots !== false;
    this.#snapshotEvery = options.snapshotEvery;
    this.#sessions = sessions(options.stream !== undefined ? client.withDefaultStream(options.stream) : client, undefined, { onError: options.onError });
  }

  #streamName(): string {
    const stream = this.#stream ?? this.#client.defaultStream;
    if (stream === undefined) throw new InvalidError('no stream: pass `stream` or give the client a default stream', { context: { field: 'stream' } });
    return stream;
  }

  /**
   * Writes a state snapshot of the conversation: the same record `session.lifecycle.snapshot`
   * writes (an event `state_snapshot` with a CBOR StateSnapshot against the lane's revision).
   * @throws InvalidError when `object` is not a JSON object or breaks the state limits.
   */
  async publishStateSnapshot(source: AguiSource, conversation: ConversationId, object: JsonValue, options: AguiCallOptions = {}): Promise<MessagePosition> {
    const session = this.#sessions.open(checkConversation(conversation));
    if (!isJsonObject(object)) throw new InvalidError('a state snapshot must be a JSON object', { context: { field: 'object' } });
    return session.lifecycle.snapshot(object, { agent: source, ...(options.signal !== undefined ? { signal: options.signal } : {}) });
  }

  /**
   * Writes an RFC 6902 state delta of the conversation: the same record
   * `session.lifecycle.patch` writes (an event `state_delta` with a fresh op id).
   * @throws InvalidError when `patch` is not a JSON Patch array (at most 256 operations).
   */
  async publishStateDelta(source: AguiSource, conversation: ConversationId, patch: unknown, options: AguiCallOptions = {}): Promise<MessagePosition> {
    const session = this.#sessions.open(checkConversation(conversation));
    if (!Array.isArray(patch)) throw new InvalidError('an AG-UI state delta must be a JSON Patch array', { context: { field: 'patch' } });
    const operations = parseJsonPatch(patch);
    return session.lifecycle.patch(operations, { agent: source, ...(options.signal !== undefined ? { signal: options.signal } : {}) });
  }

  /**
   * The conversation's shared state document, folded from `agent.sessions` (a plain log has no
   * managed state view); `undefined` until a state record applied.
   */
  async reconstructState(conversation: ConversationId, options: AguiCallOptions = {}): Promise<JsonValue | undefined> {
    const view = await this.#sessions.reads.state(checkConversation(conversation), 0, options.signal);
    return view.document;
  }

  /**
   * The conversation's AG-UI events on `topic` (default `agent.sessions`), from its start to the
   * log's end at the time of the call (see {@link AguiConverter} for the mapping). Every place the
   * client's stream layout puts the conversation's records is read (with a topic or a partition
   * per agent, that includes the declared agents' topics or partitions), merged in broker-time
   * order. Records it cannot use are skipped and reported to the bridge's `onError`.
   *
   * Incremental: the bridge keeps each conversation's read positions, converter and events (the
   * 256 most recently asked), so a repeated call reads only new records and returns
   * a copy of the whole list; it starts over from 0 when the addresses or a topic's generation
   * change. A skipped record is reported once per kept replay, not once per call.
   * @throws LayoutMismatchError when the log lacks a topic or partition the layout declares, or
   * holds a record for a declared agent where only another layout writes it (the conversation's
   * own partition while this layout moves it to the agent's topic or partition).
   */
  async aguiEvents(conversation: ConversationId, topic: string = AgentTopic.Sessions, options: AguiCallOptions = {}): Promise<AguiEvent[]> {
    const id = checkConversation(conversation);
    const transport = this.#client.transport;
    const stream = this.#streamName();
    const addresses = await locateConversationEverywhere(transport, this.#client.layout, stream, topic, id, options.signal);
    return this.#replays.get(stream, topic, id).events(this.#context(stream), addresses, options.signal);
  }

  /**
   * Reads what is new of the conversation on `topic` and writes a fold snapshot of its AG-UI
   * replay to `agui.snapshots` (created with one partition when missing), so a new process
   * starts there instead of offset 0. See the README's "Fold snapshots".
   * @throws CodecError when the snapshot would exceed 16 MiB; LayoutMismatchError as `aguiEvents`.
   */
  async snapshot(conversation: ConversationId, topic: string = AgentTopic.Sessions, options: AguiCallOptions = {}): Promise<AguiSnapshotWritten> {
    const id = checkConversation(conversation);
    const stream = this.#streamName();
    const addresses = await locateConversationEverywhere(this.#client.transport, this.#client.layout, stream, topic, id, options.signal);
    return this.#replays.get(stream, topic, id).snapshot(this.#context(stream), addresses, options.signal);
  }

  #context(stream: string): ReplayContext {
    const layout = this.#client.layout;
    return { transport: this.#client.transport, layout, onError: this.#onError, snapshots: { stream, layout: layoutFingerprint(layout), read: this.#snapshots, every: this.#snapshotEvery } };
  }

  /** The live SSE endpoint over this bridge's stream; see {@link createAguiHandler}. */
  handler(options: Omit<AguiHandlerOptions, 'stream'> = {}): AguiRequestHandler {
    // A replay reports each skipped record once, to the handler that read it: only a handler
    // reporting where the bridge does may share the bridge's replays.
    const shared = options.onError === undefined || options.onError === this.#onError;
    const resolved = { snapshots: this.#snapshots, snapshotEvery: this.#snapshotEvery, ...options, onError: options.onError ?? this.#onError, ...(this.#stream !== undefined ? { stream: this.#stream } : {}) };
    return buildAguiHandler(this.#client, resolved, shared ? this.#replays : new ReplayCache());
  }
}
