import type { ModelMessage } from 'ai';
import { jsonText } from './json-text.js';

type AssistantPart =
  | { type: 'reasoning'; text: string }
  | { type: 'text'; text: string }
  | { type: 'tool-call'; toolCallId: string; toolName: string; input: unknown; providerExecuted?: boolean };

type ToolOutput =
  | { type: 'text'; value: string }
  | { type: 'json'; value: unknown }
  | { type: 'error-text'; value: string }
  | { type: 'execution-denied'; reason?: string };

/**
 * The AI SDK messages one step produces, rebuilt from its stream parts in the order the model
 * wrote them: one assistant message (reasoning, text and tool calls) and, when tools ran, one
 * tool message with their results in call order (the order the AI SDK itself uses).
 */
export class StepMessages {
  readonly #assistant: AssistantPart[] = [];
  readonly #open = new Map<string, { type: 'reasoning' | 'text'; text: string }>();
  readonly #calls: string[] = [];
  readonly #results = new Map<string, { toolName: string; output: ToolOutput }>();

  /** Appends reasoning or text under the stream part id it arrived with. */
  addText(kind: 'reasoning' | 'text', id: string, text: string): void {
    const key = `${kind}:${id}`;
    const open = this.#open.get(key);
    if (open !== undefined) {
      open.text += text;
      return;
    }
    const part = { type: kind, text };
    this.#open.set(key, part);
    this.#assistant.push(part);
  }

  /** Closes a reasoning or text part: a later part with the same id starts a new one. */
  endText(kind: 'reasoning' | 'text', id: string): void {
    this.#open.delete(`${kind}:${id}`);
  }

  /** Records a complete tool call. */
  addCall(toolCallId: string, toolName: string, input: unknown, providerExecuted: boolean): void {
    this.#calls.push(toolCallId);
    this.#assistant.push(providerExecuted ? { type: 'tool-call', toolCallId, toolName, input, providerExecuted } : { type: 'tool-call', toolCallId, toolName, input });
  }

  /** Records a tool's output (a string stays text, anything else is JSON). */
  addResult(toolCallId: string, toolName: string, output: unknown): void {
    const value = typeof output === 'string' ? { type: 'text' as const, value: output } : { type: 'json' as const, value: JSON.parse(jsonText(output)) as unknown };
    this.#results.set(toolCallId, { toolName, output: value });
  }

  /** Records a tool failure as the AI SDK does (`error-text`). */
  addError(toolCallId: string, toolName: string, message: string): void {
    this.#results.set(toolCallId, { toolName, output: { type: 'error-text', value: message } });
  }

  /** Records a denied tool execution. */
  addDenied(toolCallId: string, toolName: string): void {
    this.#results.set(toolCallId, { toolName, output: { type: 'execution-denied' } });
  }

  /** The step's text parts joined, as the AI SDK's `text` of a step. */
  text(): string {
    return this.#assistant.map((part) => (part.type === 'text' ? part.text : '')).join('');
  }

  /** The step's messages; none when the step wrote nothing. */
  messages(): ModelMessage[] {
    const out: ModelMessage[] = [];
    if (this.#assistant.length > 0) out.push({ role: 'assistant', content: this.#assistant.map((part) => ({ ...part })) } as ModelMessage);
    const results = [...this.#calls, ...[...this.#results.keys()].filter((id) => !this.#calls.includes(id))]
      .filter((id, index, all) => all.indexOf(id) === index && this.#results.has(id))
      .map((id) => {
        const result = this.#results.get(id)!;
        return { type: 'tool-result', toolCallId: id, toolName: result.toolName, output: result.output };
      });
    if (results.length > 0) out.push({ role: 'tool', content: results } as ModelMessage);
    return out;
  }
}
