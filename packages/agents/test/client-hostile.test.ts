/** Hostile input: readAgentMessage and the send surface never throw anything but typed AGDX errors. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AgdxClient, AgentTopic, readAgentMessage } from '@agdx/agents';
import { AgdxError, ConversationId, CorrelationId, MintUlid, RecordId, type HeaderKind, type HeaderValue } from '@agdx/wire';
import { MemoryLog } from '@agdx/transport';

const kinds: HeaderKind[] = ['raw', 'string', 'bool', 'uint8', 'uint32', 'uint64', 'uint128', 'int32', 'float64'];
const names = ['agdx.av', 'agdx.ct', 'agdx.to', 'gen_ai.conversation.id', 'gen_ai.agent.id', 'agdx.corr', 'agdx.deadline', 'agdx.fence', 'agdx.cause', 'x'];
const header = fc.record({
  name: fc.constantFrom(...names),
  kind: fc.constantFrom(...kinds),
  value: fc.oneof(fc.uint8Array({ maxLength: 20 }), fc.constant(Uint8Array.of(1, 0, 0, 0)), fc.constant(new TextEncoder().encode('01FEW1BJ69XHXX1CVDZNAJEWEA'))),
});

function typedOrOk(fn: () => unknown): void {
  try {
    fn();
  } catch (error) {
    expect(AgdxError.is(error), `untyped throw: ${String(error)}`).toBe(true);
  }
}

describe('hostile input', () => {
  it('readAgentMessage answers a message or a typed error for any headers and payload', () => {
    fc.assert(
      fc.property(fc.array(header, { maxLength: 8 }), fc.uint8Array({ minLength: 1, maxLength: 200 }), (hs, payload) => {
        const headers = new Map<string, HeaderValue>(hs.map((h) => [h.name, { kind: h.kind, value: h.value }]));
        typedOrOk(() => readAgentMessage({ partition: 0, offset: 0n, timestampMicros: 0n, headers, payload }, { stream: 's', topic: 't' }));
      }),
      { numRuns: 2000 },
    );
  });

  it('the builders refuse bad arguments with typed errors', async () => {
    const laser = AgdxClient.from(new MemoryLog(), { stream: 'demo' });
    await laser.bootstrap(1);
    const send = laser.agdx(AgentTopic.Sessions, 'a', ConversationId.new());
    const bad: unknown[] = [undefined, null, 1, 'x', {}, [], Number.NaN, -1, 1n << 70n];
    for (const value of bad) {
      const attempts: (() => unknown)[] = [
        () => send.command(MintUlid.mint(CorrelationId), value as Uint8Array),
        () => send.emit(new Uint8Array(1)).withTarget(value as string),
        () => send.emit(new Uint8Array(1)).withTaskState(value as number),
        () => send.emit(new Uint8Array(1)).contentType(value as number),
        () => send.emit(new Uint8Array(1)).withDeadlineMicros(value as bigint),
        () => send.emit(new Uint8Array(1)).withIdempotencyKey(value as string),
        () => send.stream(MintUlid.mint(CorrelationId), 'chat').buffered(value as number, value as number),
        () => laser.agdx(AgentTopic.Sessions, value as string, ConversationId.new()),
        () => laser.agdx(AgentTopic.Sessions, 'a', value as ConversationId),
      ];
      for (const attempt of attempts) typedOrOk(attempt);
      for (const attempt of [
        () => send.emit(value as Uint8Array).send(),
        () => send.emit(new Uint8Array(1)).withMetadata('k', value as never).send(),
        () => send.emit(new Uint8Array(1)).withOperation(value as string).send(),
        () => send.requestInput(AgentTopic.Sessions, new Uint8Array(1), value as number),
        () => send.stream(MintUlid.mint(CorrelationId), value as string).write(new Uint8Array(1)),
        () => send.emit(new Uint8Array(1)).withCause(value as never).send(),
        () => send.emit(new Uint8Array(1)).withCause(MintUlid.mint(RecordId), value as never).send(),
        () => send.emit(new Uint8Array(1)).withCorrelation(value as never).send(),
        () => send.command(value as never, new Uint8Array(1)).send(),
        () => send.emit(new Uint8Array(1)).withParent(value as never).send(),
        () => send.respond(MintUlid.mint(CorrelationId), new Uint8Array(1)).withUsage(value as never).send(),
        () => send.fail(MintUlid.mint(CorrelationId), value as never).send(),
        () => send.emit(new Uint8Array(1)).withRecord(value as never).send(),
        () => send.emit(new Uint8Array(1)).signedBy(value as never).send(),
        () => send.emit(new Uint8Array(1)).claimCheck(value as never, 0).send(),
        () => send.stream(value as never, 'chat').write(new Uint8Array(1)),
        () => send.stream(MintUlid.mint(CorrelationId), 'chat').finish('stop', value as never),
        () => send.stream(MintUlid.mint(CorrelationId), 'chat').fail(value as never),
        () => laser.replies(AgentTopic.Sessions).wait({ correlation: value as never, conversation: ConversationId.new(), timeoutMs: 1 }),
        () => laser.replies(AgentTopic.Sessions).wait({ correlation: MintUlid.mint(CorrelationId), conversation: value as never, timeoutMs: 1 }),
        () => laser.publish(AgentTopic.Sessions, value as never, 0),
        () => laser.request(value as never, { replyTopic: AgentTopic.Sessions, timeoutMs: 1 }),
        () => laser.request(send.command(MintUlid.mint(CorrelationId), new Uint8Array(1)), value as never),
        () => laser.request(send.command(MintUlid.mint(CorrelationId), new Uint8Array(1)), { replyTopic: AgentTopic.Sessions, timeoutMs: 1, signal: value as never }),
        () => laser.awaitReply(AgentTopic.Sessions, value as never),
        () => laser.replies(AgentTopic.Sessions).wait({ correlation: MintUlid.mint(CorrelationId), conversation: ConversationId.new(), timeoutMs: 1, request: value as never }),
        () => send.requestInput(AgentTopic.Sessions, new Uint8Array(1), 1, value as never),
        () => send.emit(new Uint8Array(1)).withBridgeHops(value as never),
        () => send.emit(new Uint8Array(1)).send({ signal: value as never }),
      ]) {
        try {
          await attempt();
        } catch (error) {
          expect(AgdxError.is(error), `untyped throw: ${String(error)}`).toBe(true);
        }
      }
    }
  });

  it('a wait given a request id that is no RecordId (its text, say) is refused, not registered with the request rule silently off', async () => {
    const laser = AgdxClient.from(new MemoryLog(), { stream: 'demo' });
    await laser.bootstrap(1);
    const hub = laser.replies(AgentTopic.Sessions);
    const request = MintUlid.mint(RecordId);
    const registering = hub.expect({ correlation: MintUlid.mint(CorrelationId), conversation: ConversationId.new(), timeoutMs: 60_000, request: request.toString() as never });
    await expect(registering).rejects.toMatchObject({ kind: 'invalid', context: { field: 'request' } });
    expect(hub.pending).toBe(0);
    await laser.close();
  });
});
