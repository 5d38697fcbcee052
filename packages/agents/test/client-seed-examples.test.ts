/**
 * The TypeScript examples of seed 000 (AGDX) and seed 002 (Interop) that concern the client —
 * sending, streaming, requestInput and replies — run with only imports and client construction
 * changed. The approver that seed 002 runs as an agent is played here by the client's own
 * respond builder (the agent runtime is tested by its own files).
 */
import { describe, expect, it } from 'vitest';
import {
  AgdxClient,
  AgentTopic,
  CancelledError,
  readAgentMessage,
  agentMessageBody,
  RejectedError,
  TestClock,
  TimeoutError,
  type AgentMessage,
} from '@agdx/agents';
import { AgentErrorCode, AgentId, ChunkAssembler, ConversationId, CorrelationId, decodeHeaderBlock, MintUlid } from '@agdx/wire';
import { MemoryLog } from '@agdx/transport';
import { memoryClient, nextRecord, readAll } from './support-client/client.js';

const decode = (bytes: Uint8Array): string => new TextDecoder().decode(bytes);

describe('seed 000: produce the same command', () => {
  it('publishes the command on the lane and returns its record id', async () => {
    const { laser, log } = await memoryClient();

    // --- seed 000 example (imports above) ---
    const text = new TextEncoder()
    const conversation = ConversationId.new()
    const correlation = MintUlid.mint(CorrelationId)

    const record = await laser
      .agdx(AgentTopic.Sessions, AgentId.new("planner"), conversation)
      .command(correlation, text.encode("summarize incident 42"))
      .withOperation("summarize")
      .send()
    // --- end of example ---

    const records = await readAll(log, 'demo', AgentTopic.Sessions);
    expect(records).toHaveLength(1);
    const message = readAgentMessage(records[0]!, { stream: 'demo', topic: AgentTopic.Sessions });
    expect(message.envelope?.record?.equals(record)).toBe(true);
    expect(message.envelope?.kind).toBe('command');
    expect(message.envelope?.operation).toBe('summarize');
    expect(message.envelope?.correlation?.equals(correlation)).toBe(true);
    expect(decode(agentMessageBody(message))).toBe('summarize incident 42');
    const block = decodeHeaderBlock(message.headers);
    expect(block.to).toEqual({ broadcast: true }); // untargeted on the shared lane
    expect(block.agent?.value).toBe('planner');
    expect(block.conversation?.equals(conversation)).toBe(true);
    expect([...message.headers.keys()]).toEqual([...message.headers.keys()].sort());
    expect(message.provenance.agent?.asStr()).toBe('planner');
  });
});

describe('seed 000: chunk writers', () => {
  it('streams buffered chunks that reassemble in order', async () => {
    const { laser, log } = await memoryClient();
    const text = new TextEncoder();
    const conversation = ConversationId.new();
    const correlation = MintUlid.mint(CorrelationId);

    // --- seed 000 example ---
    const stream = laser
      .agdx(AgentTopic.Streams, AgentId.new("summarizer"), conversation)
      .stream(correlation, "chat")
      .buffered(32, 20)

    await stream.write(text.encode("The incident "))
    await stream.write(text.encode("is resolved."))
    await stream.finish("stop")
    // --- end of example ---

    const records = await readAll(log, 'demo', AgentTopic.Streams);
    expect(records).toHaveLength(3);
    const assembler = new ChunkAssembler();
    let out = '';
    let finish: string | undefined;
    for (const r of records) {
      const env = readAgentMessage(r, { stream: 'demo', topic: AgentTopic.Streams }).envelope!;
      expect(env.channel?.equals(stream.channel)).toBe(true);
      for (const event of assembler.feed(env)) {
        if (event.kind === 'body') out += decode(event.payload);
        if (event.kind === 'finished') finish = event.finishReason;
      }
    }
    expect(out).toBe('The incident is resolved.');
    expect(finish).toBe('stop');
  });
});

describe('seed 000: read an agent message', () => {
  it('exposes provenance, usage and the body the way the summarizer example reads them', async () => {
    const { laser, log } = await memoryClient();
    const conversation = ConversationId.new();
    await laser
      .agdx(AgentTopic.Sessions, AgentId.new('planner'), conversation)
      .respond(MintUlid.mint(CorrelationId), new TextEncoder().encode('hello'))
      .withUsage({ inputTokens: 12n, outputTokens: 0n })
      .send();
    const [record] = await readAll(log, 'demo', AgentTopic.Sessions);
    const message: AgentMessage = readAgentMessage(record!, { stream: 'demo', topic: AgentTopic.Sessions });
    const responses: string[] = [];
    const ctx = { respond: async (bytes: Uint8Array): Promise<void> => void responses.push(decode(bytes)) };

    // --- seed 000 example (the AgentCtx is a stand-in: the runtime owns the real one) ---
    const summarizer = {
      handle: async (message: AgentMessage, ctx: { respond(bytes: Uint8Array): Promise<void> }) => {
        const sender = message.provenance.agent?.asStr() ?? "unknown"
        const tokens = message.provenance.usage?.inputTokens ?? 0n
        const body = agentMessageBody(message)
        await ctx.respond(
          new TextEncoder().encode(`${body.byteLength} bytes from ${sender}, ${tokens} tokens`)
        )
      }
    }
    // --- end of example ---

    await summarizer.handle(message, ctx);
    expect(responses).toEqual(['5 bytes from planner, 12 tokens']);
  });
});

