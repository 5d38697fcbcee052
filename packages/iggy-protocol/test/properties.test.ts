// Property tests: random messages, headers and requests survive encode → decode in both protocols.
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  HEADER_KIND_CODES,
  decodePollMessagesRequest,
  decodePollMessagesResponse,
  decodeSendMessagesRequest,
  decodeUserHeaders,
  encodeMessageBatch,
  encodePollMessagesRequest,
  encodePollResponseClassic,
  encodePollResponseVsr,
  encodeSendMessagesRequest,
  encodeUserHeaders,
  initChecksums,
  stampMessageBatch,
} from '@agdx/iggy-protocol';
import type { HeaderKind, HeaderValue, Identifier, Partitioning, PollingStrategy } from '@agdx/iggy-protocol';

beforeAll(async () => {
  await initChecksums();
});

const SIZES: Partial<Record<HeaderKind, number>> = { bool: 1, int8: 1, int16: 2, int32: 4, int64: 8, int128: 16, uint8: 1, uint16: 2, uint32: 4, uint64: 8, uint128: 16, float32: 4, float64: 8 };
const kinds = Object.keys(HEADER_KIND_CODES) as HeaderKind[];

const headerValueArb: fc.Arbitrary<HeaderValue> = fc.constantFrom(...kinds).chain((kind): fc.Arbitrary<HeaderValue> => {
  if (kind === 'bool') return fc.boolean().map((b) => ({ kind, value: Uint8Array.of(b ? 1 : 0) }));
  if (kind === 'string') return fc.string({ minLength: 1, maxLength: 60 }).map((s) => ({ kind, value: new TextEncoder().encode(s) }));
  const size = SIZES[kind];
  return size === undefined ? fc.uint8Array({ minLength: 1, maxLength: 255 }).map((value) => ({ kind, value })) : fc.uint8Array({ minLength: size, maxLength: size }).map((value) => ({ kind, value }));
});
const headersArb = fc.uniqueArray(fc.tuple(fc.string({ minLength: 1, maxLength: 40 }), headerValueArb), { selector: ([k]) => k, maxLength: 6 }).map((e) => new Map(e));
const identifierArb: fc.Arbitrary<Identifier> = fc.oneof(fc.nat({ max: 0xffffffff }), fc.string({ minLength: 1, maxLength: 60 }));
const partitioningArb: fc.Arbitrary<Partitioning> = fc.oneof(
  fc.constant({ kind: 'balanced' } as const),
  fc.nat({ max: 0xffffffff }).map((partitionId) => ({ kind: 'partition', partitionId }) as const),
  fc.uint8Array({ minLength: 1, maxLength: 255 }).map((key) => ({ kind: 'key', key }) as const),
);
const u128 = fc.bigInt({ min: 1n, max: 2n ** 128n - 1n });
const messageArb = fc.record({
  id: u128,
  payload: fc.uint8Array({ maxLength: 300 }),
  headers: headersArb,
  originTimestamp: fc.bigInt({ min: 0n, max: 2n ** 32n - 1n }),
});

describe('properties', () => {
  it('user headers round-trip', () => {
    fc.assert(
      fc.property(headersArb, (h) => {
        expect(decodeUserHeaders(encodeUserHeaders(h))).toEqual(h);
      }),
      { seed: 7, numRuns: 200 },
    );
  });

  it.each(['vsr', 'classic'] as const)('send messages round-trip [%s]', (protocol) => {
    fc.assert(
      fc.property(identifierArb, identifierArb, partitioningArb, fc.array(messageArb, { minLength: 1, maxLength: 8 }), (stream, topic, p, messages) => {
        const d = decodeSendMessagesRequest(encodeSendMessagesRequest({ stream, topic, partitioning: p, messages }, protocol), protocol, { verifyChecksums: protocol === 'vsr' });
        expect(d.stream).toEqual(stream);
        expect(d.topic).toEqual(topic);
        expect(d.partitioning).toEqual(p);
        expect(d.messages.map((m) => ({ id: m.id, payload: m.payload.slice(), headers: decodeUserHeaders(m.rawHeaders), originTimestamp: m.originTimestamp }))).toEqual(messages);
      }),
      { seed: 11, numRuns: 150 },
    );
  });

  it.each(['vsr', 'classic'] as const)('poll replies round-trip [%s]', (protocol) => {
    fc.assert(
      fc.property(fc.array(messageArb, { minLength: 1, maxLength: 6 }), fc.bigInt({ min: 0n, max: 2n ** 40n }), (messages, base) => {
        const payload =
          protocol === 'vsr'
            ? encodePollResponseVsr(2, base + 10n, [stampMessageBatch(encodeMessageBatch(messages), { partitionId: 2, baseOffset: base, baseTimestamp: 99n })])
            : encodePollResponseClassic(2, base + 10n, messages.map((m, i) => ({ id: m.id, offset: base + BigInt(i), timestamp: 99n, originTimestamp: m.originTimestamp, payload: m.payload, rawHeaders: encodeUserHeaders(m.headers) })));
        const p = decodePollMessagesResponse(payload, protocol, { verifyChecksums: true });
        expect(p.messages.map((m) => [m.offset, m.timestamp, m.originTimestamp, m.id])).toEqual(messages.map((m, i) => [base + BigInt(i), 99n, m.originTimestamp, m.id]));
      }),
      { seed: 13, numRuns: 150 },
    );
  });

  it('poll requests round-trip', () => {
    const strategy: fc.Arbitrary<PollingStrategy> = fc.oneof(
      fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }).map((value) => ({ kind: 'offset', value }) as const),
      fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }).map((value) => ({ kind: 'timestamp', value }) as const),
      fc.constantFrom({ kind: 'first' } as const, { kind: 'last' } as const, { kind: 'next' } as const),
    );
    fc.assert(
      fc.property(fc.constantFrom('consumer', 'group' as const), identifierArb, identifierArb, identifierArb, fc.option(fc.nat({ max: 0xffffffff }), { nil: undefined }), strategy, fc.nat({ max: 0xffffffff }), fc.boolean(), (kind, id, stream, topic, partitionId, s, count, autoCommit) => {
        const req = { consumer: { kind: kind as 'consumer' | 'group', id }, stream, topic, strategy: s, count, autoCommit, ...(partitionId === undefined ? {} : { partitionId }) };
        expect(decodePollMessagesRequest(encodePollMessagesRequest(req))).toEqual(req);
      }),
      { seed: 17, numRuns: 200 },
    );
  });
});
