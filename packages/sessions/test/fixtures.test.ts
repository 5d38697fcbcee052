import { describe, expect, it } from 'vitest';
import { AgentEnvelope, AgentId, encodeStateDelta, estimateTokens, InvalidError, MintUlid, RecordId, type JsonValue } from '@agdx/wire';
import { SESSIONS_TOPIC } from '@agdx/agents';
import { defaultTokenEstimator, sessions, TokenBudget, type ContextMessage } from '@agdx/sessions';
import { fixture, setup } from './helpers.js';

interface TokenCase {
  readonly bytes: number;
  readonly tokens: number;
}
interface PatchCase {
  readonly name: string;
  readonly document: JsonValue;
  readonly patch: unknown[];
  readonly result?: JsonValue;
  readonly error?: boolean;
}

const tokenCases = JSON.parse(fixture('upstream-newer/token_estimates.json')) as TokenCase[];
const patchCases = JSON.parse(fixture('upstream-newer/json_patch/cases.json')) as PatchCase[];

function message(bytes: number): ContextMessage {
  return { payload: new Uint8Array(bytes) } as unknown as ContextMessage;
}

describe('token_estimates.json', () => {
  it('has cases', () => expect(tokenCases.length).toBeGreaterThan(0));
  it.each(tokenCases)('$bytes bytes → $tokens tokens (default context estimator and wire estimateTokens)', ({ bytes, tokens }) => {
    expect(defaultTokenEstimator(message(bytes))).toBe(tokens);
    expect(estimateTokens(bytes)).toBe(tokens);
    // a budget of exactly `tokens` keeps the message together with an older zero-cost one
    const kept = new TokenBudget(tokens).select([message(0), message(bytes)]);
    expect(kept).toHaveLength(2);
  });
});

describe('json_patch/cases.json through session state records', () => {
  it('has cases, each with a result or an error', () => {
    expect(patchCases.length).toBeGreaterThan(0);
    for (const c of patchCases) expect(c.result !== undefined || c.error === true, c.name).toBe(true);
  });
  it.each(patchCases)('$name', async (c) => {
    const { laser } = await setup({ partitions: 1 });
    const factory = sessions(laser);
    const session = factory.create(`patch ${c.name}`);
    const agent = AgentId.parse('state-writer');
    await session.lifecycle.begin({ agent });
    await session.lifecycle.snapshot(c.document);
    if (c.error === true) {
      // our writer refuses a patch that does not apply to the state it knows ...
      await expect(session.lifecycle.patch(c.patch as never, { opId: 'op-1' })).rejects.toThrow(InvalidError);
      // ... and a foreign writer's failing delta on the lane is rejected whole by the reader
      const body = encodeStateDelta({ baseRevision: 1n, patch: c.patch as never, opId: 'op-1' });
      await laser.publish(SESSIONS_TOPIC, AgentEnvelope.event(MintUlid.mint(RecordId), session.conversation, agent, body).withOperation('state_delta'), 3);
    } else {
      await session.lifecycle.patch(c.patch as never, { opId: 'op-1' });
      expect(session.lifecycle.document).toEqual(c.result);
    }
    const state = await factory.reads.state(session.conversation);
    if (c.error === true) {
      expect(state.history.at(-1)?.outcome).toBe('rejected');
      expect(state.document).toEqual(c.document);
      expect(state.revision).toBe(1n);
    } else {
      expect(state.history.at(-1)?.outcome).toBe('applied');
      expect(state.document).toEqual(c.result);
      expect(state.revision).toBe(2n);
    }
  });
});
