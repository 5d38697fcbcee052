import { describe, expect, test } from 'vitest';
import {
  cborToJson,
  decodeStateDelta,
  decodeStateSnapshot,
  decodeStrictCbor,
  encodeCbor,
  encodeStateDelta,
  encodeStateSnapshot,
  jsonToCbor,
  MAX_STATE_PATCH_OPS,
  reconstructState,
  StateFold,
  type JsonPatchOperation,
  type StateRecord,
} from '@agdx/wire';
import { errorOf, toHex } from './extras-support/fixtures.js';

describe('JSON ⇄ CBOR for state', () => {
  test('object keys are sorted by UTF-8 byte order, ints stay ints, fractions floats', () => {
    const cbor = jsonToCbor({ b: 1, a: [1.5, 'x', null, true], 'é': 0, Z: { y: 2, x: 1 } });
    expect([...(cbor as Map<string, unknown>).keys()]).toEqual(['Z', 'a', 'b', 'é']);
    const bytes = encodeCbor(cbor);
    expect(toHex(bytes).startsWith('a4615a')).toBe(true);
    expect(cborToJson(decodeStrictCbor(bytes))).toEqual({ b: 1, a: [1.5, 'x', null, true], 'é': 0, Z: { y: 2, x: 1 } });
  });
  test('integers outside the exact number range are refused both ways', () => {
    expect(errorOf(() => jsonToCbor(2 ** 53))?.message).toBe('state JSON integer is outside the exact number range');
    expect(errorOf(() => cborToJson(2n ** 53n))).toMatchObject({ class: 'CodecError', message: 'state JSON integer is outside the exact number range' });
    expect(cborToJson(BigInt(Number.MAX_SAFE_INTEGER))).toBe(Number.MAX_SAFE_INTEGER);
  });
  test('non-text keys and bytes are CodecErrors', () => {
    expect(errorOf(() => cborToJson(new Map([[1n, 'x']])))?.class).toBe('CodecError');
    expect(errorOf(() => cborToJson(new Uint8Array(1)))?.class).toBe('CodecError');
  });
  test('__proto__ as a key stays an own property', () => {
    const json = cborToJson(new Map([['__proto__', 1n]])) as Record<string, unknown>;
    expect(Object.keys(json)).toEqual(['__proto__']);
    expect(({} as any)[1]).toBeUndefined();
  });
});

describe('StateDelta / StateSnapshot records', () => {
  const patch: JsonPatchOperation[] = [
    { op: 'add', path: '/a', value: { z: 1, y: [1, 2] } },
    { op: 'move', from: '/a', path: '/b' },
    { op: 'remove', path: '/c' },
  ];
  test('delta round trip in the documented key order', () => {
    const bytes = encodeStateDelta({ baseRevision: 3n, patch, opId: 'op-1' });
    const map = decodeStrictCbor(bytes) as Map<string, unknown>;
    expect([...map.keys()]).toEqual(['base_revision', 'patch', 'op_id']);
    expect([...((map.get('patch') as Map<string, unknown>[])[1] as Map<string, unknown>).keys()]).toEqual(['op', 'from', 'path']);
    expect(decodeStateDelta(bytes)).toEqual({ baseRevision: 3n, patch, opId: 'op-1' });
  });
  test('snapshot round trip; a snapshot is a JSON object', () => {
    const bytes = encodeStateSnapshot({ baseRevision: 0n, document: { k: 'v' } });
    expect(decodeStateSnapshot(bytes)).toEqual({ baseRevision: 0n, document: { k: 'v' } });
    expect(errorOf(() => encodeStateSnapshot({ baseRevision: 0n, document: [1] }))?.message).toBe('a state snapshot must be a JSON object');
  });
  test('limits: 256 ops, non-empty op id, valid operations', () => {
    const many = Array.from({ length: MAX_STATE_PATCH_OPS + 1 }, () => ({ op: 'test', path: '', value: null }) as JsonPatchOperation);
    expect(errorOf(() => encodeStateDelta({ baseRevision: 0n, patch: many, opId: 'x' }))?.message).toBe('`patch` is 257 operations, exceeds cap 256');
    encodeStateDelta({ baseRevision: 0n, patch: many.slice(1), opId: 'x' });
    expect(errorOf(() => encodeStateDelta({ baseRevision: 0n, patch, opId: '' }))?.message).toBe('`op_id` must not be empty');
    expect(errorOf(() => encodeStateDelta({ baseRevision: 0n, patch: [{ op: 'nope' } as never], opId: 'x' }))?.class).toBe('InvalidError');
  });
  test('8 MiB cap on the compact JSON document', () => {
    const big = { s: 'x'.repeat(8 * 1024 * 1024) };
    expect(errorOf(() => encodeStateSnapshot({ baseRevision: 0n, document: big }))?.message).toMatch(/^`document` is \d+B, exceeds cap 8388608B$/);
  });
});

