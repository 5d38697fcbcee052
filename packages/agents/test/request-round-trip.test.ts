/**
 * `request()` registers its wait (synchronously once the hub's readers run) and sends through the
 * builder's publish path; a send prepares synchronously without a governor, claim check or signer
 * and asynchronously with one. These hold the behaviour callers rely on across both: a reply that
 * lands before the send is acknowledged still answers, a failed or throwing send rejects with a
 * typed error and leaves no wait behind, aborts before and during, and the two prepare paths
 * publish the same records and fail the same way.
 */
import { describe, expect, it } from 'vitest';
import { AgdxClient, AgentTopic, CancelledError, PublishFailedError, agentMessageBody, type AgdxTelemetry, type SendEvent } from '@agdx/agents';
import { ConversationId, CorrelationId, InvalidError, MintUlid } from '@agdx/wire';
import { MemoryLog, TransportFailureError, type AppendRequest, type AppendResult, type LogTransport } from '@agdx/transport';
import { readAll } from './support-client/client.js';
import { overriding } from './support-runtime/overriding.js';

const STREAM = 'rt';
const enc = new TextEncoder();
const dec = (b: Uint8Array): string => new TextDecoder().decode(b);
const includes = (request: AppendRequest, marker: string): boolean => request.records.some((r) => dec(r.payload).includes(marker));

/** A requester over `append` (replacing the log's), and a worker client straight on the log. */
async function setup(append: (request: AppendRequest, log: MemoryLog) => Promise<AppendResult>): Promise<{ laser: AgdxClient; worker: AgdxClient; log: MemoryLog }> {
  const log = new MemoryLog();
  const transport: LogTransport = overriding(log, { append: (request: AppendRequest) => append(request, log) });
  const laser = AgdxClient.from(transport, { stream: STREAM });
  await laser.bootstrap(2);
  const worker = AgdxClient.from(log, { stream: STREAM });
  return { laser, worker, log };
}

const later = (ms = 5): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('request() round trip', () => {
  it('is answered by a reply that lands before its own send is acknowledged, whether the hub was idle or running', async () => {
    let worker!: AgdxClient;
    const { laser, worker: w } = await setup(async (request, log) => {
      const at = await log.append(request);
      const marker = request.records.map((r) => dec(r.payload)).find((p) => p.includes('REQ:'));
      if (marker !== undefined) {
        // The answer is on the log, and read by the hub, before this append returns.
        const conversation = ConversationId.parse(/REQ:([^|]+)\|/.exec(marker)?.[1] as string);
        const correlation = CorrelationId.parse(/\|([^|]+)\|END/.exec(marker)?.[1] as string);
        await worker.agdx(AgentTopic.Sessions, 'worker', conversation).respond(correlation, enc.encode(`answer ${correlation.toString()}`)).send();
        await later();
      }
      return at;
    });
    worker = w;
    const hub = laser.replies(AgentTopic.Sessions);
    for (let i = 0; i < 3; i++) {
      const conversation = ConversationId.new();
      const correlation = MintUlid.mint(CorrelationId);
      const builder = laser.agdx(AgentTopic.Sessions, 'requester', conversation).command(correlation, enc.encode(`REQ:${conversation.toString()}|${correlation.toString()}|END`));
      const answer = await laser.request(builder, { replyTopic: AgentTopic.Sessions, timeoutMs: 10_000 });
      expect(dec(agentMessageBody(answer))).toBe(`answer ${correlation.toString()}`);
      expect(hub.pending).toBe(0);
    }
    await laser.close();
  });

  it('rejects with PublishFailedError and leaves no wait when the send fails, by rejection or by a throw, on an idle or running hub', async () => {
    const state = { mode: 'ok' as 'ok' | 'reject' | 'throw' };
    const { laser, log } = await setup((request, inner) => {
      if (!includes(request, 'REQ')) return inner.append(request);
      if (state.mode === 'reject') return Promise.reject(new TransportFailureError('the log went away'));
      if (state.mode === 'throw') throw new TransportFailureError('the transport threw');
      return inner.append(request);
    });
    const hub = laser.replies(AgentTopic.Sessions);
    const conversation = ConversationId.new();
    const ask = (): Promise<unknown> =>
      laser.request(laser.agdx(AgentTopic.Sessions, 'requester', conversation).command(MintUlid.mint(CorrelationId), enc.encode('REQ')), { replyTopic: AgentTopic.Sessions, timeoutMs: 10_000 });
    for (const mode of ['reject', 'throw'] as const) {
      state.mode = mode;
      // Idle hub (first registration seeds the readers) ...
      let calling: Promise<unknown> | undefined;
      expect(() => (calling = ask())).not.toThrow();
      await expect(calling).rejects.toBeInstanceOf(PublishFailedError);
      expect(hub.pending).toBe(0);
      // ... and running hub (a wait is pending, so registration is synchronous).
      state.mode = 'ok';
      const held = await hub.expect({ correlation: MintUlid.mint(CorrelationId), conversation, timeoutMs: 10_000 });
      state.mode = mode;
      expect(() => (calling = ask())).not.toThrow();
      await expect(calling).rejects.toBeInstanceOf(PublishFailedError);
      expect(hub.pending).toBe(1);
      held.cancel();
      expect(hub.pending).toBe(0);
    }
    expect(await readAll(log, STREAM, AgentTopic.Sessions)).toHaveLength(0);
    await laser.close();
  });

  it('an abort before the request publishes nothing; one while waiting rejects with CancelledError and leaves no wait', async () => {
    const { laser, log } = await setup((request, inner) => inner.append(request));
    const hub = laser.replies(AgentTopic.Sessions);
    const conversation = ConversationId.new();
    const before = new AbortController();
    before.abort();
    const builder = (): ReturnType<AgdxClient['agdx']> => laser.agdx(AgentTopic.Sessions, 'requester', conversation);
    await expect(laser.request(builder().command(MintUlid.mint(CorrelationId), enc.encode('a')), { replyTopic: AgentTopic.Sessions, timeoutMs: 10_000, signal: before.signal })).rejects.toBeInstanceOf(CancelledError);
    expect(await readAll(log, STREAM, AgentTopic.Sessions)).toHaveLength(0);
    expect(hub.pending).toBe(0);
    for (let i = 0; i < 2; i++) {
      // The second time the hub's readers still run (they outlive the last wait briefly).
      const during = new AbortController();
      const waiting = laser.request(builder().command(MintUlid.mint(CorrelationId), enc.encode('b')), { replyTopic: AgentTopic.Sessions, timeoutMs: 10_000, signal: during.signal });
      while ((await readAll(log, STREAM, AgentTopic.Sessions)).length < i + 1) await later(1);
      expect(hub.pending).toBe(1);
      during.abort();
      await expect(waiting).rejects.toBeInstanceOf(CancelledError);
      expect(hub.pending).toBe(0);
    }
    await laser.close();
  });
});

