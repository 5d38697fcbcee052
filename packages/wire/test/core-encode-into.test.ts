// encodeEnvelopeInto / AgentEnvelope#encodeInto: the allocation-free send path writes the same
// canonical bytes as the published oracle into a caller's buffer, at any offset, touches nothing
// outside the bytes it reports, and refuses a buffer that is too small with a typed error.
import {
  AgentEnvelope,
  AgentId,
  ChannelId,
  ConversationId,
  CorrelationId,
  RecordId,
  decodeEnvelope,
  encodeEnvelope,
  encodeEnvelopeInto,
  InvalidError,
} from '@agdx/wire';
import { describe, expect, it } from 'vitest';
import { fromHex, loadOracle, toHex } from './support/fixtures.js';

interface OracleCase {
  readonly name: string;
  readonly cbor_hex: string;
  readonly receiver?: { readonly outcome?: string };
}

const cases = (loadOracle('envelopes').cases as OracleCase[]).filter((c) => c.cbor_hex !== undefined);
// Envelopes that decode strictly: the ones a sender could hold.
const decodable = cases.flatMap((c) => {
  try {
    return [{ name: c.name, bytes: fromHex(c.cbor_hex), envelope: decodeEnvelope(fromHex(c.cbor_hex)) }];
  } catch {
    return [];
  }
});

const sample = (): AgentEnvelope =>
  AgentEnvelope.command(
    RecordId.fromBigInt(1n),
    ConversationId.fromBigInt(2n),
    AgentId.new('planner'),
    CorrelationId.fromBigInt(3n),
    new Uint8Array(100).fill(7),
  );

describe('encodeEnvelopeInto', () => {
  it('writes the oracle bytes of every decodable oracle envelope, at offset 0 and at an odd offset', () => {
    expect(decodable.length).toBeGreaterThan(100);
    const target = new Uint8Array(Math.max(...decodable.map((d) => d.bytes.length)) + 32);
    for (const { name, bytes, envelope } of decodable) {
      for (const offset of [0, 13]) {
        target.fill(0xee);
        const n = encodeEnvelopeInto(envelope, target, offset);
        expect(n, name).toBe(bytes.length);
        expect(toHex(target.subarray(offset, offset + n)), name).toBe(toHex(bytes));
        // Nothing before or after the reported span changed.
        expect(target.subarray(0, offset).every((b) => b === 0xee), name).toBe(true);
        expect(target[offset + n], name).toBe(0xee);
      }
    }
  });

  it('fits exactly: a target of the encoded size works, one byte less is refused with a typed error', () => {
    const e = sample();
    const size = encodeEnvelope(e).length;
    expect(encodeEnvelopeInto(e, new Uint8Array(size))).toBe(size);
    expect(e.encodeInto(new Uint8Array(size + 5), 5)).toBe(size);
    for (const room of [0, 1, 17, size - 101, size - 1]) {
      let error: unknown;
      try {
        encodeEnvelopeInto(e, new Uint8Array(room));
      } catch (err) {
        error = err;
      }
      expect(error, `room ${room}`).toBeInstanceOf(InvalidError);
      const ctx = (error as InvalidError).context as { field: string; room: number; atLeast: number };
      expect(ctx.field).toBe('target');
      expect(ctx.room).toBe(room);
      expect(ctx.atLeast).toBeGreaterThan(room);
      expect(ctx.atLeast).toBeLessThanOrEqual(size);
    }
  });

  it('fits exactly whatever item ends the encoding (a short head, a float of each width, a tiny body)', () => {
    // A terminal chunk may end without a body, so its last item is whatever closes usage or metadata.
    const terminal = AgentEnvelope.chunk(
      ConversationId.fromBigInt(5n),
      AgentId.new('a'),
      CorrelationId.fromBigInt(6n),
      ChannelId.fromBigInt(7n),
      3,
      new Uint8Array(0),
    ).with({ last: true });
    const endings: AgentEnvelope[] = [
      terminal.withUsage({ inputTokens: 1n, outputTokens: 2n }),
      terminal.withUsage({ inputTokens: 1n, outputTokens: 1n << 40n }),
      terminal.withMetadata('half', 1.5),
      terminal.withMetadata('single', 0.15625 + 2 ** -20),
      terminal.withMetadata('double', 0.1),
      terminal.withMetadata('int', 3n),
      terminal.withMetadata('text', 'x'),
      terminal.withMetadata('list', [null, true]),
      sample().with({ body: new Uint8Array([9]) }),
    ];
    for (const [i, e] of endings.entries()) {
      const want = encodeEnvelope(e);
      const exact = new Uint8Array(want.length);
      expect(e.encodeInto(exact), `ending ${i}`).toBe(want.length);
      expect(toHex(exact), `ending ${i}`).toBe(toHex(want));
      expect(() => e.encodeInto(new Uint8Array(want.length - 1)), `ending ${i}`).toThrow(/only \d+ are left/);
    }
  });

  it('refuses a target that is not a Uint8Array and offsets outside it', () => {
    const e = sample();
    const target = new Uint8Array(1024);
    for (const offset of [-1, 1.5, 1025, Number.NaN]) {
      expect(() => encodeEnvelopeInto(e, target, offset)).toThrow(InvalidError);
    }
    expect(() => encodeEnvelopeInto(e, [] as unknown as Uint8Array)).toThrow(InvalidError);
    // An offset at the very end is allowed; the encoding then does not fit.
    expect(() => encodeEnvelopeInto(e, target, 1024)).toThrow(/only 0 are left/);
  });

  it('AgentEnvelope#encodeInto validates first, naming the field', () => {
    const bad = AgentEnvelope.fromFields({ kind: 'command', conversation: ConversationId.fromBigInt(2n), source: AgentId.new('a') });
    const target = new Uint8Array(256);
    try {
      bad.encodeInto(target);
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(InvalidError);
      expect((err as InvalidError).context?.field).toBe('record');
    }
  });

  it('is usable again after a failure, and encode() results kept before stay intact', () => {
    const e = sample();
    const kept = encodeEnvelope(e);
    const before = toHex(kept);
    expect(() => encodeEnvelopeInto(e, new Uint8Array(10))).toThrow(InvalidError);
    const target = new Uint8Array(512);
    const n = encodeEnvelopeInto(e, target, 0);
    expect(toHex(target.subarray(0, n))).toBe(before);
    expect(toHex(kept)).toBe(before);
  });
});
