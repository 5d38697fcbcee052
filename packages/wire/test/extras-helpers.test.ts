import { describe, expect, test } from 'vitest';
import { bridgeHopMetadata, BRIDGE_HOPS_METADATA_KEY, encodeCbor, enterBridge, estimateTokens, readBridgeHops } from '@agdx/wire';
import { errorOf, fixtureJson, oracle, toHex } from './extras-support/fixtures.js';

describe('estimateTokens (upstream-newer/token_estimates.json)', () => {
  const cases = fixtureJson<{ bytes: number; tokens: number }[]>('upstream-newer/token_estimates.json');
  test.each(cases)('$bytes bytes → $tokens tokens', ({ bytes, tokens }) => {
    expect(estimateTokens(new Uint8Array(bytes))).toBe(tokens);
    expect(estimateTokens(bytes)).toBe(tokens);
    expect(estimateTokens('a'.repeat(bytes))).toBe(tokens);
  });
  test('strings count UTF-8 bytes', () => {
    expect(estimateTokens('é')).toBe(1);
    expect(estimateTokens('🤖🤖')).toBe(2);
  });
});

describe('bridge hops (oracle/bridge_hops.json)', () => {
  const data = oracle('bridge_hops');
  test.each(data.cases as any[])('$id', (c) => {
    if (!c.ok) {
      const err = errorOf(() => enterBridge(c.bridge, c.previous));
      expect(err?.class).toBe(c.error.class);
      expect(err?.message).toBe(c.error.message);
      return;
    }
    const hops = enterBridge(c.bridge, c.previous);
    expect(hops).toEqual(c.hops);
    const value = bridgeHopMetadata(hops);
    expect(value).toEqual(c.metadata_value.value.map((v: any) => v.value));
    expect(toHex(encodeCbor(new Map([[BRIDGE_HOPS_METADATA_KEY, value as string[]]])))).toBe(c.metadata_value_cbor_hex);
    expect(readBridgeHops(new Map([[BRIDGE_HOPS_METADATA_KEY, value]]))).toEqual(hops);
  });
  test('garbage metadata cannot disable the guard', () => {
    expect(readBridgeHops(new Map([[BRIDGE_HOPS_METADATA_KEY, ['a', 1n, null]]]))).toEqual(['a']);
    expect(readBridgeHops(undefined)).toEqual([]);
  });
});
