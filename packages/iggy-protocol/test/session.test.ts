import { describe, expect, it } from 'vitest';
import {
  ClassicClientSession,
  CommandCode,
  IggyCodecError,
  IggyEvictionError,
  IggyError,
  IggyInvalidError,
  UNMATCHED_REPLY,
  VsrClientSession,
  decodeClassicRequest,
  decodeRegisterRequest,
  decodeVsrRequestFrame,
  encodeClassicResponse,
  encodeIdentityResponse,
  encodeRegisterReply,
  encodeResultSection,
  encodeStreamTarget,
  encodeVsrEvictionFrame,
  encodeVsrReplyFrame,
} from '@agdx/iggy-protocol';
import type { VsrPendingRequest } from '@agdx/iggy-protocol';

/** A minimal server answer for a pending request: OK, with an optional payload. */
function answer(p: VsrPendingRequest, payload: Uint8Array = new Uint8Array(0), framed = false): Uint8Array {
  const h = decodeVsrRequestFrame(p.frame).header;
  return encodeVsrReplyFrame({ client: h.client, request: h.request, operation: h.operation }, framed ? encodeResultSection([], payload) : payload);
}

function registered(now?: () => number): VsrClientSession {
  const s = new VsrClientSession({ clientId: 77n, ...(now ? { now } : {}) });
  const reg = s.register({ username: 'iggy', password: 'iggy' });
  s.handleFrame(answer(reg, encodeRegisterReply({ userId: 0, session: 500n, serverProtocolVersion: 11264, serverVersion: '0.9.0-edge.5' }), true));
  return s;
}