/** Plays the approver of seed 002: answers the first prompt addressed to it on agent.sessions. */
async function approve(laser: AgdxClient, answer: (prompt: AgentMessage) => 'approve' | 'reject'): Promise<void> {
  const record = await nextRecord(laser.transport, 'demo', AgentTopic.Sessions, (r) => {
    const m = readAgentMessage(r, { stream: 'demo', topic: AgentTopic.Sessions });
    return m.envelope?.kind === 'command' && m.envelope.target?.value === 'approver';
  });
  const prompt = readAgentMessage(record, { stream: 'demo', topic: AgentTopic.Sessions });
  const env = prompt.envelope!;
  const send = laser.agdx(AgentTopic.Sessions, AgentId.new('approver'), env.conversation);
  if (answer(prompt) === 'approve') {
    await send.respond(env.correlation!, new TextEncoder().encode('approved')).withTarget(env.source.value).withCause(env.record!).send();
  } else {
    await send.fail(env.correlation!, { code: AgentErrorCode.Unauthorized, message: 'not during business hours', retryable: false }).withTarget(env.source.value).send();
  }
}

describe('seed 002: pause for a human decision', () => {
  it('returns the approver decision bytes', async () => {
    const { laser } = await memoryClient();
    const conversation = ConversationId.new();
    const approver = approve(laser, (prompt) => {
      expect(decode(agentMessageBody(prompt))).toBe('restart the metrics service on node-7?');
      expect(prompt.envelope?.signature).toBeUndefined(); // request_input does not sign
      return 'approve';
    });

    // --- seed 002 example ---
    const decision = await laser
      .agdx(AgentTopic.Sessions, AgentId.new("orchestrator"), conversation)
      .requestInput(
        AgentTopic.Sessions,
        new TextEncoder().encode("restart the metrics service on node-7?"),
        300_000,
        { target: AgentId.new("approver") }
      )
    // --- end of example ---

    await approver;
    expect(decode(decision)).toBe('approved');
  });

  it('rejects with the error body message when the approver answers with an error', async () => {
    const { laser } = await memoryClient();
    const conversation = ConversationId.new();
    const approver = approve(laser, () => 'reject');
    const decision = laser
      .agdx(AgentTopic.Sessions, AgentId.new('orchestrator'), conversation)
      .requestInputFrom('approver', AgentTopic.Sessions, new TextEncoder().encode('ok?'), 300_000);
    await expect(decision).rejects.toSatisfy((e) => e instanceof RejectedError && (e as Error).message === 'not during business hours');
    await approver;
  });

  it('times out on the client clock and cancels on an aborted signal', async () => {
    const clock = new TestClock(1_700_000_000_000_000n);
    const { laser } = await memoryClient({ clock });
    const send = laser.agdx(AgentTopic.Sessions, AgentId.new('orchestrator'), ConversationId.new());
    const timed = send.requestInput(AgentTopic.Sessions, new TextEncoder().encode('?'), 1_000);
    timed.catch(() => undefined);
    while (clock.pendingSleeps === 0) await new Promise((r) => setTimeout(r, 1));
    clock.advance(999_000n);
    clock.advance(1_000n);
    await expect(timed).rejects.toSatisfy((e) => e instanceof TimeoutError && (e as Error).message === 'the AGDX reply');

    const controller = new AbortController();
    const cancelled = send.requestInput(AgentTopic.Sessions, new TextEncoder().encode('?'), 60_000, { signal: controller.signal });
    controller.abort();
    await expect(cancelled).rejects.toBeInstanceOf(CancelledError);
  });

  it('requires a timeout', async () => {
    const { laser } = await memoryClient();
    const send = laser.agdx(AgentTopic.Sessions, AgentId.new('orchestrator'), ConversationId.new());
    await expect(send.requestInput(AgentTopic.Sessions, new Uint8Array(1), undefined as unknown as number)).rejects.toThrow(/timeoutMs/);
    await expect(send.requestInput(AgentTopic.Sessions, new Uint8Array(1), Number.NaN)).rejects.toThrow(/timeoutMs/);
  });
});

describe('seed 002: a bridge-style request and its correlated reply', () => {
  it('client.request resolves with the worker response addressed to the bridge', async () => {
    const log = new MemoryLog();
    const laser = AgdxClient.from(log, { stream: 'demo' });
    await laser.bootstrap(2);
    const conversation = ConversationId.new();
    const correlation = MintUlid.mint(CorrelationId);
    const worker = (async () => {
      const r = await nextRecord(log, 'demo', AgentTopic.Sessions, (rec) => readAgentMessage(rec, { stream: 'demo', topic: AgentTopic.Sessions }).envelope?.kind === 'command');
      const env = readAgentMessage(r, { stream: 'demo', topic: AgentTopic.Sessions }).envelope!;
      await laser
        .agdx(AgentTopic.Sessions, AgentId.new('assistant'), env.conversation)
        .respond(env.correlation!, new TextEncoder().encode(`handled: ${decode(env.body)}`))
        .withTarget(env.source.value)
        .send();
    })();
    const reply = await laser.request(
      laser
        .agdx(AgentTopic.Sessions, AgentId.new('a2a-gateway'), conversation)
        .command(correlation, new TextEncoder().encode('summarize'))
        .withTarget('assistant')
        .enterBridge('a2a-gateway'),
      { replyTopic: AgentTopic.Sessions, timeoutMs: 5_000 },
    );
    await worker;
    expect(decode(agentMessageBody(reply))).toBe('handled: summarize');
    expect(reply.envelope?.kind).toBe('response');
    expect(reply.provenance.agent?.asStr()).toBe('assistant');
  });
});
