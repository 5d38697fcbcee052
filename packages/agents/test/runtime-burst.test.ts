import { AgdxClient, AgentTopic } from '@agdx/agents';
import { MemoryLog, type AppendRequest, type LogTransport, type ReadRequest } from '@agdx/transport';
import { AgentId, ConversationId, CorrelationId, MintUlid } from '@agdx/wire';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { spawnEchoAgent } from './support/echo-agent.js';
import { countingChannel } from './support/counting-channel.js';

const STREAM = 'burst';

/** A MemoryLog connection that counts appends (and their records) and reads per topic. */
function countingLog(): { transport: LogTransport; appends: Map<string, number>; reads: Map<string, number>; records: Map<string, number> } {
  const log = new MemoryLog();
  const appends = new Map<string, number>();
  const reads = new Map<string, number>();
  const records = new Map<string, number>();
  const bump = (map: Map<string, number>, topic: string, by = 1): void => void map.set(topic, (map.get(topic) ?? 0) + by);
  const transport = new Proxy(log, {
    get(target, prop) {
      if (prop === 'append') {
        return (request: AppendRequest) => {
          bump(appends, request.topic);
          bump(records, request.topic, request.records.length);
          return target.append(request);
        };
      }
      if (prop === 'read') {
        return (request: ReadRequest) => {
          bump(reads, request.topic);
          return target.read(request);
        };
      }
      const value = Reflect.get(target, prop, target) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  }) as LogTransport;
  return { transport, appends, reads, records };
}

function request(client: AgdxClient, conversation: ConversationId, n: number): Promise<Uint8Array | undefined> {
  const body = new TextEncoder().encode(`request ${n}`);
  const built = client.agdx(AgentTopic.Commands, AgentId.new('planner'), conversation).command(MintUlid.mint(CorrelationId), body).withTarget('echo');
  return client.request(built, { replyTopic: AgentTopic.Responses, timeoutMs: 30_000 }).then((reply) => reply.envelope?.body);
}

/** The real `setImmediate`, kept before any test hides it: the tests' own "one turn later". */
const realImmediate = setImmediate;
/** The real `setTimeout`, kept before any test fakes it: a real timer turn. */
const realTimeout = setTimeout;

/**
 * Each case runs where the platform has `setImmediate` (Node, Bun, Deno) and where it has not
 * (browsers): there the end of a burst is a message on a shared `MessageChannel`, counted here.
 */
const platforms = [
  { name: 'with setImmediate', hide: false },
  { name: 'without setImmediate (a MessageChannel hop)', hide: true },
] as const;

describe.each(platforms)('work that arrives in one burst on an in-process log, $name', ({ hide }) => {
  let posts: () => number = () => 0;

  beforeEach(() => {
    const counting = countingChannel();
    posts = counting.posts;
    vi.stubGlobal('MessageChannel', counting.channel);
    if (hide) vi.stubGlobal('setImmediate', undefined);
  });

  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  it('is read, answered and collected in a few operations, and every request gets its own answer', async () => {
    const { transport, appends, reads, records } = countingLog();
    const client = AgdxClient.from(transport, { stream: STREAM });
    await client.bootstrap(1);
    const agent = await spawnEchoAgent(client);
    const conversation = ConversationId.new();
    const count = 64;
    // Two bursts: the first teaches the readers that work comes in bursts, the second is counted.
    for (let round = 0; round < 2; round++) {
      if (round === 1) for (const map of [appends, reads, records]) map.clear();
      const replies = await Promise.all(Array.from({ length: count }, (_, n) => request(client, conversation, n)));
      expect(replies.map((body) => new TextDecoder().decode(body))).toEqual(Array.from({ length: count }, (_, n) => `request ${n}`));
    }
    expect(records.get(AgentTopic.Commands)).toBe(count);
    expect(records.get(AgentTopic.Responses)).toBe(count);
    // One append, read and wake-up per record would be 64 each; the bound leaves room for a
    // time-sliced yield of a slow (loaded) run splitting a burst.
    expect(appends.get(AgentTopic.Responses)).toBeLessThanOrEqual(16);
    expect(appends.get(AgentTopic.Commands)).toBeLessThanOrEqual(16);
    expect(reads.get(AgentTopic.Commands)).toBeLessThanOrEqual(16);
    expect(reads.get(AgentTopic.Responses)).toBeLessThanOrEqual(16);
    // Without setImmediate the bursts waited on the channel; with it, the channel is never used.
    if (hide) expect(posts()).toBeGreaterThan(0);
    else expect(posts()).toBe(0);
    await agent.shutdown();
    await client.close();
  });

  it('a lone request completes without the event loop turning (no timer, no macrotask hop)', async () => {
    const log = new MemoryLog();
    const client = AgdxClient.from(log, { stream: STREAM });
    await client.bootstrap(1);
    const agent = await spawnEchoAgent(client);
    const conversation = ConversationId.new();
    // Warm up with a burst, so the readers last saw several records at once.
    await Promise.all(Array.from({ length: 8 }, (_, n) => request(client, conversation, n)));
    await request(client, conversation, 8);
    // With timers, macrotask hops and the clock frozen (so no time-sliced yield falls due), only
    // microtasks run until the real hop below (a MessageChannel hop would be counted).
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'performance', ...(hide ? [] : (['setImmediate', 'clearImmediate'] as const))] });
    // On a loaded machine the warm-up can outlast a loop's 10 ms slice and leave its yield hop in
    // flight, made with the real functions. Frozen, the clock lets no further slice end, so these
    // are the last: let them land on real turns. Without setImmediate the hop is a zero timeout,
    // which setImmediate turns do not wait for (it is due only once a millisecond has passed); a
    // real zero timeout set now fires after every one set before it.
    await new Promise<void>((resolve) => realImmediate(resolve));
    await new Promise<void>((resolve) => realTimeout(resolve, 0));
    await new Promise<void>((resolve) => realImmediate(resolve));
    const postsBefore = posts();
    let answer: Uint8Array | undefined;
    const lone = request(client, conversation, 99).then((body) => (answer = body));
    await new Promise<void>((resolve) => realImmediate(resolve));
    expect(answer === undefined ? undefined : new TextDecoder().decode(answer)).toBe('request 99');
    expect(posts()).toBe(postsBefore);
    vi.useRealTimers();
    await lone;
    await agent.shutdown();
    await client.close();
  });
});
