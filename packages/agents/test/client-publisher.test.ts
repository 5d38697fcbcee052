/**
 * oracle/publisher.json: the send builders and the chunk writer against the reference's recorded
 * batches. Envelopes and payload bytes must match exactly; the header block is OURS (seed 000:
 * sorted, Crockford ids, gen_ai.agent.id, `*` on shared session topics), derived here from the
 * case data, because 0.1.1's layout is a documented quirk. Doc divergences live in
 * expectations/publisher-divergences.json.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { AgdxClient, type AgdxSend, type AgdxSendBuilder, type Signer } from '@agdx/agents';
import { SigningKey } from '@agdx/sign';
import {
  AgdxError,
  AgentId,
  ContentType,
  ConversationId,
  CorrelationId,
  decodeAgentErrorBody,
  decodeEnvelope,
  SHARED_SESSION_TOPICS,
  UlidGenerator,
  type RecordHeaders,
} from '@agdx/wire';
import { fromHex, loadFixture, scenarioOf, toHex } from './support-client/fixtures.js';
import { causeAtFromLogical, envelopeToLogical, ids, usageFromLogical, valueFromLogical, type LogicalEnvelope, type LogicalValue } from './support-client/logical.js';
import { countingUlidSource, recordingTransport } from './support-client/recording-transport.js';

interface FixtureHeader {
  name: string;
  kind: string;
  value?: number | string;
  value_hex_le?: string;
}
interface FixtureMessage {
  payload_hex: string;
  headers: FixtureHeader[];
  envelope: LogicalEnvelope;
}
interface FixtureBatch {
  stream: string;
  topic: string;
  partition_key: string;
  messages: FixtureMessage[];
}
interface FixtureError {
  class: string;
  kind: string;
  message: string;
}
interface PublisherCase {
  id: string;
  name: string;
  script: string;
  stream: string;
  topic: string;
  source: string;
  conversation: string;
  ulid_source: { start_ms: number };
  returned: string[];
  error: FixtureError | null;
  published: FixtureBatch[];
  signer?: { seed_hex: string };
}
interface Divergence {
  name: string;
  reason: string;
  ours: { error?: { kind: string; field?: string }; published: number };
}

const file = loadFixture<{ reference: { package: string; version: string }; cases: PublisherCase[] }>('oracle/publisher.json');
const divergences = (JSON.parse(readFileSync(new URL('./expectations/publisher-divergences.json', import.meta.url), 'utf8')) as { cases: Divergence[] }).cases;

const FIXED_CORRELATION = CorrelationId.parse('01J3Y7BPFXFVZ6NT4PVVPG40VY');
const SOME_BODY = new TextEncoder().encode('body');

interface Outcome {
  returned: string[];
  error: unknown;
}

function ctOf(message: FixtureMessage): number {
  const h = message.headers.find((x) => x.name === 'agdx.ct');
  return typeof h?.value === 'number' ? h.value : ContentType.raw;
}

/** Rebuilds a send from a published envelope, calling the refinement for every field present. */
function replay(send: AgdxSend, message: FixtureMessage, signer: Signer | undefined): AgdxSendBuilder {
  const env = message.envelope;
  const body = fromHex(env.body_hex);
  const corr = env.correlation === undefined ? undefined : ids.correlation(env.correlation as string);
  let b: AgdxSendBuilder;
  switch (env.kind) {
    case 'command':
      b = send.command(corr!, body);
      break;
    case 'response':
      b = send.respond(corr!, body);
      break;
    case 'event':
      b = send.emit(body);
      if (corr !== undefined) b.withCorrelation(corr);
      break;
    case 'status':
      b = send.status(env.operation as string);
      if (corr !== undefined) b.withCorrelation(corr);
      if (body.length > 0) b.body(body);
      break;
    case 'error':
      b = send.fail(corr!, decodeAgentErrorBody(body));
      break;
    default:
      throw new Error(`unhandled envelope kind ${env.kind}`);
  }
  if (env.target !== undefined) b.withTarget(AgentId.new(env.target as string));
  if (env.cause !== undefined) {
    const at = env.cause_at as Parameters<typeof causeAtFromLogical>[0] | undefined;
    b.withCause(ids.record(env.cause as string), at === undefined ? undefined : causeAtFromLogical(at));
  }
  if (env.idempotency_key !== undefined) b.withIdempotencyKey(env.idempotency_key as string);
  if (env.deadline_micros !== undefined) b.withDeadlineMicros(BigInt(env.deadline_micros as string));
  if (env.tool !== undefined) b.withTool(env.tool as string);
  if (env.operation !== undefined && env.kind !== 'status') b.withOperation(env.operation as string);
  if (env.task_state !== undefined) b.withTaskState((env.task_state as { code: number }).code);
  if (env.usage !== undefined) b.withUsage(usageFromLogical(env.usage as Record<string, string>));
  for (const [k, v] of (env.metadata as [string, LogicalValue][] | undefined) ?? []) b.withMetadata(k, valueFromLogical(v));
  if (env.finish_reason !== undefined) b.withFinishReason(env.finish_reason as string);
  if (env.last) b.last();
  const ct = ctOf(message);
  if (ct !== (env.kind === 'error' ? ContentType.cbor : ContentType.raw)) b.contentType(ct);
  if (signer !== undefined) b.signedBy(signer);
  return b;
}

