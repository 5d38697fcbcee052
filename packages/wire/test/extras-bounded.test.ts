/**
 * Bounded decoding (issue 19): declared counts and lengths are checked against the bytes left and
 * the caps before anything is allocated, per-type caps hold while decoding, and the strict reader
 * still agrees with cbor2 (the library it replaced for capsules) on every input both can judge.
 */
import { decode as cbor2Decode, encode as cbor2Encode } from 'cbor2';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import {
  AgdxError,
  AgentEnvelope,
  AgentId,
  CAPSULE_LIMITS,
  CodecError,
  ConversationId,
  CorrelationId,
  decodeAgentErrorBody,
  decodeEnvelope,
  decodeSessionHeartbeat,
  decodeSessionPauseRequest,
  decodeSessionStart,
  decodeStrictCbor,
  DEFAULT_MAX_CBOR_ITEMS,
  encodeCbor,
  encodeEnvelope,
  InvalidError,
  MAX_PAUSE_REQUEST_BYTES,
  MintUlid,
  RecordId,
  type CborValue,
} from '@agdx/wire';

const CBOR2_STRICT = {
  preferMap: true,
  preferBigInt: true,
  rejectDuplicateKeys: true,
  rejectStreaming: true,
  requirePreferred: true,
  rejectUndefined: true,
  rejectSimple: true,
  ignoreGlobalTags: true,
} as const;

function head(major: number, n: number): number[] {
  const m = major << 5;
  if (n < 24) return [m | n];
  if (n < 0x100) return [m | 24, n];
  if (n < 0x10000) return [m | 25, n >> 8, n & 0xff];
  return [m | 26, (n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff];
}

function caught(run: () => unknown): AgdxError {
  try {
    run();
  } catch (error) {
    if (AgdxError.is(error)) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('strict CBOR reader: caps at the head', () => {
  test('an array declaring more items than the cap is refused before it is built, naming the cap', () => {
    const bytes = new Uint8Array(DEFAULT_MAX_CBOR_ITEMS + 10);
    bytes.set(head(4, DEFAULT_MAX_CBOR_ITEMS + 1));
    const error = caught(() => decodeStrictCbor(bytes));
    expect(error).toBeInstanceOf(CodecError);
    expect(error.context).toMatchObject({ limit: 'items', cap: DEFAULT_MAX_CBOR_ITEMS });
    // Under the cap the same shape decodes.
    expect((decodeStrictCbor(bytes.subarray(0, 2 + 100).map((b, i) => (i === 0 ? 0x98 : i === 1 ? 100 : 0))) as unknown[]).length).toBe(100);
  });

  test('a count larger than the bytes left is refused without allocating', () => {
    for (const bytes of [
      Uint8Array.of(0x9a, 0xff, 0xff, 0xff, 0xff, 0),
      Uint8Array.of(0xba, 0x00, 0x01, 0x00, 0x00, 0x60, 0),
      Uint8Array.of(0x5b, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff),
      Uint8Array.of(0x7a, 0x00, 0x10, 0x00, 0x00, 0x61),
    ]) {
      expect(caught(() => decodeStrictCbor(bytes))).toBeInstanceOf(CodecError);
    }
  });

  test('nesting deeper than the cap is refused with the depth named', () => {
    const deep = new Uint8Array(200).fill(0x81);
    deep[199] = 0;
    expect(caught(() => decodeStrictCbor(deep)).context).toMatchObject({ limit: 'depth', cap: 64 });
    expect(decodeStrictCbor(deep, { maxDepth: 500 })).toBeInstanceOf(Array);
  });

  test('a caller may raise or lower the item cap', () => {
    const ten = Uint8Array.of(0x8a, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    expect(caught(() => decodeStrictCbor(ten, { maxItems: 10 })).context).toMatchObject({ limit: 'items', cap: 10 });
    expect(decodeStrictCbor(ten, { maxItems: 11 })).toHaveLength(10);
  });

  test('agrees with cbor2 on generated values and on random bytes (accept and refuse alike)', () => {
    const value: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
      item: fc.oneof(
        { depthSize: 'small' },
        fc.bigInt({ min: -(1n << 64n), max: (1n << 64n) - 1n }),
        fc.double(),
        fc.string(),
        fc.uint8Array({ maxLength: 8 }),
        fc.constantFrom(true, false, null),
        fc.array(tie('item'), { maxLength: 4 }),
        fc.uniqueArray(fc.tuple(fc.string({ maxLength: 4 }), tie('item')), { maxLength: 4, selector: ([k]) => k }).map((entries) => new Map(entries)),
      ),
    })).item;
    fc.assert(
      fc.property(value, (v) => {
        const bytes = cbor2Encode(v as never, { avoidInts: true });
        expect(decodeStrictCbor(bytes)).toEqual(cbor2Decode(bytes, CBOR2_STRICT));
      }),
      { seed: 1919, numRuns: 400 },
    );
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 24 }), (bytes) => {
        let theirs: unknown;
        let theyRefused = false;
        try {
          theirs = cbor2Decode(bytes, CBOR2_STRICT);
        } catch {
          theyRefused = true;
        }
        let ours: unknown;
        try {
          ours = decodeStrictCbor(bytes);
        } catch (error) {
          expect(error).toBeInstanceOf(CodecError);
          // Tags and simple values cbor2 leaves to its caller are refused by both readers in the end.
          if (!theyRefused) expect(JSON.stringify(theirs, (_k, x: unknown) => (typeof x === 'bigint' ? x.toString() : x))).toMatch(/tag|Simple|\{/);
          return;
        }
        expect(theyRefused).toBe(false);
        expect(ours).toEqual(theirs);
      }),
      { seed: 1920, numRuns: 3_000 },
    );
  });
});

