import { AgdxError, AgentEnvelope, AgentId, ConversationId, decodeEnvelope, encodeEnvelope, encodeSignatureContext, RecordId } from '@agdx/wire';
import { encode as cborEncode } from 'cbor2';
import { describe, expect, it } from 'vitest';
import { fromHex, toHex } from './support/fixtures.js';

const rec = RecordId.fromBigInt(1n);
const conv = ConversationId.fromBigInt(2n);
const src = AgentId.new('a');

function entries(...kv: [string, unknown][]): Map<string, unknown> {
  return new Map(kv);
}

const baseEvent = (): [string, unknown][] => [
  ['kind', 'event'],
  ['record', rec.toBytes()],
  ['conversation', conv.toBytes()],
  ['source', 'a'],
  ['body', new Uint8Array([1])],
];

function codecError(bytes: Uint8Array): AgdxError {
  try {
    decodeEnvelope(bytes);
  } catch (e) {
    if (!AgdxError.is(e)) throw e;
    return e;
  }
  throw new Error('expected a decode error');
}

describe('strict reader', () => {
  it('rejects duplicate keys at any depth', () => {
    // metadata {"a":1,"a":2} built by hand (a Map cannot hold duplicates)
    const head = cborEncode(entries(...baseEvent()));
    const dupMeta = fromHex('686d65746164617461a2616101616102');
    const bytes = new Uint8Array([0xa6, ...head.slice(1), ...dupMeta]);
    expect(codecError(bytes).message).toBe('failed to decode agent envelope');
    // duplicates inside an ignored unknown field are refused too
    const unknown = fromHex('63787878a2616101616102');
    expect(codecError(new Uint8Array([0xa6, ...head.slice(1), ...unknown])).kind).toBe('codec');
  });

  it('accepts indefinite maps/arrays and re-encodes them definite; rejects indefinite strings', () => {
    const canonical = AgentEnvelope.event(rec, conv, src, new Uint8Array([1])).withMetadata('l', [1n, 'x']);
    const bytes = encodeEnvelope(canonical);
    const hex = toHex(bytes);
    // bf … ff for the top map, 9f … ff for the metadata list
    const indefinite = `${hex.replace(/^a6/, 'bf').replace('82016178', '9f016178ff')}ff`;
    expect(indefinite).not.toBe(hex);
    const back = decodeEnvelope(fromHex(indefinite));
    expect(toHex(encodeEnvelope(back))).toBe(hex);
    const indefText = toHex(cborEncode(entries(...baseEvent()))).replace('66736f757263656161', '66736f757263657f6161ff');
    expect(codecError(fromHex(indefText)).message).toBe('failed to decode agent envelope');
  });

  it('rejects tags, floats for integer fields, invalid UTF-8, non-minimal heads and trailing bytes', () => {
    const withDeadline = (value: string): Uint8Array =>
      fromHex(toHex(cborEncode(entries(...baseEvent()))).replace(/^a5/, 'a6') + '6f646561646c696e655f6d6963726f73' + value);
    expect(codecError(withDeadline('c24101')).context?.field).toBe('deadline_micros'); // tag-2 bignum 1
    expect(codecError(withDeadline('f93c00')).context?.field).toBe('deadline_micros'); // 1.0
    expect(codecError(withDeadline('1801')).message).toBe('failed to decode agent envelope'); // non-minimal
    const badUtf8 = toHex(cborEncode(entries(...baseEvent()))).replace('66736f757263656161', '66736f7572636561ff');
    expect(codecError(fromHex(badUtf8)).message).toBe('failed to decode agent envelope');
    const ok = cborEncode(entries(...baseEvent()));
    expect(codecError(new Uint8Array([...ok, 0x00])).message).toBe('failed to decode agent envelope');
    expect(codecError(new Uint8Array()).message).toBe('failed to decode agent envelope');
  });

  it('ignores and drops unknown top-level keys (text and non-text)', () => {
    const bytes = cborEncode(entries(...baseEvent(), ['future', new Map([['x', [1, 2]]])]));
    const env = decodeEnvelope(bytes);
    expect(toHex(encodeEnvelope(env))).toBe(toHex(cborEncode(entries(...baseEvent()))));
    const intKey = new Map<unknown, unknown>([...baseEvent(), [7, 'seven']]);
    expect(toHex(encodeEnvelope(decodeEnvelope(cborEncode(intKey))))).toBe(toHex(cborEncode(entries(...baseEvent()))));
  });

  it('wrong types for known fields name the field', () => {
    const bytes = cborEncode(entries(['kind', 'event'], ['record', 'not-bytes'], ['conversation', conv.toBytes()], ['source', 'a']));
    const e = codecError(bytes);
    expect(e.message).toBe('field `record` in agent envelope must be bytes');
    expect(e.context?.field).toBe('record');
  });

  it('refuses absurd nesting and lengths without allocating', () => {
    const deep = new Uint8Array(5000).fill(0x81);
    expect(codecError(deep).kind).toBe('codec');
    // a byte string claiming 2^63 bytes
    expect(codecError(fromHex('a164626f64795b7fffffffffffffff')).kind).toBe('codec');
    // a map claiming 2^32 entries
    expect(codecError(fromHex('ba10000000')).kind).toBe('codec');
  });

  it('metadata floats stay floats in the shortest lossless width', () => {
    const env = AgentEnvelope.event(rec, conv, src, new Uint8Array([1]))
      .withMetadata('h', 1.5)
      .withMetadata('two', 2)
      .withMetadata('f', 100000.5)
      .withMetadata('d', 0.1)
      .withMetadata('i', 2n);
    const hex = toHex(env.encode());
    expect(hex).toContain('6168f93e00'); // "h": f16 1.5
    expect(hex).toContain('6374776ff94000'); // "two": f16 2.0, not the int 2
    expect(hex).toContain('6166fa47c35040'); // "f": f32
    expect(hex).toContain('6164fb3fb999999999999a'); // "d": f64
    expect(hex).toContain('616902'); // "i": int 2
    const back = AgentEnvelope.decode(env.encode());
    expect(back.metadata?.get('two')).toBe(2);
    expect(typeof back.metadata?.get('two')).toBe('number');
    expect(back.metadata?.get('i')).toBe(2n);
  });
});

