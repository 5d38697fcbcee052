/**
 * Frames a conversation's events as one AG-UI run for `HttpAgent`, which insists on RUN_STARTED
 * first, START/END pairing, nothing open at RUN_FINISHED and nothing after RUN_FINISHED or
 * RUN_ERROR. The log's own run events are mapped onto the client's run.
 */

import type { AgentEnvelope } from '@agdx/wire';
import type { AguiEvent } from './events.js';

/** What framing one record's events gave. */
export interface FramedEvents {
  /** The events to send, in order. */
  readonly events: AguiEvent[];
  /** True when the run ended with the last of them; the response should end. */
  readonly done: boolean;
}

/**
 * One HttpAgent run over a conversation. The run ends at the terminal status (RUN_FINISHED or
 * RUN_ERROR) of the task whose correlation is `runCorrelation`, or at the first terminal run
 * event when the run id names no task; errors of other tasks are not shown, since AG-UI allows
 * nothing after RUN_ERROR.
 */
export class RunFraming {
  readonly #threadId: string;
  readonly #runId: string;
  readonly #runCorrelation: string | undefined;
  readonly #text = new Set<string>();
  readonly #reasoning = new Set<string>();
  readonly #tools = new Set<string>();
  #done = false;

  /** @param runCorrelation the task correlation (Crockford text) the run follows, if any */
  constructor(threadId: string, runId: string, runCorrelation: string | undefined) {
    this.#threadId = threadId;
    this.#runId = runId;
    this.#runCorrelation = runCorrelation;
  }

  /** The RUN_STARTED that opens the response. */
  started(): AguiEvent {
    return { type: 'RUN_STARTED', threadId: this.#threadId, runId: this.#runId };
  }

  /** Whether the run has ended. */
  get done(): boolean {
    return this.#done;
  }

  /** Frames the events of one record. */
  accept(events: readonly AguiEvent[], envelope: AgentEnvelope): FramedEvents {
    const out: AguiEvent[] = [];
    for (const event of events) {
      if (this.#done) break;
      this.#frame(event, envelope, out);
    }
    return { events: out, done: this.#done };
  }

  /** A RUN_ERROR ending the run (for a failure of the stream itself). */
  fail(message: string): AguiEvent {
    this.#done = true;
    return { type: 'RUN_ERROR', message };
  }

  #ownsTerminal(envelope: AgentEnvelope): boolean {
    return this.#runCorrelation === undefined || envelope.correlation?.toString() === this.#runCorrelation;
  }

  #closeOpen(out: AguiEvent[]): void {
    for (const messageId of this.#text) out.push({ type: 'TEXT_MESSAGE_END', messageId });
    for (const messageId of this.#reasoning) out.push({ type: 'REASONING_MESSAGE_END', messageId });
    for (const toolCallId of this.#tools) out.push({ type: 'TOOL_CALL_END', toolCallId });
    this.#text.clear();
    this.#reasoning.clear();
    this.#tools.clear();
  }

  #frame(event: AguiEvent, envelope: AgentEnvelope, out: AguiEvent[]): void {
    switch (event.type) {
      case 'RUN_STARTED':
        // The response already opened the client's run; the log's submission is part of it.
        return;
      case 'RUN_FINISHED':
        if (!this.#ownsTerminal(envelope)) return;
        this.#closeOpen(out);
        out.push({ type: 'RUN_FINISHED', threadId: this.#threadId, runId: this.#runId });
        this.#done = true;
        return;
      case 'RUN_ERROR':
        if (!this.#ownsTerminal(envelope)) return;
        out.push(event);
        this.#done = true;
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
