/**
 * The stateful conversion of a conversation, record by record, in log order (seed 002). Chunks
 * need their channel's history (the purpose rides only the opening chunk; UTF-8 characters may
 * straddle chunks), and state records need the fold to know which ones readers apply.
 */

import { AgentKind, CHUNK_PURPOSES, StateFold, applyJsonPatch, isTerminalTaskState, type AgentEnvelope, type JsonValue } from '@agdx/wire';
import { TASK_STATUS_OPERATION, envelopeToAgUi, isStateRecord, stateBodyOf, stateEvent } from './convert-record.js';
import type { AguiEvent } from './events.js';
import type { StateBody } from './state-body.js';

type ChunkPurpose = 'chat' | 'reasoning' | 'tool_args';

interface ChannelState {
  readonly id: string;
  readonly purpose: ChunkPurpose;
  open: boolean;
  decoder: TextDecoder | undefined;
}

function purposeOf(envelope: AgentEnvelope): ChunkPurpose {
  const operation = envelope.operation;
  // A chunk on an unseen channel defaults to chat; only the opening chunk names a purpose.
  if (envelope.sequence === 0n && operation !== undefined && CHUNK_PURPOSES.includes(operation)) return operation as ChunkPurpose;
  return 'chat';
}

function startEvent(channel: ChannelState, envelope: AgentEnvelope): AguiEvent {
  switch (channel.purpose) {
    case 'chat':
      return { type: 'TEXT_MESSAGE_START', messageId: channel.id, role: 'assistant' };
    case 'reasoning':
      return { type: 'REASONING_MESSAGE_START', messageId: channel.id, role: 'reasoning' };
    case 'tool_args':
      return { type: 'TOOL_CALL_START', toolCallId: channel.id, toolCallName: envelope.tool ?? '' };
  }
}

function contentEvent(channel: ChannelState, delta: string): AguiEvent {
  switch (channel.purpose) {
    case 'chat':
      return { type: 'TEXT_MESSAGE_CONTENT', messageId: channel.id, delta };
    case 'reasoning':
      return { type: 'REASONING_MESSAGE_CONTENT', messageId: channel.id, delta };
    case 'tool_args':
      return { type: 'TOOL_CALL_ARGS', toolCallId: channel.id, delta };
  }
}

function endEvent(channel: ChannelState): AguiEvent {
  switch (channel.purpose) {
    case 'chat':
      return { type: 'TEXT_MESSAGE_END', messageId: channel.id };
    case 'reasoning':
      return { type: 'REASONING_MESSAGE_END', messageId: channel.id };
    case 'tool_args':
      return { type: 'TOOL_CALL_END', toolCallId: channel.id };
  }
}

/** The shared state as the converter has folded it so far. */
export interface ConvertedState {
  /** The document, undefined until a state record applied. */
  readonly document: JsonValue | undefined;
  /** Applied revision-guarded records (legacy JSON records do not count). */
  readonly revision: bigint;
}

/**
 * Converts a conversation's records into AG-UI events, in log order. Feed every record of the
 * conversation from its start: chunk channels and the state fold depend on what came before.
 *
 * - A channel's first chunk opens it (START, with the purpose of a sequence-0 chunk, chat
 *   otherwise), a non-empty body is CONTENT/ARGS (UTF-8 decoded across chunk boundaries), the
 *   `last` chunk ends it; chunks after the end are ignored.
 * - State records render only when the session state fold applies them (a stale snapshot, a
 *   repeated op id or a patch that fails renders nothing), so a frontend folds the same
 *   document as `reconstructState`.
 * - The first terminal task status of a task (by correlation) wins: a later terminal status for
 *   the same task (a cancel after completion) renders nothing, so the frontend sees the status
 *   GetTask and CancelTask report. The record-by-record {@link envelopeToAgUi} has no history
 *   and renders every terminal status.
 */
export class AguiConverter {
  readonly #onUnreadableState: ((envelope: AgentEnvelope) => void) | undefined;
  readonly #channels = new Map<string, ChannelState>();
  // Correlation → channel id of the tool-argument stream it carried, so the tool's result reuses
  // the toolCallId the frontend saw on TOOL_CALL_START (AG-UI pairs them by that id).
  readonly #toolCalls = new Map<string, string>();
  // Correlations of tasks that reached a terminal status; the first terminal wins (seed 002).
  readonly #endedTasks = new Set<string>();
  // wire's fold, the one sessions and the lifecycle writer count by, so every reader agrees on
  // which state records applied and on the revision
  #state = new StateFold();

  /**
   * @param options.onUnreadableState called with a state record whose body is neither a state
   * capsule nor legacy JSON (it renders nothing); readers use it to report the record.
   */
  constructor(options: { readonly onUnreadableState?: ((envelope: AgentEnvelope) => void) | undefined } = {}) {
    this.#onUnreadableState = options.onUnreadableState;
  }

