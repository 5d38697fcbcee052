// The golden vectors the apache/iggy repository itself ships (sheet §3.1, V1–V11), encode and decode.
import { beforeAll, describe, expect, it } from 'vitest';
import {
  IggyError,
  computeBatchChecksum,
  decodeCreateStreamRequest,
  decodeCreateTopicRequest,
  decodeMessageBatch,
  decodeOptions,
  decodePollMessagesRequest,
  decodePollMessagesResponse,
  decodeRegisterReply,
  decodeSendMessagesRequest,
  decodeStreamTarget,
  decodeUpdateStreamRequest,
  decodeUpdateTopicRequest,
  decodeVsrRequestHeader,
  encodeCreateStreamRequest,
  encodeCreateTopicRequest,
  encodeLoginUserRequest,
  encodeMessageBatch,
  encodeOptions,
  encodePollMessagesRequest,
  encodePollResponseVsr,
  encodeRegisterReply,
  encodeResultSection,
  encodeSendMessagesRequest,
  encodeStreamTarget,
  encodeUpdateStreamRequest,
  encodeUpdateTopicRequest,
  encodeVsrReplyFrame,
  encodeVsrRequestFrame,
  headerValue,
  initChecksums,
  partitioning,
  stampMessageBatch,
  unwrapVsrReply,
  xxh32,
} from '@agdx/iggy-protocol';
import type { OutgoingMessage } from '@agdx/iggy-protocol';
import { IGGY_XXH32_VECTORS } from '../../../test/vectors/xxh32-iggy.js';
import { hex, text, toHex, utf8 } from './helpers.js';
import { V1, V1_MESSAGES, V2 } from './support/repo-batch-vectors.js';

beforeAll(async () => {
  await initChecksums();
});

describe('V1 produce body [0.11]', () => {
  it('encodes byte for byte, checksums included', () => {
    const body = encodeSendMessagesRequest({ stream: 1, topic: 2, partitioning: partitioning.balanced(), messages: V1_MESSAGES }, 'vsr');
    expect(toHex(body)).toBe(toHex(V1));
  });

  it('decodes with checksum verification', () => {
    const d = decodeSendMessagesRequest(V1, 'vsr', { verifyChecksums: true });
    expect(d.stream).toBe(1);
    expect(d.topic).toBe(2);
    expect(d.partitioning).toEqual({ kind: 'balanced' });
    const b = d.batch;
    expect(b?.header).toMatchObject({ originTimestamp: 1000n, batchLength: 396n, batchChecksum: 0x7c260763c8381fa9n, messageCount: 2 });
    expect(b?.frames.map((f) => f.checksum)).toEqual([0x7596755a20b9d2bfn, 0xc0b78e751c7e6bd6n]);
    expect(b?.frames.map((f) => [f.id, f.offsetDelta, f.timestampDelta])).toEqual([[7n, 0, 0], [8n, 1, 50]]);
    expect(d.messages.map((m) => text(m.payload))).toEqual(['first-payload', 'second-payload']);
    expect(text(d.messages[1]!.rawHeaders)).toBe('user-header-bytes');
    expect(d.messages[0]!.rawHeaders.length).toBe(0);
  });

  it('recomputes the batch checksum from the layout', () => {
    expect(computeBatchChecksum(V1.subarray(22))).toBe(0x7c260763c8381fa9n);
  });
});

describe('V2 poll body [0.11]', () => {
  it('encodes from the stamped V1 batch', () => {
    const stamped = stampMessageBatch(encodeMessageBatch(V1_MESSAGES), { partitionId: 3, baseOffset: 100n, baseTimestamp: 5000n });
    expect(toHex(encodePollResponseVsr(3, 101n, [stamped]))).toBe(toHex(V2));
  });

  it('decodes offsets, timestamps and checksums', () => {
    const p = decodePollMessagesResponse(V2, 'vsr', { verifyChecksums: true });
    expect(p.partitionId).toBe(3);
    expect(p.currentOffset).toBe(101n);
    expect(p.messages.map((m) => m.offset)).toEqual([100n, 101n]);
    expect(p.messages.map((m) => m.timestamp)).toEqual([5000n, 5000n]);
    expect(p.messages.map((m) => m.originTimestamp)).toEqual([1000n, 1050n]);
    expect(p.messages.map((m) => m.checksum)).toEqual([0x7596755a20b9d2bfn, 0xc0b78e751c7e6bd6n]);
    expect(decodeMessageBatch(V2, 16).header.batchChecksum).toBe(0xd2ee8f8ab32668c9n);
  });
});

