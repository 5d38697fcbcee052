import { describe, expect, it } from 'vitest';
import {
  ClassicRequestSplitter,
  ClassicResponseSplitter,
  IggyCodecError,
  IggyEvictionError,
  IggyError,
  IggyInvalidError,
  IggyProtocolError,
  VsrFrameSplitter,
  decodeVsrServerFrame,
  detectProtocolGeneration,
  encodeClassicRequest,
  encodeClassicResponse,
  encodeLoginUserRequest,
  encodeResultSection,
  encodeVsrEvictionFrame,
  encodeVsrReplyFrame,
  encodeVsrRequestFrame,
  evictionErrorCode,
  isResultFramedOperation,
  operationForCode,
  unwrapVsrReply,
  vsrRequestHeaderProblem,
  decodeVsrRequestHeader,
  decodeVsrReplyHeader,
} from '@agdx/iggy-protocol';

function chunked(bytes: Uint8Array, sizes: number[]): Uint8Array[] {
  const out: Uint8Array[] = [];
  let pos = 0;
  let i = 0;
  while (pos < bytes.length) {
    const n = Math.max(1, sizes[i++ % sizes.length]!);
    out.push(bytes.subarray(pos, pos + n));
    pos += n;
  }
  return out;
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let pos = 0;
  for (const p of parts) {
    out.set(p, pos);
    pos += p.length;
  }
  return out;
}

describe('VSR headers', () => {
  it('reply frames round-trip', () => {
    const frame = encodeVsrReplyFrame({ client: 5n, request: 9n, operation: 128, op: 3n, commit: 4n, timestamp: 6n, release: 2 }, new Uint8Array([1, 2]));
    expect(decodeVsrReplyHeader(frame)).toMatchObject({ size: 258, client: 5n, request: 9n, operation: 128, op: 3n, commit: 4n, timestamp: 6n, status: 0, release: 2 });
    const d = decodeVsrServerFrame(frame);
    expect(d.type).toBe('reply');
  });

  it('rejects a status with a body, and undeclared operations', () => {
    expect(() => encodeVsrReplyFrame({ client: 1n, request: 1n, operation: 2, status: 3 }, new Uint8Array(1))).toThrow(IggyInvalidError);
    expect(() => encodeVsrRequestFrame({ client: 1n, request: 1n, operation: 70 })).toThrow(IggyInvalidError);
    expect(() => encodeVsrRequestFrame({ client: 0n, request: 1n, operation: 2 })).toThrow(IggyInvalidError);
    const frame = encodeVsrReplyFrame({ client: 1n, request: 1n, operation: 2 });
    frame[208] = 70;
    expect(() => decodeVsrServerFrame(frame)).toThrow(IggyCodecError);
  });

  it('eviction frames decode to IggyEvictionError with the SDK code', () => {
    const frame = encodeVsrEvictionFrame({ client: 7n, reason: 9 });
    expect(() => unwrapVsrReply(frame)).toThrow(IggyEvictionError);
    try {
      unwrapVsrReply(frame);
    } catch (e) {
      expect(e).toBeInstanceOf(IggyError);
      expect(e).toMatchObject({ kind: 'rejected', reason: 9, reasonName: 'InvalidCredentials', code: 42, codeName: 'InvalidCredentials' });
    }
    const incompatible = encodeVsrEvictionFrame({ client: 7n, reason: 14, serverProtocolVersion: 11264, serverProtocolVersionMin: 11264 });
    expect(() => unwrapVsrReply(incompatible)).toThrow(expect.objectContaining({ code: 14003 }));
    expect(evictionErrorCode(14, false)).toBe(40);
    expect(evictionErrorCode(200)).toBe(40);
    expect(() => unwrapVsrReply(encodeVsrEvictionFrame({ client: 7n, reason: 200 }))).toThrow(expect.objectContaining({ reasonName: 'Unknown(200)' }));
  });

  it.each([
    [1, 'NoSession', 40], [2, 'ClientReleaseTooLow', 3], [3, 'ClientReleaseTooHigh', 3], [4, 'InvalidRequestOperation', 3],
    [5, 'InvalidRequestBody', 3], [6, 'InvalidRequestBodySize', 3], [7, 'SessionTooLow', 40], [8, 'SessionReleaseMismatch', 40],
    [9, 'InvalidCredentials', 42], [10, 'InvalidToken', 53], [11, 'UserInactive', 40], [12, 'SessionError', 40],
    [13, 'StaleClient', 30], [14, 'IncompatibleProtocol', 14003], [15, 'MalformedLogin', 4],
  ])('eviction reason %i (%s) raises %i (sheet §2.3.3)', (reason, name, code) => {
    const window = reason === 14 ? { serverProtocolVersion: 11264, serverProtocolVersionMin: 11264 } : {};
    expect(() => unwrapVsrReply(encodeVsrEvictionFrame({ client: 1n, reason, ...window }))).toThrow(expect.objectContaining({ reason, reasonName: name, code }));
  });

  it('a plain IggyError is not an IggyEvictionError', () => {
    expect(new IggyError(3)).not.toBeInstanceOf(IggyEvictionError);
    expect(new IggyError(3)).toBeInstanceOf(IggyProtocolError);
  });

  it('status replies throw IggyError; unknown statuses keep their number', () => {
    const frame = encodeVsrReplyFrame({ client: 1n, request: 1n, operation: 160, status: 20 });
    expect(() => unwrapVsrReply(frame)).toThrow(expect.objectContaining({ code: 20, codeName: 'ResourceNotFound' }));
    const unknown = encodeVsrReplyFrame({ client: 1n, request: 1n, operation: 2, status: 777 });
    expect(() => unwrapVsrReply(unknown)).toThrow(expect.objectContaining({ code: 777, codeName: 'Unknown(777)' }));
  });

  it('result framing is keyed on the reply operation (138 unframed, 68 framed)', () => {
    expect(isResultFramedOperation(138)).toBe(false);
    expect(isResultFramedOperation(68)).toBe(true);
    expect(isResultFramedOperation(161)).toBe(true);
    expect(isResultFramedOperation(160)).toBe(false);
    expect(isResultFramedOperation(2)).toBe(false);
    const transient = encodeVsrReplyFrame({ client: 1n, request: 0n, operation: 1 }, encodeResultSection([{ index: 0, code: 57 }]));
    expect(() => unwrapVsrReply(transient)).toThrow(expect.objectContaining({ code: 57, transient: true }));
  });

  it('maps codes to operations', () => {
    expect(operationForCode(202)).toBe(128);
    expect(operationForCode(101)).toBe(160);
    expect(operationForCode(100)).toBe(2);
    expect(operationForCode(39)).toBe(3);
  });

  it('checks the server header rules', () => {
    const h = (operation: number, session: bigint, request: bigint) => decodeVsrRequestHeader(encodeVsrRequestFrame({ client: 1n, operation, session, request }));
    expect(vsrRequestHeaderProblem(h(1, 0n, 0n))).toBeUndefined();
    expect(vsrRequestHeaderProblem(h(1, 1n, 0n))).toMatch(/register/);
    expect(vsrRequestHeaderProblem(h(128, 0n, 1n))).toMatch(/non-register/);
    expect(vsrRequestHeaderProblem(h(2, 0n, 1n))).toBeUndefined();
  });
});