describe('encodeSignatureContext', () => {
  it('writes content_type then agent_version, each only when present', () => {
    expect(toHex(encodeSignatureContext({}))).toBe('a0');
    expect(toHex(encodeSignatureContext({ contentType: 1, agentVersion: 1 }))).toBe(
      toHex(cborEncode(new Map([['content_type', 1], ['agent_version', 1]]))),
    );
    expect(toHex(encodeSignatureContext({ agentVersion: 70000 }))).toBe(toHex(cborEncode(new Map([['agent_version', 70000]]))));
  });
});

describe('encodeEnvelope with a caller-supplied output', () => {
  const envelope = AgentEnvelope.event(rec, conv, src, new Uint8Array([1, 2, 3]));

  it('writes the same canonical bytes into the array allocate returns, every byte of it', () => {
    const pool = new Uint8Array(512).fill(0xee);
    let asked = -1;
    const out = encodeEnvelope(envelope, {
      allocate: (n) => {
        asked = n;
        return pool.subarray(7, 7 + n);
      },
    });
    expect(asked).toBe(encodeEnvelope(envelope).length);
    expect(out.buffer).toBe(pool.buffer);
    expect(toHex(out)).toBe(toHex(encodeEnvelope(envelope)));
    expect(pool[6]).toBe(0xee);
    expect(pool[7 + asked]).toBe(0xee);
  });

  it('rejects an allocation of the wrong size or type, or one that throws, with InvalidError', () => {
    const kindOf = (allocate: (n: number) => Uint8Array): string | undefined => {
      try {
        encodeEnvelope(envelope, { allocate });
      } catch (e) {
        return AgdxError.is(e) ? e.kind : 'untyped';
      }
      return undefined;
    };
    expect(kindOf((n) => new Uint8Array(n + 1))).toBe('invalid');
    expect(kindOf(() => [] as unknown as Uint8Array)).toBe('invalid');
    expect(
      kindOf(() => {
        throw new RangeError('out of pool');
      }),
    ).toBe('invalid');
  });
});
