// Random producer messages for the encoders' differential tests: any mix of payload sizes, ids
// (absent, 0, 64- and 128-bit), header maps or raw header blocks (never both), and origin
// timestamps from the range a test chooses.
import fc from 'fast-check';
import { encodeUserHeaders } from '@agdx/iggy-protocol';
import type { HeaderValue, OutgoingMessage } from '@agdx/iggy-protocol';

/** Up to three raw-valued headers with distinct keys. */
export const headerMapArb: fc.Arbitrary<Map<string, HeaderValue>> = fc
  .uniqueArray(fc.tuple(fc.string({ minLength: 1, maxLength: 12 }), fc.uint8Array({ minLength: 1, maxLength: 40 })), { selector: ([k]) => k, maxLength: 3 })
  .map((entries) => new Map<string, HeaderValue>(entries.map(([k, v]) => [k, { kind: 'raw', value: v }])));

/** A message with a payload and any of the optional fields, origin timestamps from `originTimestamp`. */
export function outgoingMessageArb(originTimestamp: fc.Arbitrary<bigint>): fc.Arbitrary<OutgoingMessage> {
  return fc
    .record(
      {
        payload: fc.uint8Array({ maxLength: 300 }),
        id: fc.oneof(fc.constant(0n), fc.bigInt({ min: 1n, max: (1n << 128n) - 1n }), fc.bigInt({ min: 1n, max: (1n << 64n) - 1n })),
        headers: headerMapArb,
        rawHeaders: headerMapArb.filter((h) => h.size > 0).map((h) => encodeUserHeaders(h)),
        originTimestamp,
      },
      { requiredKeys: ['payload'] },
    )
    .filter((m) => !(m.headers !== undefined && m.rawHeaders !== undefined));
}
