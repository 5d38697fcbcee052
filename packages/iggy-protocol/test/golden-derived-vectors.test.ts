// The derived vectors of sheet §3.2 (complete classic 0.10 frames and VSR 0.11 pieces), encode and decode.
import { beforeAll, describe, expect, it } from 'vitest';
import {
  CommandCode,
  IggyError,
  VsrClientSession,
  decodeClassicRequest,
  decodeClassicResponse,
  decodeCreateConsumerGroupRequest,
  decodeCreateStreamRequest,
  decodeCreateTopicRequest,
  decodeGroupTarget,
  decodeIdentityResponse,
  decodeLoginUserRequest,
  decodePollMessagesRequest,
  decodePollMessagesResponse,
  decodeRegisterReply,
  decodeRegisterRequest,
  decodeResultSection,
  decodeSendMessagesRequest,
  decodeStoreConsumerOffsetRequest,
  decodeStreamTarget,
  decodeUserHeaders,
  decodeVsrRequestFrame,
  encodeClassicRequest,
  encodeClassicResponse,
  encodeCreateConsumerGroupRequest,
  encodeCreateStreamRequest,
  encodeCreateTopicRequest,
  encodeGroupTarget,
  encodeIdentityResponse,
  encodeLoginUserRequest,
  encodePollMessagesRequest,
  encodePollResponseClassic,
  encodeRegisterReply,
  encodeRegisterRequest,
  encodeResultSection,
  encodeSendMessagesRequest,
  encodeStoreConsumerOffsetRequest,
  encodeStreamTarget,
  encodeUserHeaders,
  headerValue,
  initChecksums,
  partitioning,
  unwrapClassicResponse,
} from '@agdx/iggy-protocol';
import { hex, text, toHex, utf8 } from './helpers.js';

beforeAll(async () => {
  await initChecksums();
});

const HEADERS = new Map([['k', headerValue.uint32(7)]]);

