// Client and server state machines talking to each other through the frame splitters.
import { beforeAll, describe, expect, it } from 'vitest';
import {
  ClassicServerSession,
  CommandCode,
  IggyError,
  IggyEvictionError,
  VsrClientSession,
  VsrFrameSplitter,
  VsrServerSession,
  decodeCreateStreamRequest,
  decodeRegisterRequest,
  decodeVsrRequestFrame,
  decodeVsrServerFrame,
  encodeCreateStreamRequest,
  encodeRegisterReply,
  encodeStreamInfo,
  decodeStreamInfo,
  encodeVsrRequestFrame,
  initChecksums,
  vsrRequestChecksum,
} from '@agdx/iggy-protocol';

beforeAll(async () => {
  await initChecksums();
});

function pipe(server: VsrServerSession, frame: Uint8Array, handle: (code: number, body: Uint8Array) => { payload?: Uint8Array; results?: { index: number; code: number }[] } = () => ({})): Uint8Array[] {
  const splitter = new VsrFrameSplitter();
  const out: Uint8Array[] = [];
  for (let i = 0; i < frame.length; i += 7) {
    for (const f of splitter.push(frame.subarray(i, i + 7))) {
      const { header, body } = decodeVsrRequestFrame(f);
      const a = server.admit(header, body);
      if (a.action === 'drop') continue;
      if (a.action === 'respond') out.push(a.frame);
      else if (a.action === 'register') {
        const reg = decodeRegisterRequest(body);
        if ('token' in reg.credentials || reg.credentials.password !== 'iggy') out.push(server.evict(header.client, 9));
        else out.push(server.bind(header, 0, 1000n, encodeRegisterReply({ userId: 0, session: 1000n, serverProtocolVersion: 11264, serverVersion: 'dev' })));
      } else out.push(server.reply(header, handle(a.code, body)));
    }
  }
  return out;
}

describe('VsrServerSession with VsrClientSession', () => {
  it('registers, executes, replays a duplicate, and logs out', () => {
    const server = new VsrServerSession();
    const client = new VsrClientSession({ clientId: 5n });
    const [regReply] = pipe(server, client.register({ username: 'iggy', password: 'iggy' }).frame);
    client.handleFrame(regReply!);
    expect(client.session).toBe(1000n);
    expect(server.state).toBe('bound');

    const stream = { id: 0, createdAt: 1n, topicsCount: 0, sizeBytes: 0n, messagesCount: 0n, name: 'agents', options: new Map() };
    const create = client.command(CommandCode.CreateStream, encodeCreateStreamRequest({ name: 'agents' }, 'vsr'));
    let executed = 0;
    const handler = (code: number, body: Uint8Array) => {
      executed++;
      expect(code).toBe(CommandCode.CreateStream);
      expect(decodeCreateStreamRequest(body, 'vsr').name).toBe('agents');
      return { payload: encodeStreamInfo(stream, 'vsr') };
    };
    const [reply] = pipe(server, create.frame, handler);
    const created = client.handleFrame(reply!);
    expect(created.ok && decodeStreamInfo(created.payload, 'vsr')).toEqual(stream);
    // The identical bytes again (a resend after a transient): the cached reply, not a re-execution.
    const [again] = pipe(server, create.frame, handler);
    expect(again).toEqual(reply);
    expect(executed).toBe(1);

    const dup = client.command(CommandCode.CreateStream, encodeCreateStreamRequest({ name: 'agents' }, 'vsr'));
    const [rejected] = pipe(server, dup.frame, () => ({ results: [{ index: 0, code: 1012 }] }));
    expect(client.handleFrame(rejected!)).toMatchObject({ ok: false, request: dup, error: { code: 1012 } });

    const [pong] = pipe(server, client.ping().frame);
    expect(client.handleFrame(pong!)).toMatchObject({ ok: true, payload: new Uint8Array(0) });

    const [bye] = pipe(server, client.logout().frame);
    client.handleFrame(bye!);
    expect(client.state).toBe('closed');
    expect(server.state).toBe('closed');
  });

  it('keeps at most replyCacheBytes of replies, oldest out first, the newest even when larger, the Register reply always', () => {
    const server = new VsrServerSession({ replyCacheBytes: 10_000 });
    const client = new VsrClientSession({ clientId: 6n });
    const register = client.register({ username: 'iggy', password: 'iggy' }).frame;
    const [regReply] = pipe(server, register);
    client.handleFrame(regReply!);
    const big = (n: number) => () => ({ payload: new Uint8Array(n).fill(1) });
    const sent = [];
    for (let i = 0; i < 8; i++) {
      const req = client.command(CommandCode.CreateStream, encodeCreateStreamRequest({ name: `s${i}` }, 'vsr'));
      const [reply] = pipe(server, req.frame, big(3000));
      client.handleFrame(reply!);
      sent.push({ req, reply });
      expect(server.cachedReplyBytes).toBeLessThanOrEqual(10_000);
    }
    // The three newest fit; an older one is answered 59, the newest replayed as it was.
    const [old] = pipe(server, sent[0]!.req.frame, () => {
      throw new Error('a resent request must not run again');
    });
    expect(old!.length).toBeLessThan(1000);
    const [newest] = pipe(server, sent[7]!.req.frame);
    expect(newest).toEqual(sent[7]!.reply);
    // A reply larger than the whole budget is still kept on its own, as the newest.
    const huge = client.command(CommandCode.CreateStream, encodeCreateStreamRequest({ name: 'huge' }, 'vsr'));
    const [hugeReply] = pipe(server, huge.frame, big(20_000));
    client.handleFrame(hugeReply!);
    expect(server.cachedReplyBytes).toBe(hugeReply!.length);
    expect(pipe(server, huge.frame)[0]).toEqual(hugeReply);
    // Re-Register on the bound connection still replays the session.
    expect(pipe(server, register)[0]).toEqual(regReply);
  });

  it('evicts a bad password with reason 9 → IggyError 42', () => {
    const server = new VsrServerSession();
    const client = new VsrClientSession({ clientId: 5n });
    const [ev] = pipe(server, client.register({ username: 'iggy', password: 'nope' }).frame);
    expect(() => client.handleFrame(ev!)).toThrow(IggyEvictionError);
    expect(client.state).toBe('closed');
  });

  it('before login: Ping works, other reads get 40, replicated ops are evicted, legacy login codes get MalformedLogin', () => {
    const server = new VsrServerSession();
    const ping = encodeVsrRequestFrame({ client: 9n, request: 1n, operation: 2, code: 1 });
    expect(decodeVsrServerFrame(pipe(server, ping)[0]!)).toMatchObject({ type: 'reply', header: { status: 0 } });
    const read = encodeVsrRequestFrame({ client: 9n, request: 1n, operation: 2, code: 201 });
    expect(decodeVsrServerFrame(pipe(server, read)[0]!)).toMatchObject({ type: 'reply', header: { status: 40 } });
    const logout = encodeVsrRequestFrame({ client: 9n, request: 1n, session: 1n, operation: 3 });
    expect(decodeVsrServerFrame(pipe(server, logout)[0]!)).toMatchObject({ type: 'reply', header: { status: 0 } });
    const legacy = encodeVsrRequestFrame({ client: 9n, request: 1n, operation: 2, code: 38 });
    expect(decodeVsrServerFrame(pipe(new VsrServerSession(), legacy)[0]!)).toMatchObject({ type: 'eviction', header: { reason: 15 } });
    const create = encodeVsrRequestFrame({ client: 9n, request: 1n, session: 1n, operation: 128 });
    expect(decodeVsrServerFrame(pipe(new VsrServerSession(), create)[0]!)).toMatchObject({ type: 'eviction', header: { reason: 1 } });
    const bad = encodeVsrRequestFrame({ client: 9n, request: 0n, session: 0n, operation: 128 });
    expect(pipe(new VsrServerSession(), bad)).toEqual([]);
  });

  it('after login: replicated codes inside NonReplicated get 5, unknown codes 3', () => {
    const server = new VsrServerSession();
    const client = new VsrClientSession({ clientId: 5n });
    client.handleFrame(pipe(server, client.register({ username: 'iggy', password: 'iggy' }).frame)[0]!);
    const misuse = encodeVsrRequestFrame({ client: 5n, request: 1n, session: 1000n, operation: 2, code: 202 });
    expect(decodeVsrServerFrame(pipe(server, misuse)[0]!)).toMatchObject({ header: { status: 5 } });
    const unknown = encodeVsrRequestFrame({ client: 5n, request: 1n, session: 1000n, operation: 2, code: 60001 });
    expect(decodeVsrServerFrame(pipe(server, unknown)[0]!)).toMatchObject({ header: { status: 3 } });
    expect(new IggyError(5).codeName).toBe('FeatureUnavailable');
  });
});

