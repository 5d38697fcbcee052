/** Test support: the AI SDK's own mock language model, fed with scripted stream parts per step. */
import { MockLanguageModelV4, convertArrayToReadableStream } from 'ai/test';

/** One language-model stream part (`LanguageModelV4StreamPart`), loosely typed for scripting. */
export type ModelPart = { readonly type: string } & Record<string, unknown>;
export type StepParts = ModelPart[];

/** Usage of one scripted step. */
export function usage(input: number, output: number, reasoning?: number): Record<string, unknown> {
  return {
    inputTokens: { total: input, noCache: input, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: output, text: reasoning === undefined ? output : output - reasoning, reasoning },
  };
}

/** A finish part. */
export function finish(unified: 'stop' | 'tool-calls' | 'length', input = 10, output = 5, reasoning?: number): ModelPart {
  return { type: 'finish', usage: usage(input, output, reasoning), finishReason: { unified, raw: unified } };
}

/** A mock model answering call n with `steps[n]` (the last one repeats). */
export function scriptedModel(steps: readonly StepParts[], modelId = 'mock-model-1'): MockLanguageModelV4 {
  let call = 0;
  return new MockLanguageModelV4({
    modelId,
    doStream: async () => {
      const parts = steps[Math.min(call, steps.length - 1)]!;
      call += 1;
      return { stream: convertArrayToReadableStream([{ type: 'response-metadata', id: `r${call}`, modelId, timestamp: new Date(0) }, ...parts]) } as never;
    },
  });
}

/** Text parts of one output id. */
export function textParts(id: string, ...deltas: string[]): StepParts {
  return [{ type: 'text-start', id }, ...deltas.map((delta) => ({ type: 'text-delta' as const, id, delta })), { type: 'text-end', id }];
}

/** Reasoning parts of one output id. */
export function reasoningParts(id: string, ...deltas: string[]): StepParts {
  return [{ type: 'reasoning-start', id }, ...deltas.map((delta) => ({ type: 'reasoning-delta' as const, id, delta })), { type: 'reasoning-end', id }];
}

/** A streamed tool call: its input deltas, then the complete call. */
export function toolCallParts(toolCallId: string, toolName: string, ...deltas: string[]): StepParts {
  return [
    { type: 'tool-input-start', id: toolCallId, toolName },
    ...deltas.map((delta) => ({ type: 'tool-input-delta' as const, id: toolCallId, delta })),
    { type: 'tool-input-end', id: toolCallId },
    { type: 'tool-call', toolCallId, toolName, input: deltas.join('') },
  ];
}