describe('per-type caps while decoding', () => {
  function envelopeWithMetadata(metadata: Uint8Array): Uint8Array {
    const base = encodeEnvelope(AgentEnvelope.command(MintUlid.mint(RecordId), ConversationId.derive('m'), AgentId.new('a'), MintUlid.mint(CorrelationId), new Uint8Array(0)));
    const count = (base[0] as number) & 0x1f;
    return new Uint8Array([...head(5, count + 1), ...base.subarray(1), 0x68, ...new TextEncoder().encode('metadata'), ...metadata]);
  }

  test('envelope metadata over 32 entries is refused when the count is read, with the validation wording', () => {
    const error = caught(() => decodeEnvelope(envelopeWithMetadata(Uint8Array.of(...head(5, 1_000_000)))));
    expect(error).toBeInstanceOf(InvalidError);
    expect(error.message).toBe('`metadata` is 1000000 entries, exceeds cap 32');
  });

  test('a metadata value or total over its cap is refused as its length is read', () => {
    const longList = Uint8Array.of(...head(5, 1), 0x61, 0x6b, ...head(4, 5_000), ...new Uint8Array(5_000));
    expect(caught(() => decodeEnvelope(envelopeWithMetadata(longList))).message).toBe('`metadata value` is at least 5000B, exceeds cap 1024B');
    const exact = Uint8Array.of(...head(5, 1), 0x61, 0x6b, ...head(3, 1025), ...new Uint8Array(1025).fill(0x61));
    expect(caught(() => decodeEnvelope(envelopeWithMetadata(exact))).message).toBe('`metadata value` is 1025B, exceeds cap 1024B');
    const entries: number[] = [...head(5, 9)];
    for (let i = 0; i < 9; i++) entries.push(0x61, 0x61 + i, ...head(3, 1000), ...new Array<number>(1000).fill(0x62));
    expect(caught(() => decodeEnvelope(envelopeWithMetadata(Uint8Array.from(entries)))).message).toBe('`metadata` is 9009B, exceeds cap 8192B');
  });

  test('session tags over 16 are refused at the count', () => {
    const body = Uint8Array.of(...head(5, 3), 0x65, ...new TextEncoder().encode('agent'), 0x61, 0x61, 0x63, ...new TextEncoder().encode('sdk'),
      ...head(5, 2), 0x68, ...new TextEncoder().encode('language'), 0x62, 0x74, 0x73, 0x67, ...new TextEncoder().encode('version'), 0x61, 0x31,
      0x64, ...new TextEncoder().encode('tags'), ...head(4, 1_000));
    expect(caught(() => decodeSessionStart(body)).message).toBe('session has too many tags');
  });

  test('capsule caps: heartbeat and error body item caps, pause request byte cap', () => {
    const heartbeat = encodeCbor(
      new Map<CborValue, CborValue>([['process', 'p'], ['stream', 's'], ['sessions', Array.from({ length: CAPSULE_LIMITS.sessionHeartbeat.maxItems }, () => new Uint8Array(16))]]),
    );
    expect(caught(() => decodeSessionHeartbeat(heartbeat)).context).toMatchObject({ limit: 'items', cap: CAPSULE_LIMITS.sessionHeartbeat.maxItems });
    const detail = new Map(Array.from({ length: CAPSULE_LIMITS.errorBody.maxItems / 2 }, (_, i) => [`k${i}`, 0n] as [string, bigint]));
    expect(caught(() => decodeAgentErrorBody(encodeCbor(new Map<CborValue, CborValue>([['code', 1n], ['detail', detail]])))).context?.['limit']).toBe('items');
    const pause = new TextEncoder().encode(`{"participants":[${'"a",'.repeat(MAX_PAUSE_REQUEST_BYTES / 4)}"a"]}`);
    expect(caught(() => decodeSessionPauseRequest(pause)).message).toBe('invalid session pause request');
  });
});