describe('frame splitters', () => {
  const vsrFrames = [
    encodeVsrReplyFrame({ client: 1n, request: 1n, operation: 2 }, new Uint8Array(10).fill(7)),
    encodeVsrEvictionFrame({ client: 1n, reason: 1 }),
    encodeVsrReplyFrame({ client: 1n, request: 2n, operation: 128 }, new Uint8Array(1000).fill(3)),
  ];

  it.each([[[1]], [[3, 7, 100]], [[52]], [[4096]], [[255, 1, 257]]])('VSR frames survive chunking %j', (sizes) => {
    const s = new VsrFrameSplitter();
    const out = chunked(concat(vsrFrames), sizes).flatMap((c) => s.push(c));
    expect(out).toEqual(vsrFrames);
    expect(s.buffered).toBe(0);
  });

  it('frames above and below the exact-buffer size survive any chunking, each an independent copy', () => {
    const big = new Uint8Array(1_300_000);
    for (let i = 0; i < big.length; i += 997) big[i] = i & 0xff;
    const frames = [vsrFrames[0]!, encodeVsrReplyFrame({ client: 1n, request: 3n, operation: 128 }, big), ...vsrFrames, encodeVsrReplyFrame({ client: 1n, request: 4n, operation: 128 }, new Uint8Array(200_000).fill(9))];
    const all = concat(frames);
    // Element-wise toEqual on megabytes is slow in vitest; compare lengths and bytes directly.
    const same = (a: readonly Uint8Array[]): boolean => a.length === frames.length && a.every((f, i) => f.length === frames[i]!.length && f.every((b, j) => b === frames[i]![j]));
    for (const sizes of [[65536], [1, 51, 1000, 65536], [300_000, 7], [all.length]]) {
      const s = new VsrFrameSplitter();
      const chunks = chunked(all.slice(), sizes);
      const out = chunks.flatMap((c) => s.push(c));
      expect(same(out)).toBe(true);
      expect(s.buffered).toBe(0);
      // Writing into the chunks afterwards (a socket reuses its buffers) changes no frame.
      for (const c of chunks) c.fill(0xee);
      expect(same(out)).toBe(true);
    }
  });

  it('classic requests and responses survive chunking', () => {
    const reqs = [encodeClassicRequest(1), encodeClassicRequest(38, encodeLoginUserRequest({ username: 'iggy', password: 'iggy' }))];
    const rs = new ClassicRequestSplitter();
    expect(chunked(concat(reqs), [3, 5]).flatMap((c) => rs.push(c))).toEqual(reqs);
    const resps = [encodeClassicResponse(0, new Uint8Array(4)), encodeClassicResponse(42), encodeClassicResponse(0)];
    const ps = new ClassicResponseSplitter();
    expect(chunked(concat(resps), [1]).flatMap((c) => ps.push(c))).toEqual(resps);
  });

  it('rejects impossible sizes with a typed error and stays failed', () => {
    const s = new VsrFrameSplitter();
    const bad = new Uint8Array(64);
    new DataView(bad.buffer).setUint32(48, 100, true);
    expect(() => s.push(bad)).toThrow(IggyCodecError);
    expect(() => s.push(new Uint8Array(1))).toThrow(IggyCodecError);
    const c = new ClassicRequestSplitter();
    expect(() => c.push(new Uint8Array([2, 0, 0, 0, 1, 0, 0, 0]))).toThrow(IggyCodecError);
    const r = new ClassicResponseSplitter();
    expect(() => r.push(new Uint8Array([3, 0, 0, 0, 1, 0, 0, 0]))).toThrow(IggyCodecError);
  });

  it('bounds buffering by the maximum frame size', () => {
    const s = new VsrFrameSplitter({ maxFrameSize: 1024 });
    const big = encodeVsrReplyFrame({ client: 1n, request: 1n, operation: 2 }, new Uint8Array(2000));
    expect(() => s.push(big.subarray(0, 60))).toThrow(/exceeds the maximum/);
    const c = new ClassicResponseSplitter({ maxFrameSize: 16 });
    expect(() => c.push(new Uint8Array([0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff]))).toThrow(IggyCodecError);
    expect(() => new VsrFrameSplitter({ maxFrameSize: 10 })).toThrow(IggyInvalidError);
  });
});

