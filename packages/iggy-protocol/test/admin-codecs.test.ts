// DeleteSegments, GetClient/GetClients, DescribeOptions, the trailing-bytes adapter, and a
// DeleteSegments reply answered under TruncatePartition (68), as Iggy 0.9 sends it.
import { beforeAll, describe, expect, it } from 'vitest';
import {
  CommandCode,
  IggyCodecError,
  IggyInvalidError,
  NO_USER_ID,
  Operation,
  OptionsScope,
  VsrClientSession,
  VsrServerSession,
  decodeClientList,
  decodeDeleteSegmentsRequest,
  decodeDescribeOptionsRequest,
  decodeFlushUnsavedBufferRequest,
  decodeGetClientRequest,
  decodeIgnoringTrailingBytes,
  decodeOptionDescriptors,
  decodeTopicTarget,
  decodeVsrRequestFrame,
  decodeVsrServerFrame,
  encodeClientList,
  encodeDeleteSegmentsRequest,
  encodeDescribeOptionsRequest,
  encodeFlushUnsavedBufferRequest,
  encodeGetClientRequest,
  encodeOptionDescriptors,
  encodeRegisterReply,
  encodeTopicTarget,
  headerValue,
  ignoringTrailingBytes,
  initChecksums,
} from '@agdx/iggy-protocol';

beforeAll(async () => {
  await initChecksums();
});

const withTail = (body: Uint8Array, tail: number[]): Uint8Array => Uint8Array.from([...body, ...tail]);

describe('trailing bytes', () => {
  it('the adapter decodes the prefix and ignores what follows, like the official SDK’s DeleteTopic', () => {
    const body = encodeTopicTarget({ stream: 'agents', topic: 7 });
    // The Node SDK appends the topic's partitions count (u32) to DeleteTopic.
    const sdk = withTail(body, [3, 0, 0, 0]);
    expect(() => decodeTopicTarget(sdk)).toThrow(IggyCodecError);
    expect(decodeIgnoringTrailingBytes(decodeTopicTarget, sdk)).toEqual({ stream: 'agents', topic: 7 });
    expect(ignoringTrailingBytes(decodeTopicTarget)(sdk)).toEqual({ stream: 'agents', topic: 7 });
    expect(ignoringTrailingBytes(decodeTopicTarget)(body)).toEqual({ stream: 'agents', topic: 7 });
  });

  it('does not hide other failures: a truncated or malformed prefix is still a codec error', () => {
    const body = encodeTopicTarget({ stream: 1, topic: 2 });
    const tolerant = ignoringTrailingBytes(decodeTopicTarget);
    for (let cut = 0; cut < body.length; cut++) expect(() => tolerant(body.subarray(0, cut))).toThrow(IggyCodecError);
    // Identifier kind 9 does not exist, whatever follows it.
    expect(() => tolerant(Uint8Array.from([9, 4, 1, 0, 0, 0, 1, 2, 3]))).toThrow(IggyCodecError);
  });

  it('passes the extra decoder arguments through', () => {
    const body = encodeDeleteSegmentsRequest({ stream: 1, topic: 'events', partitionId: 2, segmentsCount: 3 });
    const decode = (b: Uint8Array, scale: number): number => decodeDeleteSegmentsRequest(b).segmentsCount * scale;
    expect(decodeIgnoringTrailingBytes(decode, withTail(body, [1, 2]), 10)).toBe(30);
  });
});

describe('DeleteSegments (503)', () => {
  it('round-trips `[stream][topic][partition u32][segments u32]`', () => {
    const req = { stream: 'agents', topic: 3, partitionId: 4, segmentsCount: 5 };
    const bytes = encodeDeleteSegmentsRequest(req);
    expect([...bytes.subarray(-8)]).toEqual([4, 0, 0, 0, 5, 0, 0, 0]);
    expect(decodeDeleteSegmentsRequest(bytes)).toEqual(req);
    for (let cut = 0; cut < bytes.length; cut++) expect(() => decodeDeleteSegmentsRequest(bytes.subarray(0, cut))).toThrow(IggyCodecError);
    expect(() => encodeDeleteSegmentsRequest({ ...req, segmentsCount: -1 })).toThrow(IggyInvalidError);
  });
});

describe('FlushUnsavedBuffer (102)', () => {
  it('round-trips `[stream][topic][partition u32][fsync u8]`; any non-zero fsync byte is true', () => {
    const req = { stream: 1, topic: 'events', partitionId: 2, fsync: true };
    const bytes = encodeFlushUnsavedBufferRequest(req);
    expect(bytes.at(-1)).toBe(1);
    expect(decodeFlushUnsavedBufferRequest(bytes)).toEqual(req);
    const seven = bytes.slice();
    seven[seven.length - 1] = 7;
    expect(decodeFlushUnsavedBufferRequest(seven).fsync).toBe(true);
    expect(() => decodeFlushUnsavedBufferRequest(bytes.subarray(0, bytes.length - 1))).toThrow(IggyCodecError);
  });
});