describe('request checksums', () => {
  it('a stamping client passes; a corrupted body gets status 4; reuse with another checksum is dropped', () => {
    const server = new VsrServerSession();
    const client = new VsrClientSession({ clientId: 5n, stampRequestChecksum: true });
    const reg = client.register({ username: 'iggy', password: 'iggy' });
    expect(decodeVsrRequestFrame(reg.frame).header.requestChecksum).toBe(vsrRequestChecksum(decodeVsrRequestFrame(reg.frame).body));
    client.handleFrame(pipe(server, reg.frame)[0]!);
    const create = client.command(CommandCode.CreateStream, encodeCreateStreamRequest({ name: 'a' }, 'vsr'));
    const corrupted = create.frame.slice();
    corrupted[corrupted.length - 1]! ^= 1;
    expect(decodeVsrServerFrame(pipe(server, corrupted)[0]!)).toMatchObject({ header: { status: 4 } });
    expect(client.handleFrame(pipe(server, create.frame)[0]!).ok).toBe(true);
    const other = encodeVsrRequestFrame({ client: 5n, request: 1n, session: 1000n, operation: 128, requestChecksum: vsrRequestChecksum(new Uint8Array([2, 0x62])) }, new Uint8Array([2, 0x62]));
    expect(pipe(server, other)).toEqual([]);
  });
});

describe('ClassicServerSession', () => {
  it('requires login except for Ping and the logins', () => {
    const s = new ClassicServerSession();
    expect(s.admit(CommandCode.Ping)).toEqual({ action: 'execute', code: 1 });
    expect(s.admit(CommandCode.GetStreams)).toEqual({ action: 'deny', status: 40 });
    expect(s.admit(99999)).toEqual({ action: 'deny', status: 3 });
    expect(s.admit(CommandCode.LoginRegister)).toEqual({ action: 'deny', status: 3 });
    s.login(0);
    expect(s.admit(CommandCode.GetStreams)).toEqual({ action: 'execute', code: 201 });
    s.logout();
    expect(s.authenticated).toBe(false);
  });
});
