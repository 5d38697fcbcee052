/** The demo's printed story: numbered steps, each with a few indented facts. */

import { line, type TextSink } from '../io.js';

/** The step titles of the demo, in order; the test checks the transcript holds each one. */
export const DEMO_STEPS: readonly string[] = [
  'Open the log',
  'Spawn the agents',
  'Open a session',
  'Planner asks the worker',
  'Streamed reasoning',
  'Tool call',
  'Human approval',
  'State change',
  'Streamed chat answer',
  'Planner receives the answer',
  'Poison record dead-lettered',
  'Worker through the A2A bridge',
  'Worker through the MCP bridge',
  'AG-UI events',
  'Session timeline',
];

/** Prints numbered steps and their facts to a sink. */
export class Transcript {
  readonly #out: TextSink;
  readonly #started: number;
  #step = 0;

  /** @param out where the transcript goes */
  constructor(out: TextSink) {
    this.#out = out;
    this.#started = performance.now();
  }

  /** Starts the next numbered step. */
  step(title: string, summary?: string): void {
    this.#step += 1;
    line(this.#out);
    line(this.#out, `${String(this.#step).padStart(2)}. ${title}${summary !== undefined ? ` — ${summary}` : ''}`);
  }

  /** One indented fact of the current step. */
  fact(label: string, value: string): void {
    line(this.#out, `      ${label.padEnd(14)} ${value}`);
  }

  /** One free line under the current step. */
  note(text: string): void {
    line(this.#out, `      ${text}`);
  }

  /** Milliseconds since the transcript started. */
  elapsedMs(): number {
    return Math.round(performance.now() - this.#started);
  }
}

/** Shortens text for a one-line fact. */
export function clip(text: string, max: number = 72): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}