describe('V3 options block', () => {
  const V3 = hex(`02 0d000000 656e666f7263655f6673796e63 03 01000000 01
                  02 0c000000 7365676d656e745f73697a65   0c 08000000 0000004000000000`);
  it('encodes', () => {
    const block = encodeOptions(new Map([['enforce_fsync', headerValue.bool(true)], ['segment_size', headerValue.uint64(1073741824n)]]));
    expect(toHex(block)).toBe(toHex(V3));
  });
  it('decodes', () => {
    const m = decodeOptions(V3);
    expect([...m.keys()]).toEqual(['enforce_fsync', 'segment_size']);
    expect(m.get('enforce_fsync')).toEqual(headerValue.bool(true));
    expect(m.get('segment_size')).toEqual(headerValue.uint64(1073741824n));
  });
});

describe('V4 VSR request header [layout B]', () => {
  const client = (0x100f0e0d0c0b0a09n << 64n) | 0x0807060504030201n;
  const expected = new Uint8Array(256);
  expected.set(hex('04010000'), 48);
  expected[60] = 5;
  expected.set(hex('0102030405060708 090a0b0c0d0e0f10'), 128);
  expected.set(hex('0200000000000000'), 168);
  expected[176] = 0x80;
  expected.set(hex('0b00000000000000'), 184);

  it('encodes with exactly the 22 non-zero bytes', () => {
    const frame = encodeVsrRequestFrame({ client, request: 2n, operation: 128, session: 11n }, new Uint8Array(4));
    expect(toHex(frame.subarray(0, 256))).toBe(toHex(expected));
    expect(frame.subarray(0, 256).filter((b) => b !== 0).length).toBe(22);
  });
  it('decodes', () => {
    const frame = new Uint8Array(260);
    frame.set(expected);
    expect(decodeVsrRequestHeader(frame)).toMatchObject({ size: 260, client, request: 2n, operation: 128, session: 11n, code: 0 });
  });
  it('puts the NonReplicated code at offset 196 (Node check, 60001)', () => {
    const frame = encodeVsrRequestFrame({ client: 1n, request: 1n, operation: 2, code: 60001 });
    expect(toHex(frame.subarray(196, 200))).toBe('61ea0000');
    expect(decodeVsrRequestHeader(frame).code).toBe(60001);
  });
});

describe('V5 reply and result section', () => {
  const reply = (operation: number, body: Uint8Array, status = 0) => encodeVsrReplyFrame({ client: 1n, request: 1n, operation, status }, body);
  it('raises the first non-zero result (1009)', () => {
    const body = encodeResultSection([{ index: 7, code: 1009 }, { index: 8, code: 1010 }]);
    expect(toHex(body)).toBe(toHex(hex('02000000 07000000 f1030000 08000000 f2030000')));
    expect(() => unwrapVsrReply(reply(128, body))).toThrow(IggyError);
    try {
      unwrapVsrReply(reply(128, body));
    } catch (e) {
      expect((e as IggyError).code).toBe(1009);
      expect((e as IggyError).codeName).toBe('StreamIdNotFound');
    }
  });
  it('returns the payload after a zero count', () => {
    expect(toHex(unwrapVsrReply(reply(128, hex('00000000 abcdef'))))).toBe('abcdef');
  });
  it('decodes and encodes the Register reply (user 7, session 42, 11264, "0.10.3")', () => {
    const body = hex('00000000 07000000 2a00000000000000 002c0000 06 302e31302e33');
    const payload = unwrapVsrReply(reply(1, body));
    expect(decodeRegisterReply(payload)).toEqual({ userId: 7, session: 42n, serverProtocolVersion: 11264, serverVersion: '0.10.3' });
    expect(toHex(encodeResultSection([], encodeRegisterReply({ userId: 7, session: 42n, serverProtocolVersion: 11264, serverVersion: '0.10.3' })))).toBe(toHex(body));
  });
  it('Go variant (session 128, "0.11.0-edge.1")', () => {
    const payload = encodeRegisterReply({ userId: 7, session: 128n, serverProtocolVersion: 11264, serverVersion: '0.11.0-edge.1' });
    expect(decodeRegisterReply(payload).session).toBe(128n);
  });
});

describe('V6 XXH32 seed 0', () => {
  it.each(IGGY_XXH32_VECTORS)('%s', (input, expected) => {
    expect(xxh32(typeof input === 'string' ? utf8(input) : input)).toBe(expected);
  });
});

describe('V7 PollMessages request', () => {
  const V7 = hex(`01 01042a000000 020e 746573745f73747265616d5f6964 020d 746573745f746f7069635f6964 01 7b000000 03 0000000000000000 64000000 01`);
  const req = { consumer: { kind: 'consumer', id: 42 }, stream: 'test_stream_id', topic: 'test_topic_id', partitionId: 123, strategy: { kind: 'first' }, count: 100, autoCommit: true } as const;
  it('encodes', () => expect(toHex(encodePollMessagesRequest(req))).toBe(toHex(V7)));
  it('decodes', () => expect(decodePollMessagesRequest(V7)).toEqual(req));
});