describe('reconstructState', () => {
  test('applied / rejected / stale / duplicate', () => {
    const records: StateRecord[] = [
      { kind: 'snapshot', snapshot: { baseRevision: 0n, document: { n: 1, gone: true } } },
      { kind: 'delta', delta: { baseRevision: 1n, patch: [{ op: 'replace', path: '/n', value: 2 }], opId: 'a' } },
      { kind: 'delta', delta: { baseRevision: 1n, patch: [{ op: 'replace', path: '/n', value: 3 }], opId: 'a' } },
      { kind: 'delta', delta: { baseRevision: 2n, patch: [{ op: 'add', path: '/x', value: 1 }, { op: 'remove', path: '/missing' }], opId: 'b' } },
      { kind: 'snapshot', snapshot: { baseRevision: 1n, document: { late: true } } },
      { kind: 'snapshot', snapshot: { baseRevision: 2n, document: { n: 10 } } },
    ];
    const state = reconstructState(records);
    expect(state.outcomes).toEqual(['applied', 'applied', 'duplicate', 'rejected', 'stale', 'applied']);
    expect(state.document).toEqual({ n: 10 });
    expect(state.revision).toBe(3n);
  });
  test('nothing until a record applies', () => {
    expect(reconstructState([]).document).toBeUndefined();
  });
});

describe('StateFold', () => {
  const records: StateRecord[] = [
    { kind: 'delta', delta: { baseRevision: 0n, patch: [{ op: 'add', path: '/n', value: 1 }], opId: 'a' } },
    { kind: 'delta', delta: { baseRevision: 1n, patch: [{ op: 'replace', path: '/n', value: 9 }], opId: 'a' } },
    { kind: 'snapshot', snapshot: { baseRevision: 1n, document: { n: 2 } } },
    { kind: 'delta', delta: { baseRevision: 2n, patch: [{ op: 'remove', path: '/missing' }], opId: 'b' } },
    { kind: 'delta', delta: { baseRevision: 2n, patch: [{ op: 'replace', path: '/n', value: 3 }], opId: 'c' } },
  ];
  test('record by record gives the outcomes and revision of reconstructState', () => {
    const fold = new StateFold();
    const outcomes = records.map((r) => fold.apply(r));
    const whole = reconstructState(records);
    expect(outcomes).toEqual(whole.outcomes);
    expect(fold.revision).toBe(whole.revision);
    expect(fold.document).toEqual(whole.document);
    expect(fold.appliedOpIds).toEqual(['a', 'c']);
  });
  test('a resumed fold continues as the whole fold does, duplicates included', () => {
    const first = new StateFold();
    for (const r of records.slice(0, 3)) first.apply(r);
    const resumed = StateFold.resume({ document: first.document, revision: first.revision, appliedOpIds: first.appliedOpIds });
    const rest = [...records.slice(3), records[0] as StateRecord].map((r) => resumed.apply(r));
    expect(rest).toEqual(['rejected', 'applied', 'duplicate']);
    expect(resumed.revision).toBe(reconstructState(records).revision);
  });
  test('a forgotten op id applies again; the others stay duplicates', () => {
    const fold = new StateFold();
    fold.apply(records[0] as StateRecord);
    expect(fold.forgetOpId('a')).toBe(true);
    expect(fold.forgetOpId('a')).toBe(false);
    expect(fold.appliedOpIds).toEqual([]);
    expect(fold.apply(records[1] as StateRecord)).toBe('applied');
    expect(fold.apply(records[1] as StateRecord)).toBe('duplicate');
    expect(fold.document).toEqual({ n: 9 });
  });
  test('resume refuses an impossible point', () => {
    expect(errorOf(() => StateFold.resume({ document: {}, revision: -1n, appliedOpIds: [] }))?.class).toBe('InvalidError');
    expect(errorOf(() => StateFold.resume({ document: {}, revision: 1n, appliedOpIds: ['a', 'b'] }))?.class).toBe('InvalidError');
  });
});
