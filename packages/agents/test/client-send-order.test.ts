/**
 * The client's sends go through one ordered, coalescing appender: concurrent sends to one place
 * land in call order and leave in a few appends, each caller learns where its own record landed,
 * and a failure or an abort reaches the callers it concerns. Over the dev server: client-iggy.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { AgdxClient, AgentTopic, readAgentMessage } from '@agdx/agents';
import { AgdxError, AgentId, ConversationId, CorrelationId, MintUlid } from '@agdx/wire';
import { InvalidArgumentError, MemoryLog, TransportFailureError, type AppendRequest, type AppendResult, type LogRecord, type LogTransport } from '@agdx/transport';
import { readAll } from './support-client/client.js';
import { overriding } from './support-runtime/overriding.js';

const STREAM = 'order';
const enc = new TextEncoder();
const dec = (b: Uint8Array): string => new TextDecoder().decode(b);

/**
 * A MemoryLog whose appends wait for the test to let them through, one at a time, recording each
 * append's size; `refuse` makes the transport reject an append as invalid (nothing stored) when
 * any record's payload contains the marker, as a transport does for a record it cannot send.
 */
function gatedLog() {
  const log = new MemoryLog();
  const sizes: number[] = [];
  let gates: ((outcome: 'ok' | Error) => void)[] = [];
  const state = { open: false, refuse: undefined as string | undefined };
  const append = async (request: AppendRequest): Promise<AppendResult> => {
    if (request.topic !== AgentTopic.Sessions) return log.append(request);
    const marker = state.refuse;
    if (marker !== undefined && request.records.some((r) => dec(r.payload).includes(marker))) throw new InvalidArgumentError('a record the transport refuses');
    if (!state.open) {
      const outcome = await new Promise<'ok' | Error>((resolve) => gates.push(resolve));
      if (outcome instanceof Error) throw outcome;
    }
    sizes.push(request.records.length);
    return log.append(request);
  };
  const transport: LogTransport = overriding(log, { append });
  const waitForGates = async (n: number): Promise<void> => {
    for (let i = 0; i < 1000 && gates.length < n; i++) await new Promise((r) => setTimeout(r, 1));
    expect(gates.length).toBeGreaterThanOrEqual(n);
  };
  return {
    log,
    transport,
    sizes,
    state,
    /** Lets the oldest held append through (or fails it with `error`) once it is held. */
    async release(error?: Error): Promise<void> {
      await waitForGates(1);
      const [next, ...rest] = gates;
      gates = rest;
      next?.(error ?? 'ok');
    },
    open(): void {
      state.open = true;
      for (const g of gates) g('ok');
      gates = [];
    },
  };
}

function bodyOf(record: LogRecord): string {
  return dec(readAgentMessage(record, { stream: STREAM, topic: AgentTopic.Sessions }).envelope?.body ?? new Uint8Array());
}

/** The bodies of the commands on agent.sessions, in log order. */
async function bodies(log: LogTransport): Promise<string[]> {
  return (await readAll(log, STREAM, AgentTopic.Sessions)).map(bodyOf);
}

async function client(transport: LogTransport): Promise<AgdxClient> {
  const laser = AgdxClient.from(transport, { stream: STREAM });
  await laser.bootstrap(2);
  return laser;
}