describe('send(): the synchronous and the asynchronous prepare paths', () => {
  /** Every field of the stored records but the ones a send mints afresh. */
  async function stored(log: MemoryLog, topic: string): Promise<unknown[]> {
    return (await readAll(log, STREAM, topic)).map((r) => ({ headers: [...r.headers.entries()].map(([k, v]) => [k, v.kind]).sort(), size: r.payload.length }));
  }

  it('publish the same records with the same headers, in call order per place, and fail the same way', async () => {
    const plainLog = new MemoryLog();
    const governedLog = new MemoryLog();
    const plain = AgdxClient.from(plainLog, { stream: STREAM });
    const governed = AgdxClient.from(governedLog, { stream: STREAM, governor: { check: async () => ({ kind: 'allow' }) } });
    await plain.bootstrap(2);
    await governed.bootstrap(2);
    const conversation = ConversationId.new();
    for (const laser of [plain, governed]) {
      const sends: Promise<unknown>[] = [];
      for (let i = 0; i < 20; i++) sends.push(laser.agdx(AgentTopic.Sessions, 'me', conversation).command(MintUlid.mint(CorrelationId), enc.encode(`n${i}`)).send());
      await Promise.all(sends);
    }
    expect(await stored(governedLog, AgentTopic.Sessions)).toEqual(await stored(plainLog, AgentTopic.Sessions));
    const order = async (log: MemoryLog): Promise<string[]> => (await readAll(log, STREAM, AgentTopic.Sessions)).map((r) => /n\d+/.exec(dec(r.payload))?.[0] as string);
    expect(await order(plainLog)).toEqual(Array.from({ length: 20 }, (_, i) => `n${i}`));
    expect(await order(governedLog)).toEqual(await order(plainLog));
    // Same error, as a rejection, never thrown from send(): a second send of one builder.
    for (const laser of [plain, governed]) {
      const once = laser.agdx(AgentTopic.Sessions, 'me', conversation).command(MintUlid.mint(CorrelationId), enc.encode('x'));
      await once.send();
      let again: Promise<unknown> | undefined;
      expect(() => (again = once.send())).not.toThrow();
      await expect(again).rejects.toBeInstanceOf(InvalidError);
    }
    await plain.close();
    await governed.close();
  });

  it('a transport that throws instead of rejecting still rejects send() with PublishFailedError and still ends its span, on both paths', async () => {
    for (const governor of [undefined, { check: () => ({ kind: 'allow' as const }) }]) {
      const log = new MemoryLog();
      const transport = overriding(log, {
        append: (request: AppendRequest) => {
          if (includes(request, 'boom')) throw new TransportFailureError('thrown, not rejected');
          return log.append(request);
        },
      });
      const laser = AgdxClient.from(transport, { stream: STREAM, governor });
      await laser.bootstrap(1);
      const ended: string[] = [];
      const telemetry: AgdxTelemetry = {
        onSend: (event: SendEvent) => ({ end: (at, error) => ended.push(`${event.envelope.kind}:${at === undefined ? (error instanceof PublishFailedError ? 'PublishFailedError' : 'other') : 'ok'}`) }),
        onChunkStream: () => undefined,
        onHandle: () => undefined,
        onWait: () => undefined,
        onDeadLetter: () => undefined,
      };
      const conversation = ConversationId.new();
      // Without a span first (the appender's promise is the send's), then with one.
      for (const hooked of [false, true]) {
        laser.instrument(hooked ? telemetry : undefined);
        let sending: Promise<unknown> | undefined;
        expect(() => (sending = laser.agdx(AgentTopic.Sessions, 'me', conversation).command(MintUlid.mint(CorrelationId), enc.encode('boom')).send())).not.toThrow();
        await expect(sending).rejects.toBeInstanceOf(PublishFailedError);
      }
      await laser.agdx(AgentTopic.Sessions, 'me', conversation).command(MintUlid.mint(CorrelationId), enc.encode('fine')).send();
      expect(ended).toEqual(['command:PublishFailedError', 'command:ok']);
      await laser.close();
    }
  });
});