function quoted(script: string, call: string): string {
  const m = new RegExp(`${call}\\([^)]*?'([^']*)'`).exec(script);
  if (m?.[1] === undefined) throw new Error(`script has no ${call}('...'): ${script}`);
  return m[1];
}

async function runStream(send: AgdxSend, c: PublisherCase): Promise<void> {
  const messages = c.published.flatMap((b) => b.messages);
  const opening = messages[0]?.envelope;
  const purpose = (opening?.operation as string | undefined) ?? (/stream\(/.test(c.script) ? quoted(c.script, 'stream') : 'chat');
  const correlation = opening?.correlation === undefined ? FIXED_CORRELATION : ids.correlation(opening.correlation as string);
  const writer = send.stream(correlation, purpose);
  const buffered = /buffered\(\s*([^,]+),\s*([^)]+)\)/.exec(c.script);
  if (buffered !== null) writer.buffered(Number(buffered[1]), Number(buffered[2]));
  if (opening?.target !== undefined) writer.withTarget(opening.target as string);
  if (opening?.deadline_micros !== undefined) writer.withDeadlineMicros(BigInt(opening.deadline_micros as string));
  if (messages[0] !== undefined && ctOf(messages[0]) !== ContentType.raw && opening?.kind === 'chunk') writer.contentType(ctOf(messages[0]));
  const oversized = /write\((\d+) bytes\)/.exec(c.script);
  for (const m of messages) {
    const env = m.envelope;
    if (env.kind === 'chunk' && !env.last) await writer.write(fromHex(env.body_hex));
  }
  if (oversized !== null && messages.length === 0) await writer.write(new Uint8Array(Number(oversized[1])));
  if (messages.length === 0 && /\bwrite\(x\)/.test(c.script)) await writer.write(SOME_BODY);
  if (/flush\(\)/.test(c.script)) await writer.flush();
  const terminal = messages.at(-1)?.envelope;
  if (terminal?.kind === 'error') await writer.fail(decodeAgentErrorBody(fromHex(terminal.body_hex)));
  else if (terminal?.last === true) {
    const usage = terminal.usage === undefined ? undefined : usageFromLogical(terminal.usage as Record<string, string>);
    await writer.finish(terminal.finish_reason as string | undefined, usage);
  }
  if (/finish\(\); write\(x\)/.test(c.script)) await writer.write(SOME_BODY);
}

