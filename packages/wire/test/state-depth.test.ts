import { describe, expect, test } from 'vitest';
import {
  AgdxError,
  applyJsonPatch,
  decodeStateSnapshot,
  encodeStateDelta,
  encodeStateSnapshot,
  decodeStateDelta,
  MAX_STATE_DEPTH,
  nestsDeeperThan,
  reconstructState,
  StateFold,
  type JsonValue,
  type StateRecord,
} from '@agdx/wire';

/** `levels` nested objects: `{ a: { a: ... {} } }`, built without recursion. */
function nested(levels: number): JsonValue {
  let value: JsonValue = {};
  for (let i = 1; i < levels; i++) value = { a: value };
  return value;
}

/** The pointer to the innermost object of a document that `levels` nested objects built from the root. */
function innermost(levels: number): string {
  return '/a'.repeat(levels - 1);
}

function delta(fold: StateFold, opId: string, patch: unknown[]): StateRecord {
  // Through the capsule, as a record on the log would arrive.
  return { kind: 'delta', delta: decodeStateDelta(encodeStateDelta({ baseRevision: fold.revision, opId, patch: patch as never })) };
}

describe('state documents never nest deeper than a snapshot can carry', () => {
  test('a document at the cap snapshots and decodes; one level more is refused by the snapshot decoder', () => {
    const atCap = nested(MAX_STATE_DEPTH);
    expect(decodeStateSnapshot(encodeStateSnapshot({ baseRevision: 0n, document: atCap })).document).toEqual(atCap);
    expect(() => decodeStateSnapshot(encodeStateSnapshot({ baseRevision: 0n, document: nested(MAX_STATE_DEPTH + 1) }))).toThrow(AgdxError);
  });

  test('deltas that each stay shallow cannot build a document past the cap; the one that would is rejected and the fold goes on', () => {
    const fold = new StateFold();
    const step = 10;
    let levels = 1;
    let n = 0;
    // Each delta adds `step` levels under the innermost object, until the next would cross the cap.
    while (levels + step <= MAX_STATE_DEPTH) {
      expect(fold.apply(delta(fold, `grow-${n++}`, [{ op: 'add', path: `${innermost(levels)}/a`, value: nested(step) }]))).toBe('applied');
      levels += step;
    }
    const before = fold.document;
    const revision = fold.revision;
    expect(fold.apply(delta(fold, 'too-deep', [{ op: 'add', path: `${innermost(levels)}/a`, value: nested(step) }]))).toBe('rejected');
    expect(fold.document).toBe(before);
    expect(fold.revision).toBe(revision);
    // The document still folds, snapshots and serializes, and later deltas apply.
    expect(fold.apply(delta(fold, 'after', [{ op: 'add', path: '/b', value: 1 }]))).toBe('applied');
    expect(nestsDeeperThan(fold.document, MAX_STATE_DEPTH)).toBe(false);
    expect(() => JSON.stringify(fold.document)).not.toThrow();
    const document = fold.document as JsonValue;
    expect(decodeStateSnapshot(encodeStateSnapshot({ baseRevision: 0n, document })).document).toEqual(document);
  });

  test('the cap counts where the value lands: add, replace, copy and move', () => {
    const doc = { deep: nested(MAX_STATE_DEPTH - 1), top: {} } as JsonValue;
    const lastLevel = `/deep${innermost(MAX_STATE_DEPTH - 1)}`;
    // A scalar at the innermost object is fine; an object there is one level too many.
    expect(() => applyJsonPatch(doc, [{ op: 'add', path: `${lastLevel}/x`, value: 1 }])).not.toThrow();
    for (const op of ['add', 'replace'] as const) {
      const path = op === 'add' ? `${lastLevel}/x` : `${lastLevel}`;
      const err = (() => {
        try {
          applyJsonPatch(doc, [{ op, path, value: op === 'add' ? {} : nested(2) }]);
        } catch (error) {
          return error;
        }
        return undefined;
      })();
      expect(AgdxError.is(err, 'invalid')).toBe(true);
      expect((err as Error).message).toBe(`JSON Patch value at \`${path}\` would nest the document deeper than ${MAX_STATE_DEPTH} levels`);
    }
    // Copying the deep branch under `top` would add a level; copying a shallow one is fine.
    expect(() => applyJsonPatch(doc, [{ op: 'copy', from: '/deep', path: '/top/again' }])).toThrow(/would nest the document deeper/);
    expect(() => applyJsonPatch(doc, [{ op: 'move', from: '/deep', path: '/top/again' }])).toThrow(/would nest the document deeper/);
    expect(applyJsonPatch(doc, [{ op: 'copy', from: '/top', path: '/deep/again' }])).toMatchObject({ deep: { again: {} } });
    // The document handed in is never changed.
    expect(doc).toEqual({ deep: nested(MAX_STATE_DEPTH - 1), top: {} });
  });

  test('hostile operands and documents are refused typed, never with a stack overflow', () => {
    const veryDeep = nested(100_000);
    for (const patch of [
      [{ op: 'add', path: '/x', value: veryDeep }],
      [{ op: 'replace', path: '', value: veryDeep }],
      [{ op: 'test', path: '', value: veryDeep }],
    ]) {
      let thrown: unknown;
      try {
        applyJsonPatch({}, patch);
      } catch (error) {
        thrown = error;
      }
      expect(AgdxError.is(thrown, 'invalid')).toBe(true);
    }
    let thrown: unknown;
    try {
      applyJsonPatch(veryDeep, [{ op: 'add', path: '/b', value: 1 }]);
    } catch (error) {
      thrown = error;
    }
    expect(AgdxError.is(thrown, 'invalid')).toBe(true);
  });

  test('reconstructState agrees with the one-record fold on the rejected delta', () => {
    const fold = new StateFold();
    // `/a` holds MAX - 2 levels, so the document nests MAX - 1; its innermost object is MAX - 2 steps down.
    const records: StateRecord[] = [delta(fold, 'base', [{ op: 'add', path: '/a', value: nested(MAX_STATE_DEPTH - 2) }])];
    expect(fold.apply(records[0] as StateRecord)).toBe('applied');
    const inner = `/a${innermost(MAX_STATE_DEPTH - 2)}`;
    records.push(delta(fold, 'to-the-cap', [{ op: 'add', path: `${inner}/x`, value: {} }]));
    expect(fold.apply(records[1] as StateRecord)).toBe('applied');
    records.push(delta(fold, 'past-the-cap', [{ op: 'add', path: `${inner}/y`, value: nested(2) }]));
    expect(fold.apply(records[2] as StateRecord)).toBe('rejected');
    const { outcomes, document, revision } = reconstructState(records);
    expect(outcomes).toEqual(['applied', 'applied', 'rejected']);
    expect(revision).toBe(fold.revision);
    expect(document).toEqual(fold.document);
    expect(nestsDeeperThan(document, MAX_STATE_DEPTH)).toBe(false);
    expect(nestsDeeperThan(document, MAX_STATE_DEPTH - 1)).toBe(true);
  });
});

describe('nestsDeeperThan', () => {
  test.each([
    [1, 0, false],
    [{}, 0, true],
    [{}, 1, false],
    [[[]], 1, true],
    [[[]], 2, false],
    [{ a: [1, { b: 'x' }] }, 3, false],
    [{ a: [1, { b: {} }] }, 3, true],
  ])('%j nests deeper than %d: %s', (value, limit, expected) => {
    expect(nestsDeeperThan(value, limit)).toBe(expected);
  });
});
