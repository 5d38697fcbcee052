/**
 * Frames a conversation's events as one AG-UI run for `HttpAgent`, which insists on RUN_STARTED
 * first, START/END pairing, nothing open at RUN_FINISHED and nothing after RUN_FINISHED or
 * RUN_ERROR. The log's own run events are mapped onto the client's run.
 */

import type { AgentEnvelope } from '@agdx/wire';
import type { AguiEvent } from './events.js';
import { turnFactsOf, type TurnEnd, type TurnFacts, type TurnStart } from './turn.js';

/** What framing one record's events gave. */
export interface FramedEvents {
  /** The events to send, in order. */
  readonly events: AguiEvent[];
  /** True when the run ended with the last of them; the response should end. */
  readonly done: boolean;
}

/**
 * One HttpAgent run over a conversation. The run follows one turn (see `turn.ts`): the task whose
 * correlation is `runCorrelation`, else the thread's current turn (the latest one in the log when
 * the request came, or on a thread with none yet the first one that opens). It ends with
 * RUN_FINISHED or RUN_ERROR when that turn ends, once the replay has reached the thread's last
 * record of the request's time, so the whole history is shown first. Run events of other turns
 * are not shown (AG-UI allows one run per response, and nothing after RUN_ERROR).
 */
export class RunFraming {
  readonly #threadId: string;
  readonly #runId: string;
  readonly #text = new Set<string>();
  readonly #reasoning = new Set<string>();
  readonly #tools = new Set<string>();
  #turn: string | undefined;
  readonly #fixedTurn: boolean;
  #ended: TurnEnd | undefined;
  #done = false;

  /**
   * @param runCorrelation the task correlation (Crockford text) the run follows, if any
   * @param start the thread's current turn when the request came (default: an empty thread, so
   * the first turn that opens is followed)
   */
  constructor(threadId: string, runId: string, runCorrelation: string | undefined, start: TurnStart = { turn: undefined }) {
    this.#threadId = threadId;
    this.#runId = runId;
    this.#fixedTurn = runCorrelation !== undefined;
    this.#turn = runCorrelation ?? start.turn;
  }

  /** The RUN_STARTED that opens the response. */
  started(): AguiEvent {
    return { type: 'RUN_STARTED', threadId: this.#threadId, runId: this.#runId };
  }

  /** Whether the run has ended. */
  get done(): boolean {
    return this.#done;
  }

  /**
   * Frames the events of one record. `caughtUp` is false while the record is part of the replay of
   * what the thread held when the request came: a turn that ended there ends the run only once
   * the replay has caught up. Feed every record of the thread, also those before a resume point
   * (with no events), so the turn is tracked.
   */
  accept(events: readonly AguiEvent[], envelope: AgentEnvelope, caughtUp: boolean = true): FramedEvents {
    return this.acceptFacts(events, turnFactsOf(envelope, events), caughtUp);
  }

  /**
   * {@link accept} for a reader that kept what a record means for turns ({@link TurnFacts})
   * instead of the record: a kept replay or a fold snapshot.
   */
  acceptFacts(events: readonly AguiEvent[], facts: TurnFacts, caughtUp: boolean = true): FramedEvents {
    const out: AguiEvent[] = [];
    if (this.#done) return { events: out, done: true };
    if (!this.#fixedTurn && this.#turn === undefined) this.#turn = facts.opens;
    for (const event of events) this.#frame(event, out);
    if (this.#turn !== undefined && this.#ended === undefined && facts.correlation === this.#turn) this.#ended = facts.ends;
    if (caughtUp && this.#ended !== undefined) this.#finish(out);
    return { events: out, done: this.#done };
  }

  /** Ends the run with RUN_ERROR (a failure of the stream itself, or a run that timed out), closing what is open. */
  fail(message: string, code?: string): AguiEvent[] {
    if (this.#done) return [];
    const out: AguiEvent[] = [];
    this.#closeOpen(out);
    out.push({ type: 'RUN_ERROR', message, ...(code !== undefined ? { code } : {}) });
    this.#done = true;
    return out;
  }

  #finish(out: AguiEvent[]): void {
    const ended = this.#ended;
    if (ended === undefined) return;
    this.#closeOpen(out);
    out.push(ended.kind === 'finished' ? { type: 'RUN_FINISHED', threadId: this.#threadId, runId: this.#runId } : { type: 'RUN_ERROR', message: ended.message });
    this.#done = true;
  }

  #closeOpen(out: AguiEvent[]): void {
    for (const messageId of this.#text) out.push({ type: 'TEXT_MESSAGE_END', messageId });
    for (const messageId of this.#reasoning) out.push({ type: 'REASONING_MESSAGE_END', messageId });
    for (const toolCallId of this.#tools) out.push({ type: 'TOOL_CALL_END', toolCallId });
    this.#text.clear();
    this.#reasoning.clear();
    this.#tools.clear();
  }

  #frame(event: AguiEvent, out: AguiEvent[]): void {
    switch (event.type) {
      case 'RUN_STARTED':
      case 'RUN_FINISHED':
      case 'RUN_ERROR':
        // The response opened the client's run and ends it when its turn ends; the log's own
        // run events (this turn's and other turns') are folded into that.
        return;
      case 'TEXT_MESSAGE_START':
        if (this.#text.has(event.messageId)) return;
        this.#text.add(event.messageId);
        out.push(event);
        return;
      case 'REASONING_MESSAGE_START':
        if (this.#reasoning.has(event.messageId)) return;
        this.#reasoning.add(event.messageId);
        out.push(event);
        return;
      case 'TOOL_CALL_START':
        if (this.#tools.has(event.toolCallId)) return;
        this.#tools.add(event.toolCallId);
        out.push(event);
        return;
      // A resumed run may join a message it never saw open; the client would refuse its parts.
      case 'TEXT_MESSAGE_CONTENT':
        if (this.#text.has(event.messageId)) out.push(event);
        return;
      case 'TEXT_MESSAGE_END':
        if (this.#text.delete(event.messageId)) out.push(event);
        return;
      case 'REASONING_MESSAGE_CONTENT':
        if (this.#reasoning.has(event.messageId)) out.push(event);
        return;
      case 'REASONING_MESSAGE_END':
        if (this.#reasoning.delete(event.messageId)) out.push(event);
        return;
      case 'TOOL_CALL_ARGS':
        if (this.#tools.has(event.toolCallId)) out.push(event);
        return;
      case 'TOOL_CALL_END':
        if (this.#tools.delete(event.toolCallId)) out.push(event);
        return;
      default:
        out.push(event);
    }
  }
}