describe('classic 0.10 frames', () => {
  it('Ping request and OK-empty response', () => {
    expect(toHex(encodeClassicRequest(CommandCode.Ping))).toBe('0400000001000000');
    expect(decodeClassicRequest(hex('04000000 01000000'))).toMatchObject({ code: 1 });
    expect(toHex(encodeClassicResponse(0))).toBe('0000000000000000');
    expect(unwrapClassicResponse(hex('00000000 00000000')).length).toBe(0);
  });

  it('Login iggy/iggy without version or context', () => {
    const frame = hex('16000000 26000000 04 69676779 04 69676779 00000000 00000000');
    expect(toHex(encodeClassicRequest(CommandCode.LoginUser, encodeLoginUserRequest({ username: 'iggy', password: 'iggy' })))).toBe(toHex(frame));
    const req = decodeClassicRequest(frame);
    expect(req.code).toBe(38);
    expect(decodeLoginUserRequest(req.payload)).toEqual({ username: 'iggy', password: 'iggy', version: '', context: '' });
  });

  it('Login response: user 0, and InvalidCredentials', () => {
    expect(toHex(encodeClassicResponse(0, encodeIdentityResponse(0)))).toBe(toHex(hex('00000000 04000000 00000000')));
    expect(decodeIdentityResponse(unwrapClassicResponse(hex('00000000 04000000 00000000')))).toBe(0);
    expect(toHex(encodeClassicResponse(42))).toBe('2a00000000000000');
    expect(decodeClassicResponse(hex('2a000000 00000000')).status).toBe(42);
    expect(() => unwrapClassicResponse(hex('2a000000 00000000'))).toThrow(expect.objectContaining({ code: 42, codeName: 'InvalidCredentials' }));
  });

  it('CreateStream "test"', () => {
    const frame = hex('09000000 ca000000 04 74657374');
    expect(toHex(encodeClassicRequest(CommandCode.CreateStream, encodeCreateStreamRequest({ name: 'test' }, 'classic')))).toBe(toHex(frame));
    expect(decodeCreateStreamRequest(decodeClassicRequest(frame).payload, 'classic')).toEqual({ name: 'test' });
  });

  it('GetStream by name "test"', () => {
    const frame = hex('0a000000 c8000000 0204 74657374');
    expect(toHex(encodeClassicRequest(CommandCode.GetStream, encodeStreamTarget({ stream: 'test' })))).toBe(toHex(frame));
    expect(decodeStreamTarget(decodeClassicRequest(frame).payload)).toEqual({ stream: 'test' });
  });

  it('CreateTopic: stream 0, 3 partitions, none, defaults, rf 0, "orders"', () => {
    const frame = hex('27000000 2e010000 0104 00000000 03000000 01 0000000000000000 0000000000000000 00 06 6f7264657273');
    const req = { stream: 0, partitionsCount: 3, name: 'orders' };
    expect(toHex(encodeClassicRequest(CommandCode.CreateTopic, encodeCreateTopicRequest(req, 'classic')))).toBe(toHex(frame));
    expect(decodeCreateTopicRequest(decodeClassicRequest(frame).payload, 'classic')).toEqual({ ...req, compression: 1, messageExpiry: 0n, maxTopicSize: 0n, replicationFactor: 0 });
  });

  it('CreateGroup "workers" on stream 0, topic 0', () => {
    const frame = hex('18000000 5a020000 0104 00000000 0104 00000000 07 776f726b657273');
    const req = { stream: 0, topic: 0, name: 'workers' };
    expect(toHex(encodeClassicRequest(CommandCode.CreateConsumerGroup, encodeCreateConsumerGroupRequest(req)))).toBe(toHex(frame));
    expect(decodeCreateConsumerGroupRequest(decodeClassicRequest(frame).payload)).toEqual(req);
  });

  it('JoinGroup by name', () => {
    const frame = hex('19000000 5c020000 0104 00000000 0104 00000000 0207 776f726b657273');
    const req = { stream: 0, topic: 0, group: 'workers' };
    expect(toHex(encodeClassicRequest(CommandCode.JoinConsumerGroup, encodeGroupTarget(req)))).toBe(toHex(frame));
    expect(decodeGroupTarget(decodeClassicRequest(frame).payload)).toEqual(req);
  });

  it('Poll: group "workers", no partition, Next, count 10, auto-commit', () => {
    const frame = hex('2d000000 64000000 02 0207776f726b657273 0104 00000000 0104 00000000 00 00000000 05 0000000000000000 0a000000 01');
    const req = { consumer: { kind: 'group', id: 'workers' }, stream: 0, topic: 0, strategy: { kind: 'next' }, count: 10, autoCommit: true } as const;
    expect(toHex(encodeClassicRequest(CommandCode.PollMessages, encodePollMessagesRequest(req)))).toBe(toHex(frame));
    expect(decodePollMessagesRequest(decodeClassicRequest(frame).payload)).toEqual(req);
  });

  it('StoreOffset: consumer 1, partition 2, offset 41', () => {
    const frame = hex('24000000 79000000 01 0104 01000000 0104 00000000 0104 00000000 01 02000000 2900000000000000');
    const req = { consumer: { kind: 'consumer', id: 1 }, stream: 0, topic: 0, partitionId: 2, offset: 41n } as const;
    expect(toHex(encodeClassicRequest(CommandCode.StoreConsumerOffset, encodeStoreConsumerOffsetRequest(req, 'classic')))).toBe(toHex(frame));
    expect(decodeStoreConsumerOffsetRequest(decodeClassicRequest(frame).payload, 'classic')).toEqual(req);
  });

  it('User headers {"k" (string): uint32 7}', () => {
    const block = hex('02 01000000 6b 0b 04000000 07000000');
    expect(toHex(encodeUserHeaders(HEADERS))).toBe(toHex(block));
    expect(decodeUserHeaders(block)).toEqual(HEADERS);
  });

  const SEND = hex(`82000000 65000000 16000000 0104 00000000 0104 00000000 0204 01000000 01000000
    00000000 54000000 0000000000000000
    0000000000000000 01000000000000000000000000000000 0000000000000000 0000000000000000 00401e18240a0600 0f000000 05000000 0000000000000000 68656c6c6f 02010000006b0b0400000007000000`);

  it('Send one message: PartitionId 1, id 1, origin 1 700 000 000 000 000 µs, "hello", headers', () => {
    const body = encodeSendMessagesRequest(
      { stream: 0, topic: 0, partitioning: partitioning.partitionId(1), messages: [{ id: 1n, originTimestamp: 1_700_000_000_000_000n, payload: utf8('hello'), headers: HEADERS }] },
      'classic',
    );
    expect(toHex(encodeClassicRequest(CommandCode.SendMessages, body))).toBe(toHex(SEND));
    const d = decodeSendMessagesRequest(decodeClassicRequest(SEND).payload, 'classic');
    expect(d.partitioning).toEqual({ kind: 'partition', partitionId: 1 });
    expect(d.messages[0]).toMatchObject({ id: 1n, originTimestamp: 1_700_000_000_000_000n, checksum: 0n, offset: 0n });
    expect(text(d.messages[0]!.payload)).toBe('hello');
    expect(decodeUserHeaders(d.messages[0]!.rawHeaders)).toEqual(HEADERS);
  });

  const POLLED = hex(`00000000 64000000 01000000 0000000000000000 01000000
    f69fe26f74a5dd38 01000000000000000000000000000000 0000000000000000 40222018240a0600 00401e18240a0600 0f000000 05000000 0000000000000000 68656c6c6f 02010000006b0b0400000007000000`);

  it('The same message stored and polled (offset 0, timestamp 1 700 000 000 123 456): checksum 0x38dda5746fe29ff6', () => {
    const payload = encodePollResponseClassic(1, 0n, [
      { id: 1n, offset: 0n, timestamp: 1_700_000_000_123_456n, originTimestamp: 1_700_000_000_000_000n, payload: utf8('hello'), rawHeaders: encodeUserHeaders(HEADERS) },
    ]);
    expect(toHex(encodeClassicResponse(0, payload))).toBe(toHex(POLLED));
    const p = decodePollMessagesResponse(unwrapClassicResponse(POLLED), 'classic', { verifyChecksums: true });
    expect(p.partitionId).toBe(1);
    expect(p.currentOffset).toBe(0n);
    expect(p.messages[0]).toMatchObject({ checksum: 0x38dda5746fe29ff6n, offset: 0n, timestamp: 1_700_000_000_123_456n, originTimestamp: 1_700_000_000_000_000n, id: 1n });
  });
});

