import { AgdxClient, AgentTopic } from '@agdx/agents';
import { A2aBridge } from '@agdx/bridge-a2a';
import { MemoryLog, type LogTransport } from '@agdx/transport';
import { ConversationId, CorrelationId } from '@agdx/wire';
import { describe, expect, it } from 'vitest';
import { TurnQueue } from '../src/turn-queue.js';

const STREAM = 'a2a-queued-abort';
const GATEWAY = 'a2a-gateway';
const text = new TextEncoder();

/**
 * A transport that can hold the next read open until released, and records which signal every
 * read and describe carried, so a test sees what an abandoned call cost.
 */
function gatedTransport(inner: LogTransport): {
  transport: LogTransport;
  holdNextRead: () => { reached: Promise<void>; release: () => void };
  callsWith: (signal: AbortSignal) => number;
  pendingWith: (signal: AbortSignal) => number;
} {
  const calls = new Map<AbortSignal | undefined, number>();
  const pending = new Map<AbortSignal | undefined, number>();
  let gate: { reach: () => void; opened: Promise<void> } | undefined;
  const bump = (map: Map<AbortSignal | undefined, number>, signal: AbortSignal | undefined, by: number): void => {
    map.set(signal, (map.get(signal) ?? 0) + by);
  };
  const track = async <T>(signal: AbortSignal | undefined, call: () => Promise<T>): Promise<T> => {
    bump(calls, signal, 1);
    bump(pending, signal, 1);
    try {
      return await call();
    } finally {
      bump(pending, signal, -1);
    }
  };
  const transport = new Proxy(inner, {
    get(target, prop) {
      if (prop === 'read') {
        return (request: Parameters<LogTransport['read']>[0]) =>
          track(request.signal, async () => {
            const held = gate;
            gate = undefined;
            if (held !== undefined) {
              held.reach();
              await held.opened;
            }
            return target.read(request);
          });
      }
      if (prop === 'describeTopic') {
        return (address: Parameters<LogTransport['describeTopic']>[0], options?: Parameters<LogTransport['describeTopic']>[1]) =>
          track(options?.signal, () => target.describeTopic(address, options));
      }
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  return {
    transport,
    holdNextRead: () => {
      let reach = (): void => undefined;
      let release = (): void => undefined;
      const reached = new Promise<void>((resolve) => (reach = resolve));
      const opened = new Promise<void>((resolve) => (release = resolve));
      gate = { reach, opened };
      return { reached, release };
    },
    callsWith: (signal) => calls.get(signal) ?? 0,
    pendingWith: (signal) => pending.get(signal) ?? 0,
  };
}

/** Lets every promise chain that waits on nothing held run to its end (no clock is read). */
async function drain(): Promise<void> {
  for (let i = 0; i < 20; i++) await new Promise<void>((resolve) => setTimeout(resolve, 0));
}

function getTask(bridge: A2aBridge, id: ConversationId, signal?: AbortSignal): Promise<unknown> {
  return bridge.handleRpc({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: id.toString() } }, { signal });
}

describe('a GetTask waiting for the reply index', () => {
  it('leaves the queue at once when its signal aborts, reads nothing, and the calls behind it move up', async () => {
    const log = new MemoryLog();
    const gated = gatedTransport(log);
    const laser = AgdxClient.from(gated.transport, { stream: STREAM });
    await laser.bootstrap(1);
    const tasks = [ConversationId.new(), ConversationId.new(), ConversationId.new()];
    for (const [i, task] of tasks.entries()) {
      await laser.agdx(AgentTopic.Sessions, 'worker', task).respond(CorrelationId.fromBytes(task.toBytes()), text.encode(`answer ${i}`)).withTarget(GATEWAY).withTaskState('Completed').send();
    }
    const bridge = new A2aBridge(laser, GATEWAY, AgentTopic.Sessions, AgentTopic.Sessions);
    // Warm the layout check, so the next read is the index's first build.
    await getTask(bridge, ConversationId.new());
    bridge.withTaskIndexLimit(64);

    // A: the first build, held open at its first read.
    const gate = gated.holdNextRead();
    const first = getTask(bridge, tasks[0]!);
    await gate.reached;
    // B: waits behind A; its caller goes away.
    const abandoned = new AbortController();
    let abandonedAnswer: unknown;
    const second = getTask(bridge, tasks[1]!, abandoned.signal).then((answer) => (abandonedAnswer = answer));
    // C: a live call behind B.
    const third = getTask(bridge, tasks[2]!);
    await drain();
    // B found its places and waits in the queue (nothing of it is in flight).
    expect(gated.callsWith(abandoned.signal)).toBeGreaterThan(0);
    expect(gated.pendingWith(abandoned.signal)).toBe(0);
    const spentBeforeAbort = gated.callsWith(abandoned.signal);

    abandoned.abort(new Error('client went away'));
    await drain();
    // B answered while A still holds the queue: it did not wait for its turn (answered as every
    // aborted call is).
    expect(abandonedAnswer).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32000, message: 'internal error' } });

    gate.release();
    const [a, c] = await Promise.all([first, third, second]);
    expect(a).toEqual(expect.objectContaining({ result: expect.objectContaining({ id: tasks[0]!.toString(), status: expect.objectContaining({ state: 'TASK_STATE_COMPLETED' }) }) }));
    expect(c).toEqual(expect.objectContaining({ result: expect.objectContaining({ id: tasks[2]!.toString(), status: expect.objectContaining({ state: 'TASK_STATE_COMPLETED' }) }) }));
    // When its turn would have come, B cost nothing: no describe, no read.
    expect(gated.callsWith(abandoned.signal)).toBe(spentBeforeAbort);
  });
});

describe('TurnQueue', () => {
  it('runs work in order, drops a waiter whose signal aborts, and never interrupts the running one', async () => {
    const queue = new TurnQueue();
    const order: string[] = [];
    let releaseFirst = (): void => undefined;
    const held = new Promise<void>((resolve) => (releaseFirst = resolve));
    const running = new AbortController();
    const first = queue.run(async () => {
      order.push('first');
      await held;
      return 'first done';
    }, running.signal);
    const gone = new AbortController();
    const second = queue.run(async () => {
      order.push('second');
      return 'second done';
    }, gone.signal);
    const third = queue.run(async () => {
      order.push('third');
      return 'third done';
    });
    gone.abort('left');
    await expect(second).rejects.toMatchObject({ kind: 'cancelled', cause: 'left' });
    // Aborting the running call's signal does not interrupt it here.
    running.abort();
    releaseFirst();
    await expect(first).resolves.toBe('first done');
    await expect(third).resolves.toBe('third done');
    expect(order).toEqual(['first', 'third']);
  });

  it('rejects at once, without running, when the signal already aborted', async () => {
    const queue = new TurnQueue();
    let ran = false;
    const controller = new AbortController();
    controller.abort();
    await expect(
      queue.run(async () => {
        ran = true;
      }, controller.signal),
    ).rejects.toMatchObject({ kind: 'cancelled' });
    expect(ran).toBe(false);
    // A failing piece passes its turn on.
    await expect(queue.run(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(queue.run(async () => 'next')).resolves.toBe('next');
  });
});