describe('VsrClientSession', () => {
  it('registers and keeps the session number', () => {
    const s = registered();
    expect(s.state).toBe('registered');
    expect(s.session).toBe(500n);
    expect(s.registration?.serverVersion).toBe('0.9.0-edge.5');
    expect(s.requestCounter).toBe(1n);
  });

  it('uses code 45 and the token shape for a PAT', () => {
    const s = new VsrClientSession({ clientId: 1n });
    const p = s.register({ token: 'abc' });
    expect(p.code).toBe(45);
    expect(decodeRegisterRequest(decodeVsrRequestFrame(p.frame).body).credentials).toEqual({ token: 'abc' });
  });

  it('numbers requests: metadata ops advance, NonReplicated and partition ops reuse', () => {
    const s = registered();
    const seen: [number, bigint, bigint][] = [];
    const send = (code: number) => {
      const p = s.command(code, encodeStreamTarget({ stream: 1 }));
      const h = decodeVsrRequestFrame(p.frame).header;
      seen.push([h.operation, h.request, h.session]);
      s.handleFrame(answer(p, new Uint8Array(0), h.operation >= 128 && h.operation !== 160));
    };
    send(CommandCode.CreateStream);
    send(CommandCode.GetStream);
    send(CommandCode.DeleteStream);
    send(CommandCode.SendMessages);
    send(CommandCode.StoreConsumerOffset);
    expect(seen).toEqual([
      [128, 1n, 500n],
      [2, 2n, 500n],
      [130, 2n, 500n],
      [160, 3n, 500n],
      [161, 3n, 500n],
    ]);
    const logout = s.logout();
    expect(decodeVsrRequestFrame(logout.frame).header).toMatchObject({ operation: 3, request: 3n });
    s.handleFrame(answer(logout));
    expect(s.state).toBe('closed');
  });

  it('puts the classic code in the header only for NonReplicated', () => {
    const s = registered();
    expect(decodeVsrRequestFrame(s.command(CommandCode.PollMessages).frame).header.code).toBe(100);
    s.close();
    const t = registered();
    expect(decodeVsrRequestFrame(t.command(CommandCode.CreateStream).frame).header.code).toBe(0);
  });

  it('refuses commands before login, except Ping', () => {
    const s = new VsrClientSession({ clientId: 3n });
    expect(() => s.command(CommandCode.GetStreams)).toThrow(IggyInvalidError);
    const ping = s.command(CommandCode.Ping);
    expect(decodeVsrRequestFrame(ping.frame).header).toMatchObject({ operation: 2, code: 1, request: 1n, session: 0n });
    expect(() => s.command(CommandCode.LoginUser)).toThrow(IggyInvalidError);
  });

  it('keeps a transient request in flight for an identical resend', () => {
    const s = new VsrClientSession({ clientId: 9n });
    const reg = s.register({ username: 'iggy', password: 'iggy' });
    const h = decodeVsrRequestFrame(reg.frame).header;
    const transient = encodeVsrReplyFrame({ client: 9n, request: 0n, operation: h.operation }, encodeResultSection([{ index: 0, code: 57 }]));
    expect(s.handleFrame(transient)).toMatchObject({ ok: false, retry: true, request: reg, error: { code: 57, transient: true } });
    expect(s.inFlight[0]?.frame).toBe(reg.frame);
    expect(s.state).toBe('registering');
  });

  it('an eviction closes the session', () => {
    const s = registered();
    s.command(CommandCode.GetStreams);
    expect(() => s.handleFrame(encodeVsrEvictionFrame({ client: 77n, reason: 13 }))).toThrow(IggyEvictionError);
    expect(s.state).toBe('closed');
    expect(s.inFlight).toHaveLength(0);
  });

  it('a failed register returns to unregistered; rejected commands surface IggyError', () => {
    const s = registered();
    const p = s.command(CommandCode.CreateStream);
    const h = decodeVsrRequestFrame(p.frame).header;
    const reject = encodeVsrReplyFrame({ client: 77n, request: h.request, operation: 128 }, encodeResultSection([{ index: 0, code: 1012 }]));
    const outcome = s.handleFrame(reject);
    expect(outcome).toMatchObject({ ok: false, retry: false, request: p, error: { code: 1012, codeName: 'StreamNameAlreadyExists' } });
    expect(!outcome.ok && outcome.error).toBeInstanceOf(IggyError);
    expect(s.inFlight).toHaveLength(0);
    expect(s.state).toBe('registered');
  });

  it('rejects replies that match nothing', () => {
    const s = registered();
    expect(() => s.handleFrame(encodeVsrReplyFrame({ client: 1n, request: 1n, operation: 2 }))).toThrow(IggyCodecError);
    s.command(CommandCode.GetStreams);
    expect(() => s.handleFrame(encodeVsrReplyFrame({ client: 1n, request: 1n, operation: 128 }, encodeResultSection()))).toThrow(IggyCodecError);
  });

  it('refuses a reply whose request number is not the one in flight, and says why', () => {
    const s = registered();
    const poll = s.command(CommandCode.PollMessages);
    const h = decodeVsrRequestFrame(poll.frame).header;
    const renumbered = encodeVsrReplyFrame({ client: 1n, request: h.request + 1n, operation: h.operation });
    let thrown: unknown;
    try {
      s.handleFrame(renumbered);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(IggyCodecError);
    expect((thrown as IggyCodecError).context?.['reason']).toBe(UNMATCHED_REPLY.requestNumber);
    expect(s.inFlight).toEqual([poll]);
    // The genuine reply still answers it; a second copy of it then answers nothing.
    const genuine = encodeVsrReplyFrame({ client: 1n, request: h.request, operation: h.operation });
    expect(s.handleFrame(genuine).request).toBe(poll);
    expect(() => s.handleFrame(genuine)).toThrow(expect.objectContaining({ context: expect.objectContaining({ reason: UNMATCHED_REPLY.nothingInFlight }) }));
  });

  it('matches replies that overtake each other by operation and request number', () => {
    const s = registered();
    const create = s.command(CommandCode.CreateStream);
    const poll = s.command(CommandCode.PollMessages);
    const send = s.command(CommandCode.SendMessages);
    const reply = (p: VsrPendingRequest, framed: boolean) => {
      const h = decodeVsrRequestFrame(p.frame).header;
      return encodeVsrReplyFrame({ client: 1n, request: h.request, operation: h.operation }, framed ? encodeResultSection() : new Uint8Array(0));
    };
    expect(s.handleFrame(reply(send, false)).request).toBe(send);
    expect(s.handleFrame(reply(poll, false)).request).toBe(poll);
    expect(s.handleFrame(reply(create, true)).request).toBe(create);
    expect(s.inFlight).toHaveLength(0);
  });

  it('accepts operation 68 for DeleteSegments', () => {
    const s = registered();
    s.command(CommandCode.DeleteSegments);
    expect(s.handleFrame(encodeVsrReplyFrame({ client: 1n, request: 1n, operation: 68 }, encodeResultSection()))).toMatchObject({ ok: true, payload: new Uint8Array(0) });
  });

  it('says when a heartbeat is due', () => {
    let t = 0;
    const s = registered(() => t);
    expect(s.heartbeatDue()).toBe(false);
    t = 5000;
    expect(s.heartbeatDue()).toBe(true);
    s.ping();
    expect(s.heartbeatDue()).toBe(false);
  });
});

describe('ClassicClientSession', () => {
  it('logs in, pipelines in order, and logs out', () => {
    const s = new ClassicClientSession();
    const login = s.login({ username: 'iggy', password: 'iggy' });
    expect(decodeClassicRequest(login.frame).code).toBe(38);
    expect(() => s.command(CommandCode.GetStreams)).toThrow(IggyInvalidError);
    s.handleFrame(encodeClassicResponse(0, encodeIdentityResponse(0)));
    expect(s.state).toBe('authenticated');
    expect(s.userId).toBe(0);
    const a = s.command(CommandCode.GetStream, encodeStreamTarget({ stream: 1 }));
    const b = s.ping();
    expect(s.handleFrame(encodeClassicResponse(0)).request).toBe(a);
    expect(s.handleFrame(encodeClassicResponse(0)).request).toBe(b);
    s.logout();
    s.handleFrame(encodeClassicResponse(0));
    expect(s.state).toBe('closed');
  });

  it('uses code 44 for a token and surfaces errors', () => {
    const s = new ClassicClientSession();
    expect(decodeClassicRequest(s.login({ token: 'tok' }).frame).code).toBe(44);
    expect(s.handleFrame(encodeClassicResponse(53))).toMatchObject({ ok: false, error: { code: 53, codeName: 'InvalidPersonalAccessToken' } });
    expect(s.state).toBe('anonymous');
    expect(() => s.handleFrame(encodeClassicResponse(0))).toThrow(IggyCodecError);
  });
});
