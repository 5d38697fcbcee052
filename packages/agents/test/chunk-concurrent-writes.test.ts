/**
 * Writes that are not awaited one by one (a token callback firing `write` per token) append
 * every chunk once and in sequence, coalesced behind the append in flight; a failed append is
 * retried by the next flush, still in order.
 */
import { describe, expect, it } from 'vitest';
import { AgdxClient, AgentTopic, CancelledError, PublishFailedError, readAgentMessage } from '@agdx/agents';
import { ChunkAssembler, ConversationId, CorrelationId, MintUlid } from '@agdx/wire';
import { MemoryLog, type AppendRequest, type AppendResult, type LogTransport } from '@agdx/transport';
import { readAll } from './support-client/client.js';

/** A MemoryLog that counts the appends to the stream topic and fails the ones `fail` picks (storing nothing). */
function faultyLog(fail: (n: number) => boolean): { transport: LogTransport; appends: () => number } {
  const inner = new MemoryLog();
  let count = 0;
  const transport = new Proxy(inner, {
    get(target, prop, receiver) {
      if (prop === 'append') {
        return (request: AppendRequest): Promise<AppendResult> => {
          if (request.topic !== AgentTopic.Streams) return target.append(request);
          count++;
          return fail(count) ? Promise.reject(new Error(`append ${count} refused`)) : target.append(request);
        };
      }
      const value = Reflect.get(target, prop, receiver) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  }) as LogTransport;
  return { transport, appends: () => count };
}

async function stream(transport: LogTransport, buffered: boolean) {
  const laser = AgdxClient.from(transport, { stream: 'demo' });
  await laser.bootstrap(1);
  const writer = laser.agdx(AgentTopic.Streams, 'writer', ConversationId.new()).stream(MintUlid.mint(CorrelationId), 'chat');
  if (buffered) writer.buffered(4, 0);
  const read = async () => {
    const envelopes = (await readAll(transport, 'demo', AgentTopic.Streams)).map((r) => readAgentMessage(r, { stream: 'demo', topic: AgentTopic.Streams }).envelope!);
    const assembler = new ChunkAssembler();
    const events = envelopes.flatMap((e) => assembler.feed(e));
    return { sequences: envelopes.map((e) => Number(e.sequence)), bodies: events.flatMap((e) => (e.kind === 'body' ? [e.payload[0]] : [])), assembler, last: events.at(-1) };
  };
  return { writer, read };
}

const N = 100;
const upTo = (n: number): number[] => Array.from({ length: n }, (_, i) => i);

describe('chunk writes that are not awaited one by one', () => {
  for (const buffered of [false, true]) {
    it(`append every chunk once, in sequence, in a few appends (${buffered ? 'buffered' : 'unbuffered'})`, async () => {
      const { transport, appends } = faultyLog(() => false);
      const { writer, read } = await stream(transport, buffered);
      await Promise.all(upTo(N).map((i) => writer.write(Uint8Array.of(i))));
      await writer.finish('stop');
      const { sequences, bodies, assembler, last } = await read();
      expect(sequences).toEqual(upTo(N + 1));
      expect(bodies).toEqual(upTo(N));
      expect(assembler.duplicatesDropped).toBe(0n);
      expect(last).toMatchObject({ kind: 'finished', finishReason: 'stop', synthetic: false });
      // The first write's append, then everything written behind it, then the terminal.
      expect(appends()).toBeLessThanOrEqual(4);
    });
  }

  it('a failed append is retried in order by the next flush; only its own write sees the error', async () => {
    const { transport } = faultyLog((n) => n === 2);
    const { writer, read } = await stream(transport, false);
    const outcomes = await Promise.allSettled(upTo(N).map((i) => writer.write(Uint8Array.of(i))));
    const failed = outcomes.filter((o) => o.status === 'rejected');
    expect(failed).toHaveLength(1);
    expect((failed[0] as PromiseRejectedResult).reason).toBeInstanceOf(PublishFailedError);
    await writer.finish('stop');
    const { sequences, bodies, assembler, last } = await read();
    expect(sequences).toEqual(upTo(N + 1));
    expect(bodies).toEqual(upTo(N));
    expect(assembler.duplicatesDropped).toBe(0n);
    expect(last).toMatchObject({ kind: 'finished', synthetic: false });
  });

  it('a flush waiting behind a slow append honours its own signal; its chunk stays pending and goes out in order', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let entered!: () => void;
    const inFlight = new Promise<void>((resolve) => (entered = resolve));
    const inner = new MemoryLog();
    let first = true;
    const transport = new Proxy(inner, {
      get(target, prop, receiver) {
        if (prop === 'append') {
          return async (request: AppendRequest): Promise<AppendResult> => {
            if (request.topic === AgentTopic.Streams && first) {
              first = false;
              entered();
              await held;
            }
            return target.append(request);
          };
        }
        const value = Reflect.get(target, prop, receiver) as unknown;
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    }) as LogTransport;
    const { writer, read } = await stream(transport, false);
    const slow = writer.write(Uint8Array.of(0));
    // The opening chunk's append is in flight (held); the next write's flush waits behind it.
    await inFlight;
    const abort = new AbortController();
    const waiting = writer.write(Uint8Array.of(1), { signal: abort.signal });
    abort.abort();
    await expect(waiting).rejects.toBeInstanceOf(CancelledError);
    expect(writer.pendingChunks).toBe(1);
    release();
    await slow;
    await writer.finish('stop');
    const { sequences, bodies, last } = await read();
    expect(sequences).toEqual([0, 1, 2]);
    expect(bodies).toEqual([0, 1]);
    expect(last).toMatchObject({ kind: 'finished', synthetic: false });
  });
});
