import {
  AgdxError,
  AgentEnvelope,
  AgentId,
  ChannelId,
  ContentType,
  contentId,
  contentTypeFromCode,
  contentTypeName,
  ConversationId,
  CorrelationId,
  decodeCrockford,
  encodeCrockford,
  IdempotencyKey,
  LogPosition,
  MessageId,
  MintUlid,
  RecordId,
  UlidGenerator,
  ulidBytes,
} from '@agdx/wire';
import { afterEach, describe, expect, it } from 'vitest';
import { checkDivergences, type Outcome } from './support/divergences.js';
import { fromHex, loadOracle, toHex } from './support/fixtures.js';

const file = loadOracle('ids');
const S = file.sections as Record<string, any[]>;
const HANDLED = [
  'crockford_encode',
  'parse',
  'from_bytes',
  'mint_ulid',
  'conversation_derive',
  'agent_ids',
  'idempotency_keys',
  'message_ids',
  'log_positions',
  'content_ids',
  'content_types',
];

function errorOf(fn: () => unknown): AgdxError | undefined {
  try {
    fn();
    return undefined;
  } catch (e) {
    if (!AgdxError.is(e)) throw e;
    return e;
  }
}

describe('oracle ids.json', () => {
  it('is the 0.1.1 ids family and every section is handled', () => {
    expect(file.reference.version).toBe('0.1.1');
    expect(Object.keys(S).sort()).toEqual([...HANDLED].sort());
    for (const name of HANDLED) expect(S[name]!.length, name).toBe(file.counts[name]);
  });

  it('crockford_encode: value → bytes → canonical text and back', () => {
    for (const c of S.crockford_encode!) {
      const id = RecordId.fromBigInt(BigInt(c.value));
      expect(toHex(id.toBytes()), c.id).toBe(c.bytes_hex);
      expect(id.toString(), c.id).toBe(c.canonical);
      expect(encodeCrockford(fromHex(c.bytes_hex)), c.id).toBe(c.canonical);
      expect(toHex(decodeCrockford(c.canonical)), c.id).toBe(c.bytes_hex);
      expect(RecordId.parse(c.canonical).toBigInt().toString(), c.id).toBe(c.value);
    }
  });

  it('parse: ASCII-only Crockford with the reference messages; ſ is refused (listed divergence)', () => {
    const outcomes = new Map<string, Outcome>();
    for (const c of S.parse!) {
      const classes = [
        { parse: (t: string) => RecordId.parse(t), tryParse: (t: string) => RecordId.tryParse(t) },
        { parse: (t: string) => ConversationId.parse(t), tryParse: (t: string) => ConversationId.tryParse(t) },
        { parse: (t: string) => CorrelationId.parse(t), tryParse: (t: string) => CorrelationId.tryParse(t) },
        { parse: (t: string) => ChannelId.parse(t), tryParse: (t: string) => ChannelId.tryParse(t) },
      ];
      for (const cls of classes) {
        const err = errorOf(() => cls.parse(c.input));
        if (err === undefined) {
          expect(cls.tryParse(c.input)?.toString(), c.id).toBe(cls.parse(c.input).toString());
        } else {
          expect(err.kind, c.id).toBe('invalid');
          expect(cls.tryParse(c.input), c.id).toBeUndefined();
        }
      }
      const err = errorOf(() => RecordId.parse(c.input));
      let matches: boolean;
      let ours: string;
      if (err === undefined) {
        const id = RecordId.parse(c.input);
        ours = `accept:${id.toString()}`;
        matches = c.ok === true && id.toString() === c.canonical && toHex(id.toBytes()) === c.bytes_hex && id.toBigInt().toString() === c.value;
      } else {
        ours = `reject:${err.message}`;
        matches = c.ok === false && err.message === c.wire_error.message;
        if (matches) expect(err.context, c.id).toEqual(c.wire_error.context);
      }
      // The scenario name: the quirk it shows, else the input itself.
      outcomes.set(c.id, { matches, ours, name: c.reference_quirk ?? c.input });
    }
    checkDivergences('ids', file.split, outcomes);
  });

  it('from_bytes: only 16 bytes', () => {
    for (const c of S.from_bytes!) {
      const err = errorOf(() => RecordId.fromBytes(fromHex(c.bytes_hex)));
      if (c.ok) {
        expect(err, c.id).toBeUndefined();
        expect(RecordId.fromBytes(fromHex(c.bytes_hex)).toString(), c.id).toBe(c.canonical);
      } else {
        expect(err?.message, c.id).toBe(c.error.message);
        expect(err?.context, c.id).toEqual(c.error.context);
      }
    }
  });

  describe('mint_ulid', () => {
    afterEach(() => MintUlid.setSource(undefined));

    it('(now_ms, random) → 48-bit ms << 80 | random', () => {
      for (const c of S.mint_ulid!) {
        expect(toHex(ulidBytes(c.now_ms, fromHex(c.random_hex))), c.id).toBe(c.bytes_hex);
        // The same layout through the pluggable source (a fresh generator per case).
        const gen = new UlidGenerator({ nowMilliseconds: () => c.now_ms, fillRandom: (b) => b.set(fromHex(c.random_hex)) });
        expect(toHex(gen.next()), c.id).toBe(c.bytes_hex);
        MintUlid.setSource({ nowMilliseconds: () => c.now_ms, fillRandom: (b) => b.set(fromHex(c.random_hex)) });
        const id = MintUlid.mint(CorrelationId);
        expect(id, c.id).toBeInstanceOf(CorrelationId);
        expect(id.toString(), c.id).toBe(c.canonical);
        expect(id.toBigInt().toString(), c.id).toBe(c.value);
      }
    });

    it('is monotonic within one millisecond (previous random + 1)', () => {
      MintUlid.setSource({ nowMilliseconds: () => 1_700_000_000_000, fillRandom: (b) => b.fill(0xff, 0, 9).fill(0xfe, 9) });
      const a = MintUlid.mint(RecordId);
      const b = MintUlid.mint(RecordId);
      const c = MintUlid.mint(RecordId);
      expect(b.toBigInt()).toBe(a.toBigInt() + 1n);
      // The 80-bit tail overflows: the generator borrows the next millisecond.
      expect(c.toBigInt() >> 80n).toBe((a.toBigInt() >> 80n) + 1n);
      expect(c.toBigInt() > b.toBigInt()).toBe(true);
    });

    it('ConversationId.new() mints fresh, increasing ULIDs with the real source', () => {
      const ids = Array.from({ length: 1000 }, () => ConversationId.new().toBigInt());
      for (let i = 1; i < ids.length; i++) expect(ids[i]! > ids[i - 1]!).toBe(true);
      expect(Number(ids[0]! >> 80n)).toBeGreaterThan(Date.now() - 60_000);
    });
  });

  it('conversation_derive: ConversationId.derive(seed)', () => {
    for (const c of S.conversation_derive!) {
      const id = ConversationId.derive(c.seed);
      expect(id.toString(), c.id).toBe(c.conversation);
      expect(toHex(id.toBytes()), c.id).toBe(c.bytes_hex);
    }
    expect(ConversationId.derive('agent-42').toString()).toBe('20VH546TPK5Z0M43D0HMXFF42R');
    expect(ConversationId.derive('').toString()).toBe('085WKGFD78JN1GGBX80YTEJW3P');
  });

  it('agent_ids: wire rule (parse, ≤256B) and SDK rule (new, ≤255B)', () => {
    for (const c of S.agent_ids!) {
      for (const [verdict, fn] of [
        [c.wire, () => AgentId.parse(c.input)],
        [c.sdk, () => AgentId.new(c.input)],
      ] as const) {
        const err = errorOf(fn);
        if (verdict.ok) expect(err?.message, c.id).toBeUndefined();
        else {
          expect(err?.message, c.id).toBe(verdict.error.message);
          expect(err?.kind, c.id).toBe(verdict.error.kind);
        }
      }
    }
  });

  it('idempotency_keys: 1..64 UTF-8 bytes', () => {
    for (const c of S.idempotency_keys!) {
      const err = errorOf(() => IdempotencyKey.new(c.input));
      if (c.ok) expect(IdempotencyKey.new(c.input).value, c.id).toBe(c.input);
      else expect(err?.message, c.id).toBe(c.error.message);
    }
  });

  it('message_ids: <partition>:<offset> canonical decimal', () => {
    for (const c of S.message_ids!) {
      const err = errorOf(() => MessageId.parse(c.input));
      if (c.ok) {
        const m = MessageId.parse(c.input);
        expect(m.partitionId, c.id).toBe(c.partition_id);
        expect(m.offset.toString(), c.id).toBe(c.offset);
        expect(m.toString(), c.id).toBe(c.formatted);
      } else {
        expect(err?.message, c.id).toBe(c.error.message);
      }
    }
  });

  it('log_positions: 20 big-endian bytes', () => {
    for (const c of S.log_positions!) {
      if (c.ok === false) {
        const err = errorOf(() => LogPosition.fromBytes(fromHex(c.bytes_hex)));
        expect(err?.message, c.id).toBe(c.error.message);
        expect(err?.context, c.id).toEqual(c.error.context);
        continue;
      }
      const p = c.position;
      const pos = new LogPosition(p.stream_id, p.topic_id, p.partition_id, BigInt(p.offset));
      expect(toHex(pos.toBytes()), c.id).toBe(c.bytes_hex);
      expect(LogPosition.fromBytes(fromHex(c.bytes_hex)).equals(pos), c.id).toBe(true);
    }
  });

  it('log positions read and write byte by byte as a DataView would, at any offset of a buffer', () => {
    const offsets = [0n, 1n, 0xffn, 0xffffffffn, 0x100000000n, 0x0123456789abcdefn, (1n << 64n) - 1n];
    for (const offset of offsets) {
      const pos = new LogPosition(0xfedcba98, 1, 0xffffffff, offset);
      const out = new Uint8Array(27).fill(0xaa);
      pos.writeTo(out, 3);
      const view = new DataView(out.buffer, 3, 20);
      expect([view.getUint32(0), view.getUint32(4), view.getUint32(8), view.getBigUint64(12)]).toEqual([0xfedcba98, 1, 0xffffffff, offset]);
      expect([...out.subarray(0, 3), ...out.subarray(23)]).toEqual([0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa]);
      const read = LogPosition.fromBytes(out.subarray(3, 23));
      expect(read.equals(pos)).toBe(true);
      const envelope = AgentEnvelope.response(MintUlid.mint(RecordId), ConversationId.new(), AgentId.new('a'), MintUlid.mint(CorrelationId), new Uint8Array([1])).withCause(MintUlid.mint(RecordId), pos);
      expect(AgentEnvelope.decode(envelope.encode()).causeAt?.equals(pos)).toBe(true);
    }
  });

  it('content_ids: FNV-1a salted 0x4d / 0xc7 over the segments', () => {
    for (const c of S.content_ids!) {
      const id = contentId((c.segments_hex as string[]).map(fromHex));
      expect(toHex(id.toBytes()), c.id).toBe(c.hex);
      expect(id.toString(), c.id).toBe(c.canonical);
      expect(id.toBigInt().toString(), c.id).toBe(c.value);
    }
  });

  it('content_types: agdx.ct codes', () => {
    for (const c of S.content_types!) {
      expect(contentTypeName(c.code) ?? null, c.id).toBe(c.name);
      if (c.name !== null) {
        expect(ContentType[c.name as keyof typeof ContentType], c.id).toBe(c.code);
        expect(contentTypeFromCode(c.code), c.id).toBe(c.code);
      } else expect(contentTypeFromCode(c.code), c.id).toBeUndefined();
    }
  });
});
