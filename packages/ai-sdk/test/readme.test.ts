import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { quickStart } from './readme-quick-start.js';
import { finish, scriptedModel, textParts } from './support/mock-model.js';


describe('README', () => {
  it('shows the quick start exactly as tested', () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    const block = /## Quick start[\s\S]*?```ts\n([\s\S]*?)```/.exec(readme)![1]!;
    const tested = readFileSync(new URL('./readme-quick-start.ts', import.meta.url), 'utf8');
    expect(tested.slice(tested.indexOf('\n') + 1)).toBe(block);
  });

  it('runs the quick start on the AI SDK mock model', async () => {
    const model = scriptedModel([
      [{ type: 'tool-call', toolCallId: 'call-1', toolName: 'weather', input: '{"city":"Oslo"}' }, finish('tool-calls', 120, 18)],
      [...textParts('t', 'Light snow and 3 °C: ', 'take the bus.'), finish('stop', 160, 12)],
    ]);
    const { answer, model: modelId, usage } = await quickStart(model);
    expect(answer).toBe('Light snow and 3 °C: take the bus.');
    expect(modelId).toBe('mock-model-1');
    // 280 input tokens at 0.15 and 30 output tokens at 0.60 per million: 42 + 18 micro-units.
    expect(usage).toMatchObject({ inputTokens: 280n, outputTokens: 30n, costMicros: 60n });
    expect(JSON.stringify(model.doStreamCalls[1]!.prompt)).toContain('Oslo: 3 °C, light snow');
  });
});