async function runScenario(client: AgdxClient, c: PublisherCase): Promise<Outcome> {
  const send = client.agdx(c.topic, AgentId.parse(c.source), ConversationId.parse(c.conversation));
  const signer = c.signer === undefined ? undefined : SigningKey.fromBytes(fromHex(c.signer.seed_hex));
  const returned: string[] = [];
  const first = c.published[0]?.messages[0];
  const scenario = scenarioOf(c.name);
  try {
    if (scenario.startsWith('stream/')) {
      await runStream(send, c);
    } else if (scenario.startsWith('timeout/request-input')) {
      const prompt = first === undefined ? SOME_BODY : fromHex(first.envelope.body_hex);
      const timeout = Number(/,\s*(\d+)\)\s*$/.exec(c.script)?.[1]);
      await send.requestInput(quoted(c.script, 'requestInput'), prompt, timeout);
    } else if (scenario === 'reject/send-twice') {
      const b = replay(send, first!, signer);
      returned.push((await b.send()).toString());
      await b.send();
    } else if (scenario === 'accept/fail-relabelled-content-type') {
      const b = send.fail(ids.correlation(first!.envelope.correlation as string), decodeAgentErrorBody(fromHex(first!.envelope.body_hex)));
      returned.push((await b.contentType(ctOf(first!)).send()).toString());
    } else if (scenario.startsWith('reject/')) {
      returned.push((await rejectScenario(send, c, scenario).send()).toString());
    } else {
      if (first === undefined) throw new Error(`accept case without a published record: ${c.name}`);
      returned.push((await replay(send, first, signer).send()).toString());
    }
    return { returned, error: undefined };
  } catch (error) {
    return { returned, error };
  }
}

function rejectScenario(send: AgdxSend, c: PublisherCase, scenario: string): AgdxSendBuilder {
  switch (scenario) {
    case 'reject/command-with-task-state':
      return send.command(FIXED_CORRELATION, SOME_BODY).withTaskState('Working');
    case 'reject/respond-with-deadline':
      return send.respond(FIXED_CORRELATION, SOME_BODY).withDeadlineMicros(1_700_000_000_000_000n);
    case 'reject/emit-last':
      return send.emit(SOME_BODY).last();
    case 'reject/status-unknown-operation':
      return send.status(quoted(c.script, 'status'));
    case 'reject/status-session-operation':
      return send.status(quoted(c.script, 'status')).withTaskState('Working');
    case 'reject/status-task-without-correlation':
      return send.status(quoted(c.script, 'status')).withTaskState('Working');
    case 'reject/command-empty-body':
      return send.command(FIXED_CORRELATION, new Uint8Array(0));
    case 'reject/target-invalid':
      return send.command(FIXED_CORRELATION, SOME_BODY).withTarget(AgentId.new(''));
    default:
      throw new Error(`unhandled publisher scenario ${scenario}`);
  }
}