describe('ordered, coalesced sends', () => {
  it('sends 64 concurrent commands to one conversation in call order, in a few appends, each receipt naming its own record', async () => {
    const gated = gatedLog();
    const laser = await client(gated.transport);
    const conversation = ConversationId.new();
    const planner = AgentId.new('planner');
    const sends = Array.from({ length: 64 }, (_, i) =>
      laser.agdx(AgentTopic.Sessions, planner, conversation).command(MintUlid.mint(CorrelationId), enc.encode(`job ${i}`)).withTarget('worker').sendReceipt(),
    );
    // The first goes alone; the 63 issued meanwhile queue behind it and leave together.
    await gated.release();
    await gated.release();
    const receipts = await Promise.all(sends);
    expect(gated.sizes).toEqual([1, 63]);
    const records = await readAll(gated.log, STREAM, AgentTopic.Sessions);
    expect(records.map(bodyOf)).toEqual(
      Array.from({ length: 64 }, (_, i) => `job ${i}`),
    );
    for (const [i, receipt] of receipts.entries()) {
      const at = records.find((r) => r.partition === receipt.position.partition && r.offset === receipt.position.offset);
      expect(at && readAgentMessage(at, { stream: STREAM, topic: AgentTopic.Sessions }).envelope?.record?.equals(receipt.record)).toBe(true);
      expect(dec(receipt.envelope.body)).toBe(`job ${i}`);
    }
    await laser.close();
  });

  it('splits a queue longer than one merged append allows (4,096 records) into appends that keep call order', async () => {
    const gated = gatedLog();
    const laser = await client(gated.transport);
    const conversation = ConversationId.new();
    const planner = AgentId.new('planner');
    const total = 1 + 4096 + 5;
    const sends = Array.from({ length: total }, (_, i) =>
      laser.agdx(AgentTopic.Sessions, planner, conversation).command(MintUlid.mint(CorrelationId), enc.encode(`job ${i}`)).withTarget('worker').sendReceipt(),
    );
    await gated.release();
    await gated.release();
    await gated.release();
    const receipts = await Promise.all(sends);
    expect(gated.sizes).toEqual([1, 4096, 5]);
    expect(await bodies(gated.log)).toEqual(Array.from({ length: total }, (_, i) => `job ${i}`));
    expect(receipts.map((r) => r.position.offset)).toEqual(Array.from({ length: total }, (_, i) => BigInt(i)));
    await laser.close();
  });

  it('keeps conversations apart: a send to another place does not wait behind a held one', async () => {
    const gated = gatedLog();
    const laser = await client(gated.transport);
    const planner = AgentId.new('planner');
    const held = laser.agdx(AgentTopic.Sessions, planner, ConversationId.new()).command(MintUlid.mint(CorrelationId), enc.encode('held')).send();
    // agent.commands is not gated: a command there goes out while the sessions append is held.
    const other = await laser.agdx(AgentTopic.Commands, planner, ConversationId.new()).command(MintUlid.mint(CorrelationId), enc.encode('free')).send();
    expect(other).toBeDefined();
    gated.open();
    await held;
    await laser.close();
  });

  it('fails every caller of a failed merged append with a PublishFailedError, and later sends still go out in order', async () => {
    const gated = gatedLog();
    const laser = await client(gated.transport);
    const conversation = ConversationId.new();
    const send = (body: string) => laser.agdx(AgentTopic.Sessions, AgentId.new('planner'), conversation).command(MintUlid.mint(CorrelationId), enc.encode(body)).send();
    const first = send('first');
    const merged = [send('m1'), send('m2'), send('m3')];
    for (const m of merged) m.catch(() => undefined);
    await gated.release();
    await first;
    await gated.release(new TransportFailureError('the broker is gone'));
    for (const m of merged) {
      const error = await m.catch((e: unknown) => e);
      expect(AgdxError.is(error, 'publish-failed')).toBe(true);
      expect((error as AgdxError & { retryable?: boolean }).retryable).toBe(true);
    }
    gated.open();
    await send('after');
    expect(await bodies(gated.log)).toEqual(['first', 'after']);
    await laser.close();
  });

  it('when the transport refuses a merged append as invalid, only the caller whose record it refuses fails; the others land in order', async () => {
    const gated = gatedLog();
    const laser = await client(gated.transport);
    const conversation = ConversationId.new();
    const send = (body: string) => laser.agdx(AgentTopic.Sessions, AgentId.new('planner'), conversation).command(MintUlid.mint(CorrelationId), enc.encode(body)).send();
    const first = send('first');
    const rest = ['a', 'poison', 'b', 'c'].map((b) => send(b));
    for (const r of rest) r.catch(() => undefined);
    gated.state.refuse = 'poison';
    await gated.release();
    await first;
    gated.open();
    const outcomes = await Promise.allSettled(rest);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
    const refused = (outcomes[1] as PromiseRejectedResult).reason as AgdxError;
    expect(AgdxError.is(refused, 'publish-failed')).toBe(true);
    expect(AgdxError.is(refused.cause, 'invalid')).toBe(true);
    expect(await bodies(gated.log)).toEqual(['first', 'a', 'b', 'c']);
    await laser.close();
  });

  it('a send aborted while queued is never stored and rejects with CancelledError; the others are unaffected', async () => {
    const gated = gatedLog();
    const laser = await client(gated.transport);
    const conversation = ConversationId.new();
    const send = (body: string, signal?: AbortSignal) =>
      laser.agdx(AgentTopic.Sessions, AgentId.new('planner'), conversation).command(MintUlid.mint(CorrelationId), enc.encode(body)).send({ signal });
    const first = send('first');
    const controller = new AbortController();
    const queued = [send('a'), send('dropped', controller.signal), send('b')];
    queued[1]?.catch(() => undefined);
    // Let the three reach the queue behind the held first (they are prepared asynchronously).
    await new Promise((r) => setTimeout(r, 20));
    controller.abort(new Error('changed my mind'));
    const error = await queued[1]?.catch((e: unknown) => e);
    expect(AgdxError.is(error, 'cancelled')).toBe(true);
    await gated.release();
    await first;
    gated.open();
    await Promise.all([queued[0], queued[2]]);
    expect(await bodies(gated.log)).toEqual(['first', 'a', 'b']);
    await laser.close();
  });

  it('a send whose signal already fired is refused before anything is sent', async () => {
    const gated = gatedLog();
    const laser = await client(gated.transport);
    gated.open();
    const controller = new AbortController();
    controller.abort();
    const error = await laser
      .agdx(AgentTopic.Sessions, AgentId.new('planner'), ConversationId.new())
      .command(MintUlid.mint(CorrelationId), enc.encode('never'))
      .send({ signal: controller.signal })
      .catch((e: unknown) => e);
    expect(AgdxError.is(error, 'cancelled')).toBe(true);
    expect(gated.sizes).toEqual([]);
    await laser.close();
  });
});