describe('protocol generation detection', () => {
  it('recognises a classic login and ping', () => {
    expect(detectProtocolGeneration(encodeClassicRequest(38, encodeLoginUserRequest({ username: 'iggy', password: 'iggy' })))).toBe('classic');
    expect(detectProtocolGeneration(encodeClassicRequest(1))).toBe('classic');
  });
  it('recognises a VSR request', () => {
    const frame = encodeVsrRequestFrame({ client: 1n, request: 0n, operation: 1 }, new Uint8Array(10));
    expect(detectProtocolGeneration(frame.subarray(0, 8))).toBe('need-more');
    expect(detectProtocolGeneration(frame.subarray(0, 63))).toBe('need-more');
    expect(detectProtocolGeneration(frame.subarray(0, 64))).toBe('vsr');
  });
  it('recognises a short classic frame with an unknown code once it is complete', () => {
    const frame = encodeClassicRequest(9999, new Uint8Array(2));
    expect(detectProtocolGeneration(frame.subarray(0, 9))).toBe('need-more');
    expect(detectProtocolGeneration(frame)).toBe('classic');
  });
  it('recognises a classic request with an impossible length (Iggy answers status 3)', () => {
    expect(detectProtocolGeneration(new Uint8Array([2, 0, 0, 0, 1, 0, 0, 0]))).toBe('classic');
  });
  it('says unknown for garbage', () => {
    expect(detectProtocolGeneration(new Uint8Array(64).fill(0xee))).toBe('unknown');
    expect(detectProtocolGeneration(new Uint8Array(3))).toBe('need-more');
  });
});