function backtickedField(message: string): string | undefined {
  return /`([^`]+)`/.exec(message)?.[1];
}

function expectError(actual: unknown, expected: { kind: string; field?: string; message?: string; class?: string }): void {
  expect(AgdxError.is(actual), `expected an AGDX error, got ${String(actual)}`).toBe(true);
  const e = actual as AgdxError;
  expect(e.kind).toBe(expected.kind);
  if (expected.class !== undefined) expect(e.name).toBe(expected.class);
  if (expected.field !== undefined) expect(e.message + JSON.stringify(e.context ?? {})).toContain(expected.field);
  else if (expected.message !== undefined) expect(e.message).toBe(expected.message);
}

function u128LeToCrockford(hexLe: string): string {
  const be = fromHex(hexLe).reverse();
  return ConversationId.fromBytes(be).toString();
}

/** Our seed-000 header block for a published record, derived from the case data. */
function ourHeaders(message: FixtureMessage, topic: string): [string, string, string][] {
  const env = message.envelope;
  const enc = new TextEncoder();
  const out: [string, string, string][] = [];
  const u32 = new Uint8Array(4);
  new DataView(u32.buffer).setUint32(0, 1, true);
  out.push(['agdx.av', 'uint32', toHex(u32)]);
  out.push(['agdx.ct', 'uint8', toHex(Uint8Array.of(ctOf(message)))]);
  if (env.parent !== undefined) out.push(['agdx.parent_conv', 'string', toHex(enc.encode(env.parent as string))]);
  if (env.root !== undefined) out.push(['agdx.root_conv', 'string', toHex(enc.encode(env.root as string))]);
  const to = message.headers.find((h) => h.name === 'agdx.to')?.value as string | undefined;
  if (to !== undefined) out.push(['agdx.to', 'string', toHex(enc.encode(to))]);
  else if (SHARED_SESSION_TOPICS.includes(topic)) out.push(['agdx.to', 'string', toHex(enc.encode('*'))]);
  out.push(['gen_ai.agent.id', 'string', toHex(enc.encode(env.source))]);
  const conv = message.headers.find((h) => h.name === 'gen_ai.conversation.id');
  const convText = conv?.value_hex_le !== undefined ? u128LeToCrockford(conv.value_hex_le) : env.conversation;
  expect(convText).toBe(env.conversation);
  out.push(['gen_ai.conversation.id', 'string', toHex(enc.encode(convText))]);
  return out;
}

function headerList(headers: RecordHeaders | undefined): [string, string, string][] {
  return [...(headers ?? new Map())].map(([k, v]) => [k, v.kind, toHex(v.value)]);
}

async function clientFor(c: PublisherCase): Promise<{ client: AgdxClient; transport: ReturnType<typeof recordingTransport> }> {
  const transport = recordingTransport();
  await transport.ensureStream(c.stream);
  const topics = new Set([c.topic, ...c.published.map((b) => b.topic)]);
  if (c.script.includes('requestInput')) topics.add(quoted(c.script, 'requestInput'));
  for (const topic of topics) await transport.ensureTopic({ stream: c.stream, topic }, { partitions: 4 });
  const client = AgdxClient.from(transport, { stream: c.stream, ids: new UlidGenerator(countingUlidSource(c.ulid_source.start_ms)) });
  return { client, transport };
}

describe('oracle publisher.json', () => {
  it('is the 0.1.1 reference file', () => {
    expect(file.reference.package).toBe('@laserdata/laser-sdk');
    expect(file.reference.version).toBe('0.1.1');
    expect(file.cases.length).toBeGreaterThan(0);
  });

  it('lists only live divergences', () => {
    const names = new Set(file.cases.map((c) => scenarioOf(c.name)));
    for (const d of divergences) expect(names.has(d.name), `stale divergence entry ${d.name}`).toBe(true);
  });

  for (const c of file.cases) {
    it(`${c.id} ${c.name}`, async () => {
      const { client, transport } = await clientFor(c);
      const outcome = await runScenario(client, c);
      const divergence = divergences.find((d) => d.name === scenarioOf(c.name));
      if (divergence !== undefined) {
        // Still a divergence: the reference outcome differs from ours.
        const referenceFailed = c.error !== null;
        const weFailed = outcome.error !== undefined;
        expect(referenceFailed !== weFailed || (weFailed && divergence.ours.error?.field !== backtickedField(c.error?.message ?? '')), `divergence ${divergence.name} is stale`).toBe(true);
        if (divergence.ours.error !== undefined) expectError(outcome.error, divergence.ours.error);
        else expect(outcome.error).toBeUndefined();
        expect(transport.appends.length).toBe(divergence.ours.published);
        return;
      }
      if (c.error === null) expect(outcome.error).toBeUndefined();
      else {
        const field = backtickedField(c.error.message);
        expectError(outcome.error, field === undefined ? { kind: c.error.kind, class: c.error.class, message: c.error.message } : { kind: c.error.kind, field });
      }
      expect(outcome.returned).toEqual(c.returned);
      expect(transport.appends.length).toBe(c.published.length);
      c.published.forEach((batch, i) => {
        const got = transport.appends[i]!.request;
        expect(got.stream).toBe(batch.stream);
        expect(got.topic).toBe(batch.topic);
        expect(got.routing).toEqual({ key: batch.partition_key });
        expect(got.records.length).toBe(batch.messages.length);
        batch.messages.forEach((m, j) => {
          const record = got.records[j]!;
          expect(toHex(record.payload)).toBe(m.payload_hex);
          expect(envelopeToLogical(decodeEnvelope(record.payload))).toEqual(m.envelope);
          expect(headerList(record.headers)).toEqual(ourHeaders(m, batch.topic));
        });
      });
    });
  }
});