describe('VSR 0.11 pieces', () => {
  const REGISTER = hex('002c0000 08 6e6f64652d73646b 0d 302e31302e302d656467652e34 04 69676779 04 69676779 00000000');
  const versionInfo = { protocolVersion: 11264, sdkName: 'node-sdk', sdkVersion: '0.10.0-edge.4' };

  it('Register body for iggy/iggy from node-sdk 0.10.0-edge.4 (41 bytes)', () => {
    const body = encodeRegisterRequest({ versionInfo, credentials: { username: 'iggy', password: 'iggy' } });
    expect(body.length).toBe(41);
    expect(toHex(body)).toBe(toHex(REGISTER));
    expect(decodeRegisterRequest(REGISTER)).toEqual({ versionInfo, credentials: { username: 'iggy', password: 'iggy' }, context: new Uint8Array(0) });
  });

  it('Register travels after a header with operation 1, request 0, session 0', () => {
    const s = new VsrClientSession({ clientId: 99n, sdkName: 'node-sdk', sdkVersion: '0.10.0-edge.4' });
    const { frame } = s.register({ username: 'iggy', password: 'iggy' });
    const d = decodeVsrRequestFrame(frame);
    expect(d.header).toMatchObject({ operation: 1, request: 0n, session: 0n, client: 99n, code: 0 });
    expect(toHex(d.body)).toBe(toHex(REGISTER));
  });

  it('Register reply body: user 0, session 1, protocol 11264, "0.9.0-edge.5"', () => {
    const body = hex('00000000 00000000 0100000000000000 002c0000 0c 302e392e302d656467652e35');
    const reply = { userId: 0, session: 1n, serverProtocolVersion: 11264, serverVersion: '0.9.0-edge.5' };
    expect(toHex(encodeResultSection([], encodeRegisterReply(reply)))).toBe(toHex(body));
    const section = decodeResultSection(body);
    expect(section.results).toEqual([]);
    expect(decodeRegisterReply(section.payload)).toEqual(reply);
  });

  it('Ping before login: a header-only frame', () => {
    const expected = new Uint8Array(256);
    expected.set(hex('00010000'), 48);
    expected[60] = 5;
    expected[128] = 0x2a;
    expected[168] = 1;
    expected[176] = 2;
    expected.set(hex('01000000'), 196);
    const s = new VsrClientSession({ clientId: 0x2an });
    expect(toHex(s.ping().frame)).toBe(toHex(expected));
    expect(decodeVsrRequestFrame(expected).header).toMatchObject({ size: 256, operation: 2, code: 1, request: 1n, session: 0n, client: 0x2an });
  });

  it('CreateTopic 0.11 body with message_expiry and compression_algorithm options', () => {
    const body = hex(`0104 00000000 03000000 06 6f7264657273
      02 0e000000 6d6573736167655f657870697279 0c 08000000 00879303 00000000
      02 15000000 636f6d7072657373696f6e5f616c676f726974686d 02 04000000 6e6f6e65`);
    const req = { stream: 0, partitionsCount: 3, name: 'orders', messageExpiry: 60_000_000n, compression: 1 };
    expect(toHex(encodeCreateTopicRequest(req, 'vsr'))).toBe(toHex(body));
    expect(decodeCreateTopicRequest(body, 'vsr')).toEqual(req);
  });

  it('a VSR error status decodes to IggyError with code and name', () => {
    expect(new IggyError(4100).codeName).toBe('InvalidOffset');
  });
});