describe('ordered sends over many topics', () => {
  it('keeps call order on a topic after sending to more topics than the appender keeps idle maps for', async () => {
    const log = new MemoryLog();
    const laser = await client(log);
    const planner = AgentId.new('planner');
    const topics = Array.from({ length: 300 }, (_, i) => `topic-${i}`);
    for (const topic of topics) await log.ensureTopic({ stream: STREAM, topic }, { partitions: 1 });
    // One send per topic, each settled before the next: every place goes idle, and the maps the
    // appender keeps per topic are swept on the way.
    for (const topic of topics) await laser.agdx(topic, planner, ConversationId.new()).command(MintUlid.mint(CorrelationId), enc.encode(topic)).send();
    const conversation = ConversationId.new();
    const sends = Array.from({ length: 32 }, (_, i) => laser.agdx('topic-0', planner, conversation).command(MintUlid.mint(CorrelationId), enc.encode(`job ${i}`)).sendReceipt());
    const receipts = await Promise.all(sends);
    expect(receipts.map((r) => r.position.offset)).toEqual(Array.from({ length: 32 }, (_, i) => BigInt(i + 1)));
    const records = await readAll(log, STREAM, 'topic-0');
    expect(records.map((r) => dec(readAgentMessage(r, { stream: STREAM, topic: 'topic-0' }).envelope?.body ?? new Uint8Array()))).toEqual(['topic-0', ...Array.from({ length: 32 }, (_, i) => `job ${i}`)]);
    await laser.close();
  });
});