describe('V8 classic SendMessages routing section and index entry', () => {
  const V8 = hex(`29000000 020e 746573745f73747265616d5f6964 020d 746573745f746f7069635f6964 0204 01000000 01000000 00000000 78000000 0000000000000000`);
  const req = { stream: 'test_stream_id', topic: 'test_topic_id', partitioning: partitioning.partitionId(1), messages: [{ id: 0x1234n, payload: new Uint8Array(56), originTimestamp: 5n }] };
  it('encodes the fixed prefix', () => {
    const body = encodeSendMessagesRequest(req, 'classic');
    expect(toHex(body.subarray(0, V8.length))).toBe(toHex(V8));
    expect(body.length).toBe(V8.length + 120);
  });
  it('decodes', () => {
    const d = decodeSendMessagesRequest(encodeSendMessagesRequest(req, 'classic'), 'classic');
    expect(d).toMatchObject({ stream: 'test_stream_id', topic: 'test_topic_id', partitioning: { kind: 'partition', partitionId: 1 } });
    expect(d.messages[0]).toMatchObject({ id: 0x1234n, originTimestamp: 5n });
    expect(d.messages[0]!.payload.length).toBe(56);
  });
});

describe('V9 classic update requests', () => {
  const stream = hex('0206 73747265616d 0d 7570646174655f73747265616d');
  const topic = hex('0206 73747265616d 0104 01000000 00 6400000000000000 6400000000000000 00 0c 7570646174655f746f706963');
  it('UpdateStream encodes and decodes', () => {
    expect(toHex(encodeUpdateStreamRequest({ stream: 'stream', name: 'update_stream' }, 'classic'))).toBe(toHex(stream));
    expect(decodeUpdateStreamRequest(stream, 'classic')).toEqual({ stream: 'stream', name: 'update_stream' });
  });
  it('UpdateTopic encodes and decodes (compression 0 as in the vector)', () => {
    const req = { stream: 'stream', topic: 1, compression: 0, messageExpiry: 100n, maxTopicSize: 100n, replicationFactor: 0, name: 'update_topic' };
    expect(toHex(encodeUpdateTopicRequest(req, 'classic'))).toBe(toHex(topic));
    expect(decodeUpdateTopicRequest(topic, 'classic')).toEqual(req);
  });
});

describe('V10 small Rust vectors', () => {
  it('GetStream(1)', () => {
    expect(toHex(encodeStreamTarget({ stream: 1 }))).toBe('010401000000');
    expect(decodeStreamTarget(hex('01 04 01000000'))).toEqual({ stream: 1 });
  });
  it('CreateStream("test") 0.10', () => {
    expect(toHex(encodeCreateStreamRequest({ name: 'test' }, 'classic'))).toBe('0474657374');
    expect(decodeCreateStreamRequest(hex('04 74657374'), 'classic')).toEqual({ name: 'test' });
  });
  it('Balanced partitioning is 01 00', () => {
    const body = encodeSendMessagesRequest({ stream: 1, topic: 2, partitioning: partitioning.balanced(), messages: [{ payload: utf8('x'), originTimestamp: 1n }] }, 'classic');
    expect(toHex(body.subarray(16, 18))).toBe('0100');
    expect(decodeSendMessagesRequest(body, 'classic').partitioning).toEqual({ kind: 'balanced' });
  });
});

describe('V11 Node length-only vectors [0.10]', () => {
  it('SendMessages: 7 one-byte messages, stream 911, topic 213, Balanced → 589 bytes', () => {
    const messages = Array.from({ length: 7 }, () => ({ payload: utf8('a'), originTimestamp: 1n }));
    const body = encodeSendMessagesRequest({ stream: 911, topic: 213, partitioning: partitioning.balanced(), messages }, 'classic');
    expect(body.length).toBe(589);
    expect(decodeSendMessagesRequest(body, 'classic').messages).toHaveLength(7);
  });
  it('CreateTopic with a 10-character name', () => {
    const body = encodeCreateTopicRequest({ stream: 1, partitionsCount: 1, name: 'abcdefghij' }, 'classic');
    expect(body.length).toBe(6 + 4 + 1 + 8 + 8 + 1 + 1 + 10);
    expect(decodeCreateTopicRequest(body, 'classic')).toMatchObject({ stream: 1, partitionsCount: 1, name: 'abcdefghij' });
  });
  it('Login is 2 + |user| + |password| + 4 + 4 bytes', () => {
    expect(encodeLoginUserRequest({ username: 'someone', password: 'secret1' }).length).toBe(2 + 7 + 7 + 4 + 4);
  });
});