describe('GetClient (21) and GetClients (22)', () => {
  it('GetClient carries a u32 id', () => {
    expect([...encodeGetClientRequest(258)]).toEqual([2, 1, 0, 0]);
    expect(decodeGetClientRequest(encodeGetClientRequest(258))).toEqual({ clientId: 258 });
    expect(() => decodeGetClientRequest(new Uint8Array(3))).toThrow(IggyCodecError);
  });

  it('GetClients lists headers back to back, without a count', () => {
    const clients = [
      { clientId: 1, userId: 0, transport: 1, address: '127.0.0.1:5000', consumerGroupsCount: 2 },
      { clientId: 2, userId: NO_USER_ID, transport: 1, address: '[::1]:6000', consumerGroupsCount: 0 },
    ];
    const bytes = encodeClientList(clients);
    expect(bytes.length).toBe(2 * 17 + '127.0.0.1:5000'.length + '[::1]:6000'.length);
    expect(decodeClientList(bytes)).toEqual(clients);
    expect(decodeClientList(new Uint8Array(0))).toEqual([]);
    expect(() => decodeClientList(bytes.subarray(0, bytes.length - 1))).toThrow(IggyCodecError);
    // A hostile address length never allocates: the reader checks the bytes present first.
    const hostile = Uint8Array.from([1, 0, 0, 0, 0, 0, 0, 0, 1, 0xff, 0xff, 0xff, 0x7f]);
    expect(() => decodeClientList(hostile)).toThrow(IggyCodecError);
  });
});

describe('DescribeOptions (13)', () => {
  it('the request is one scope byte, 1..3', () => {
    expect([...encodeDescribeOptionsRequest(OptionsScope.Topic)]).toEqual([1]);
    expect(decodeDescribeOptionsRequest(Uint8Array.of(3))).toEqual({ scope: OptionsScope.User });
    expect(() => decodeDescribeOptionsRequest(Uint8Array.of(0))).toThrow(IggyCodecError);
    expect(() => decodeDescribeOptionsRequest(Uint8Array.of(4))).toThrow(IggyCodecError);
    expect(() => decodeDescribeOptionsRequest(new Uint8Array(0))).toThrow(IggyCodecError);
  });

  it('the reply round-trips and its count is checked before allocation', () => {
    const size = headerValue.uint64(1024n);
    const entries = [
      { key: 'segment_size', kindCode: 12, defaultValue: size.value, description: 'bytes' },
      { key: 'compression_algorithm', kindCode: 2, defaultValue: new TextEncoder().encode('none'), description: '' },
    ];
    const bytes = encodeOptionDescriptors(entries);
    expect(decodeOptionDescriptors(bytes)).toEqual(entries);
    expect([...encodeOptionDescriptors([])]).toEqual([0, 0, 0, 0]);
    expect(() => decodeOptionDescriptors(Uint8Array.of(0xff, 0xff, 0xff, 0xff))).toThrow(IggyCodecError);
    expect(() => decodeOptionDescriptors(bytes.subarray(0, bytes.length - 2))).toThrow(IggyCodecError);
  });
});

describe('DeleteSegments replies under TruncatePartition', () => {
  function bound(): { server: VsrServerSession; client: VsrClientSession } {
    const server = new VsrServerSession();
    const client = new VsrClientSession({ clientId: 5n });
    const reg = decodeVsrRequestFrame(client.register({ username: 'iggy', password: 'iggy' }).frame);
    server.admit(reg.header, reg.body);
    client.handleFrame(server.bind(reg.header, 0, 7n, encodeRegisterReply({ userId: 0, session: 7n, serverProtocolVersion: 11264, serverVersion: 'dev' })));
    return { server, client };
  }

  it('a refusal travels in the result section of an operation-68 reply and reaches the client as a typed error', () => {
    const { server, client } = bound();
    const req = client.command(CommandCode.DeleteSegments, encodeDeleteSegmentsRequest({ stream: 9, topic: 0, partitionId: 0, segmentsCount: 1 }));
    const { header } = decodeVsrRequestFrame(req.frame);
    expect(header.operation).toBe(Operation.DeleteSegments);
    const reply = server.reply(header, { results: [{ index: 0, code: 1009 }], operation: Operation.TruncatePartition });
    expect(decodeVsrServerFrame(reply)).toMatchObject({ type: 'reply', header: { operation: 68, status: 0 } });
    expect(client.handleFrame(reply)).toMatchObject({ ok: false, error: { code: 1009 } });
  });

  it('a success is an empty result section; the reply is cached for the request number like any metadata reply', () => {
    const { server, client } = bound();
    const req = client.command(CommandCode.DeleteSegments, encodeDeleteSegmentsRequest({ stream: 0, topic: 0, partitionId: 0, segmentsCount: 1 }));
    const { header, body } = decodeVsrRequestFrame(req.frame);
    server.admit(header, body);
    const reply = server.reply(header, { operation: Operation.TruncatePartition });
    expect(client.handleFrame(reply)).toMatchObject({ ok: true });
    const again = server.admit(header, body);
    expect(again).toEqual({ action: 'respond', frame: reply, closes: false });
  });
});