  /** The AG-UI events of one record (empty when it has none). */
  convert(envelope: AgentEnvelope): AguiEvent[] {
    if (envelope.kind === AgentKind.Chunk) return this.#chunk(envelope);
    const state = stateBodyOf(envelope);
    if (state !== undefined) return this.#fold(state) ? [stateEvent(state)] : [];
    if (isStateRecord(envelope)) {
      this.#onUnreadableState?.(envelope);
      return [];
    }
    if (this.#isLaterTerminal(envelope)) return [];
    const events = envelopeToAgUi(envelope) ?? [];
    return events.map((event) => this.#linkToolResult(event));
  }

  /** True for a terminal task status of a task that already ended; records the first one. */
  #isLaterTerminal(envelope: AgentEnvelope): boolean {
    if (envelope.kind !== AgentKind.Status || envelope.operation !== TASK_STATUS_OPERATION) return false;
    if (envelope.taskState === undefined || !isTerminalTaskState(envelope.taskState)) return false;
    // Without a correlation the run id is the record's own id, so no two statuses share a task.
    const task = envelope.correlation?.toString();
    if (task === undefined) return false;
    if (this.#endedTasks.has(task)) return true;
    this.#endedTasks.add(task);
    return false;
  }

  /** END events for every message, reasoning message and tool call still open, closing them. */
  closeOpen(): AguiEvent[] {
    const events: AguiEvent[] = [];
    for (const channel of this.#channels.values()) {
      if (!channel.open) continue;
      const tail = channel.decoder?.decode() ?? '';
      if (tail.length > 0) events.push(contentEvent(channel, tail));
      events.push(endEvent(channel));
      channel.open = false;
      channel.decoder = undefined;
    }
    return events;
  }

  /** The folded shared state. */
  get state(): ConvertedState {
    return { document: this.#state.document, revision: this.#state.revision };
  }

  #chunk(envelope: AgentEnvelope): AguiEvent[] {
    const id = envelope.channel?.toString();
    if (id === undefined) return [];
    const events: AguiEvent[] = [];
    let channel = this.#channels.get(id);
    if (channel === undefined) {
      channel = { id, purpose: purposeOf(envelope), open: true, decoder: new TextDecoder('utf-8') };
      this.#channels.set(id, channel);
      const correlation = envelope.correlation?.toString();
      if (channel.purpose === 'tool_args' && correlation !== undefined && !this.#toolCalls.has(correlation)) {
        this.#toolCalls.set(correlation, id);
      }
      events.push(startEvent(channel, envelope));
    } else if (!channel.open) {
      return [];
    }
    const decoder = channel.decoder ?? new TextDecoder('utf-8');
    if (envelope.body.length > 0) {
      const delta = decoder.decode(envelope.body, { stream: true });
      if (delta.length > 0) events.push(contentEvent(channel, delta));
    }
    if (envelope.last) {
      const tail = decoder.decode();
      if (tail.length > 0) events.push(contentEvent(channel, tail));
      events.push(endEvent(channel));
      channel.open = false;
      channel.decoder = undefined;
    }
    return events;
  }

  /**
   * A tool result carries its call's correlation; when that correlation opened a tool-argument
   * stream earlier in the conversation, the result takes that stream's toolCallId instead.
   */
  #linkToolResult(event: AguiEvent): AguiEvent {
    if (event.type !== 'TOOL_CALL_RESULT') return event;
    const channel = this.#toolCalls.get(event.toolCallId);
    return channel === undefined ? event : { ...event, toolCallId: channel };
  }

  /** Applies a state body to the fold; true when readers apply it (so it renders). */
  #fold(state: StateBody): boolean {
    switch (state.form) {
      case 'snapshot':
        return this.#state.apply({ kind: 'snapshot', snapshot: state.snapshot }) === 'applied';
      case 'delta':
        return this.#state.apply({ kind: 'delta', delta: state.delta }) === 'applied';
      case 'legacy-snapshot':
        // 0.1.1 JSON bodies carry no revision: they change the document, never the revision
        this.#replaceDocument(state.document);
        return true;
      case 'legacy-delta':
        try {
          this.#replaceDocument(applyJsonPatch(this.#state.document ?? {}, state.patch));
        } catch {
          // the 0.1.1 reference rendered legacy deltas whether or not they applied
        }
        return true;
    }
  }

  #replaceDocument(document: JsonValue): void {
    const { revision, appliedOpIds } = this.#state;
    this.#state = StateFold.resume({ document, revision, appliedOpIds });
  }
}

/** Converts a whole conversation, in log order, with one {@link AguiConverter}. */
export function envelopesToAgUi(envelopes: Iterable<AgentEnvelope>): AguiEvent[] {
  const converter = new AguiConverter();
  const events: AguiEvent[] = [];
  for (const envelope of envelopes) events.push(...converter.convert(envelope));
  return events;
}
