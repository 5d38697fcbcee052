/**
 * The stateful conversion of a conversation, record by record, in log order (seed 002). Chunks
 * need their channel's history (the purpose rides only the opening chunk; UTF-8 characters may
 * straddle chunks), and state records need the fold to know which ones readers apply.
 */

import { AgentKind, CHUNK_PURPOSES, StateFold, applyJsonPatch, isTerminalTaskState, type AgentEnvelope, type JsonValue } from '@agdx/wire';
import { TASK_STATUS_OPERATION, envelopeToAgUi, isStateRecord, stateBodyOf, stateEvent } from './convert-record.js';
import { AgdxEventMapper, type AgdxEventOptions } from './agdx-events.js';
import type { AguiEvent } from './events.js';
import type { StateBody } from './state-body.js';

type ChunkPurpose = 'chat' | 'reasoning' | 'tool_args';

interface ChannelState {
  readonly id: string;
  readonly purpose: ChunkPurpose;
  open: boolean;
  decoder: TextDecoder | undefined;
  /** The channel's last (at most 3) body bytes: what a saved image needs to rebuild the decoder. */
  recent: number[];
}

/**
 * Where a converter stands, as plain JSON (bigints as decimal text), for fold snapshots: every
 * channel (with the undecoded UTF-8 bytes of an open one), tool-call links, ended tasks and the
 * state fold.
 */
export interface ConverterImage {
  readonly channels: readonly { readonly id: string; readonly purpose: ChunkPurpose; readonly open: boolean; readonly pending: readonly number[] }[];
  readonly toolCalls: readonly (readonly [string, string])[];
  readonly endedTasks: readonly string[];
  readonly state: { readonly document: JsonValue | undefined; readonly revision: string; readonly appliedOpIds: readonly string[] };
}

/**
 * A streaming decoder for one channel (stateful: never shared). `ignoreBOM`: the default drops a
 * U+FEFF that opens the stream, losing the first character an agent sent, and a decoder rebuilt
 * from a saved image would drop one that opens the next delta, in the middle of the text.
 */
function channelDecoder(): TextDecoder {
  return new TextDecoder('utf-8', { ignoreBOM: true });
}

const UTF8_NEED: readonly [number, number, number][] = [
  // [first lead byte, last lead byte, sequence length]
  [0xc2, 0xdf, 2],
  [0xe0, 0xef, 3],
  [0xf0, 0xf4, 4],
];

/**
 * The bytes a streaming UTF-8 decoder still holds after `recent` (a stream's last bytes): an
 * incomplete sequence that is valid so far, else none.
 */
function undecodedTail(recent: readonly number[]): number[] {
  for (let k = 1; k <= Math.min(3, recent.length); k++) {
    const tail = recent.slice(recent.length - k);
    const lead = tail[0] as number;
    if (lead >= 0x80 && lead < 0xc0) continue;
    const need = UTF8_NEED.find(([lo, hi]) => lead >= lo && lead <= hi)?.[2] ?? 0;
    if (need <= k) return [];
    const second = tail[1];
    if (second !== undefined) {
      // the second byte's narrower ranges (no overlongs, no surrogates, nothing past U+10FFFF)
      const lo = lead === 0xe0 ? 0xa0 : lead === 0xf0 ? 0x90 : 0x80;
      const hi = lead === 0xed ? 0x9f : lead === 0xf4 ? 0x8f : 0xbf;
      if (second < lo || second > hi) return [];
    }
    return tail.slice(1).every((b) => b >= 0x80 && b < 0xc0) ? tail : [];
  }
  return [];
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
  readonly #agdx: AgdxEventMapper | undefined;
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
   * @param options.agdxEvents opt-in (default off): also emit the `agdx.*` CUSTOM events (see
   * `AgdxCustomEventName`) for the user's input, agents' commands, plain replies, human
   * input and the current turn's status, which the reference mapping drops. The events of the
   * reference mapping stay as they are.
   */
  constructor(
    options: {
      readonly onUnreadableState?: ((envelope: AgentEnvelope) => void) | undefined;
      readonly agdxEvents?: boolean | AgdxEventOptions | undefined;
    } = {},
  ) {
    this.#onUnreadableState = options.onUnreadableState;
    const agdx = options.agdxEvents;
    this.#agdx = agdx === undefined || agdx === false ? undefined : new AgdxEventMapper(agdx === true ? {} : agdx);
  }

  /**
   * The AG-UI events of one record (empty when it has none). `topic` is where the record was
   * read, when the caller reads more than the conversation's own topic: with `agdxEvents`, a
   * record from the human-input topic renders only as `agdx.input_request` / `agdx.input_response`.
   */
  convert(envelope: AgentEnvelope, topic?: string): AguiEvent[] {
    const agdx = this.#agdx;
    if (agdx !== undefined && agdx.isHumanInput(topic)) return agdx.events(envelope, topic, []);
    const events = this.#reference(envelope);
    return agdx === undefined ? events : [...events, ...agdx.events(envelope, topic, events)];
  }

  /** The events of the reference mapping (seed 002). */
  #reference(envelope: AgentEnvelope): AguiEvent[] {
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

  /** Where this converter stands, as plain JSON (see {@link ConverterImage}). */
  image(): ConverterImage {
    return {
      channels: [...this.#channels.values()].map((c) => ({ id: c.id, purpose: c.purpose, open: c.open, pending: c.open ? undecodedTail(c.recent) : [] })),
      toolCalls: [...this.#toolCalls],
      endedTasks: [...this.#endedTasks],
      state: { document: this.#state.document, revision: this.#state.revision.toString(), appliedOpIds: this.#state.appliedOpIds },
    };
  }

  /**
   * A converter that continues where `image` stood. The image must be well-formed (a reader
   * checks a snapshot's shape before this).
   * @throws InvalidError when the state fold's revision or op ids are impossible.
   */
  static fromImage(image: ConverterImage, options: { readonly onUnreadableState?: ((envelope: AgentEnvelope) => void) | undefined } = {}): AguiConverter {
    const converter = new AguiConverter(options);
    for (const c of image.channels) {
      const decoder = c.open ? channelDecoder() : undefined;
      // feeding the undecoded bytes back leaves the decoder as the saved one was
      if (decoder !== undefined && c.pending.length > 0) decoder.decode(Uint8Array.from(c.pending), { stream: true });
      converter.#channels.set(c.id, { id: c.id, purpose: c.purpose, open: c.open, decoder, recent: [...c.pending] });
    }
    for (const [correlation, channel] of image.toolCalls) converter.#toolCalls.set(correlation, channel);
    for (const task of image.endedTasks) converter.#endedTasks.add(task);
    converter.#state = StateFold.resume({ document: image.state.document, revision: BigInt(image.state.revision), appliedOpIds: image.state.appliedOpIds });
    return converter;
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
      channel = { id, purpose: purposeOf(envelope), open: true, decoder: channelDecoder(), recent: [] };
      this.#channels.set(id, channel);
      const correlation = envelope.correlation?.toString();
      if (channel.purpose === 'tool_args' && correlation !== undefined && !this.#toolCalls.has(correlation)) {
        this.#toolCalls.set(correlation, id);
      }
      events.push(startEvent(channel, envelope));
    } else if (!channel.open) {
      return [];
    }
    const decoder = channel.decoder ?? channelDecoder();
    if (envelope.body.length > 0) {
      channel.recent = [...channel.recent, ...envelope.body.subarray(Math.max(0, envelope.body.length - 3))].slice(-3);
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
