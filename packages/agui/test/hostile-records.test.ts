/**
 * A record the reader cannot use, among good ones (issue 19): the AG-UI reads skip it, report it
 * once to `onError` with its position, and the good records' events still arrive.
 */
import { AgdxClient, AgentTopic } from '@agdx/agents';
import { AguiBridge, type AguiEvent } from '@agdx/agui';
import { MemoryLog } from '@agdx/transport';
import { AgentEnvelope, AgentId, CodecError, ContentType, ConversationId, CorrelationId, envelopeRecord, MintUlid, RecordId } from '@agdx/wire';
import { afterEach, describe, expect, it } from 'vitest';
import { writeAnswer } from './support/scenario.js';
import { sseBlocks, startServer } from './support/server.js';

/** A CBOR array of `n` zeros: before bounded decoding, 16 MiB of it took seconds to refuse. */
function zeros(n: number): Uint8Array {
  const out = new Uint8Array(n + 5);
  out.set([0x9a, (n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff]);
  return out;
}

/** A map of `n` distinct keys: neither a state capsule nor JSON. */
function wideMap(n: number): Uint8Array {
  const parts: number[] = [0xba, (n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff];
  for (let i = 0; i < n; i++) {
    const key = `k${i}`;
    parts.push(0x60 + key.length, ...Array.from(key, (c) => c.charCodeAt(0)), 0);
  }
  return new Uint8Array(parts);
}

interface Setup {
  readonly log: MemoryLog;
  readonly bridge: AguiBridge;
  readonly laser: AgdxClient;
  readonly errors: CodecError[];
  readonly conversation: ConversationId;
  /** Offsets of the two hostile records. */
  readonly hostile: readonly bigint[];
  /** The conversation's events before the hostile records were written. */
  readonly clean: readonly AguiEvent[];
}

/** A bridge over a fresh log holding one finished answer, and the answer's events (read with nothing reported). */
async function answered(): Promise<Omit<Setup, 'hostile'>> {
  const log = new MemoryLog();
  const laser = AgdxClient.from(log, { stream: 'demo' });
  await laser.bootstrap(4);
  const errors: CodecError[] = [];
  const bridge = new AguiBridge(laser, { onError: (e) => errors.push(e) });
  const { conversation } = await writeAnswer(laser, bridge);
  const clean = await bridge.aguiEvents(conversation);
  expect(errors).toEqual([]);
  return { log, laser, bridge, errors, conversation, clean };
}

/** The assistant's state snapshot of `conversation` with `body`, as a record for agent.sessions. */
function stateSnapshotRecord(conversation: ConversationId, body: Uint8Array, contentType: number) {
  const state = AgentEnvelope.fromFields({ kind: 'event', record: MintUlid.mint(RecordId), conversation, source: AgentId.new('assistant'), operation: 'state_snapshot', body });
  return envelopeRecord(state, contentType, { topic: AgentTopic.Sessions });
}

/** A finished answer, then an undecodable record and a state record with an unreadable body. */
async function setup(): Promise<Setup> {
  const { log, laser, bridge, errors, conversation, clean } = await answered();
  const good = stateSnapshotRecord(conversation, wideMap(200_000), ContentType.cbor);
  const hostile: bigint[] = [];
  for (const payload of [zeros(16 * 1024 * 1024 - 8), good.payload]) {
    const result = await log.append({ stream: 'demo', topic: AgentTopic.Sessions, routing: { key: good.partitionKey }, records: [{ headers: good.headers, payload }] });
    hostile.push(result.baseOffset);
  }
  return { log, bridge, laser, errors, conversation, hostile, clean };
}

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

function expectReported(errors: readonly CodecError[], hostile: readonly bigint[], partition: number): void {
  expect(errors.map((e) => e.context?.['offset'])).toEqual(hostile);
  for (const error of errors) {
    expect(error).toBeInstanceOf(CodecError);
    expect(error.context).toMatchObject({ stream: 'demo', topic: AgentTopic.Sessions, partition });
    expect(error.message).toContain(`demo/${AgentTopic.Sessions} ${partition}:`);
  }
}

describe('AG-UI reads past hostile records', () => {
  it('aguiEvents skips them, reports each once with its position, and keeps every other event', async () => {
    const { bridge, laser, errors, conversation, hostile, clean } = await setup();
    const started = performance.now();
    const events = await bridge.aguiEvents(conversation);
    // Generous: the bound is about not stalling (seconds before), not about speed.
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(events).toEqual(clean);
    const partition = errors[0]?.context?.['partition'] as number;
    expectReported(errors, hostile, partition);
    expect(errors[0]?.context?.['reason']).toBe('codec');
    // the bridge kept its replay: asking again reads nothing old, so nothing is reported twice
    expect(await bridge.aguiEvents(conversation)).toEqual(clean);
    expectReported(errors, hostile, partition);
    // a fresh bridge reads from 0 and reports them once more, to its own handler
    const fresh: CodecError[] = [];
    expect(await new AguiBridge(laser, { onError: (e) => fresh.push(e) }).aguiEvents(conversation)).toEqual(clean);
    expectReported(fresh, hostile, partition);
  });

  it('the live SSE stream reports them once and goes on to records written after them', async () => {
    const { bridge, laser, errors, conversation, hostile, clean } = await setup();
    const server = await startServer(bridge.handler({ keepaliveMs: 50 }));
    closers.push(server.close);
    const abort = new AbortController();
    const response = await fetch(`${server.url}/agui?threadId=${conversation}`, { signal: abort.signal });
    const blocks = sseBlocks(response);
    const events: AguiEvent[] = [];
    const later = laser.agdx(AgentTopic.Sessions, AgentId.new('assistant'), conversation);
    let wroteLater = false;
    for (let i = 0; i < 10_000 && events.length < clean.length + 1; i++) {
      const next = await blocks.next();
      if (next.done === true) break;
      if (next.value.data !== undefined) events.push(JSON.parse(next.value.data) as AguiEvent);
      if (!wroteLater && events.length === clean.length) {
        wroteLater = true;
        // An error record after the hostile ones renders as RUN_ERROR.
        await later.fail(MintUlid.mint(CorrelationId), { code: 6, message: 'late failure', retryable: false }).send();
      }
    }
    abort.abort();
    expect(events.slice(0, clean.length)).toEqual(clean);
    expect(events[clean.length]).toEqual({ type: 'RUN_ERROR', message: 'late failure' });
    const partition = errors[0]?.context?.['partition'] as number;
    expectReported(errors, hostile, partition);
  });
});

describe('AG-UI reads past a legacy JSON state record nested too deep', () => {
  /** An answer, then a legacy (plain JSON) state snapshot nested 100,000 levels deep, then another answer. */
  async function deepSetup() {
    const { log, laser, bridge, errors, conversation, clean } = await answered();
    const deep = `{"a":${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
    const record = stateSnapshotRecord(conversation, new TextEncoder().encode(deep), ContentType.json);
    const written = await log.append({ stream: 'demo', topic: AgentTopic.Sessions, routing: { key: record.partitionKey }, records: [{ headers: record.headers, payload: record.payload }] });
    await laser.agdx(AgentTopic.Sessions, AgentId.new('assistant'), conversation).fail(MintUlid.mint(CorrelationId), { code: 6, message: 'after the deep record', retryable: false }).send();
    return { laser, bridge, errors, conversation, clean, hostile: [written.baseOffset] };
  }

  it('aguiEvents skips it and reports it, instead of throwing a RangeError for the whole conversation', async () => {
    const { bridge, errors, conversation, clean, hostile } = await deepSetup();
    const events = await bridge.aguiEvents(conversation);
    expect(events).toEqual([...clean, { type: 'RUN_ERROR', message: 'after the deep record' }]);
    expectReported(errors, hostile, errors[0]?.context?.['partition'] as number);
  });

  it('the live stream delivers the records after it, instead of answering 502 to every reader', async () => {
    const { bridge, conversation, clean } = await deepSetup();
    const server = await startServer(bridge.handler({ keepaliveMs: 50 }));
    closers.push(server.close);
    const abort = new AbortController();
    const response = await fetch(`${server.url}/agui?threadId=${conversation}`, { signal: abort.signal });
    expect(response.status).toBe(200);
    const blocks = sseBlocks(response);
    const events: AguiEvent[] = [];
    while (events.length < clean.length + 1) {
      const next = await blocks.next();
      if (next.done === true) break;
      if (next.value.data !== undefined) events.push(JSON.parse(next.value.data) as AguiEvent);
    }
    abort.abort();
    expect(events).toEqual([...clean, { type: 'RUN_ERROR', message: 'after the deep record' }]);
  });
});
