/**
 * `replay` and `stateAt` fold as they read: the turns a fold has not yet been given never exceed
 * one read page per partition read, and the state, the order and the skipped-record reports are
 * those of `turnsSince`/`turnsAt` folded afterwards.
 */
import { describe, expect, it } from 'vitest';
import { AgdxClient, AgentTopic } from '@agdx/agents';
import { Checkpoint, sessions, sessionTurnText, type SessionTurn } from '@agdx/sessions';
import { MemoryLog, type LogTransport, type ReadRequest } from '@agdx/transport';
import { AgdxError, encodeProvenanceHeaders, type CodecError } from '@agdx/wire';

const TURNS = 8000;
const PAGE = 1000;

/** Counts the records every read returned, so a test can compare it with the turns folded. */
function recordCountingLog(): { log: MemoryLog; transport: LogTransport; returned: () => number } {
  const log = new MemoryLog();
  let returned = 0;
  const transport = new Proxy(log, {
    get(target, prop) {
      if (prop === 'read') {
        return async (request: ReadRequest) => {
          const out = await target.read(request);
          returned += out.length;
          return out;
        };
      }
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  }) as LogTransport;
  return { log, transport, returned: () => returned };
}

describe('replay and stateAt fold page by page', () => {
  it(`hold at most one page per partition while folding ${TURNS} turns, with the state and reports of turnsSince`, async () => {
    const counting = recordCountingLog();
    const errors: CodecError[] = [];
    const laser = AgdxClient.from(counting.transport, { stream: 'demo' });
    await laser.bootstrap(1);
    const factory = sessions(laser, undefined, { onError: (e) => errors.push(e) });
    const session = factory.create('long');
    const start = await session.checkpoint();
    const headers = encodeProvenanceHeaders({ conversation: session.conversation });
    // two topics, interleaved, with an undecodable record of this conversation in the middle
    for (let done = 0; done < TURNS; done += 500) {
      for (const topic of [AgentTopic.Commands, AgentTopic.LlmIo]) {
        const records = Array.from({ length: 250 }, (_, i) => ({ headers, payload: new TextEncoder().encode(`${topic} ${done + i}`) }));
        await counting.log.append({ stream: 'demo', topic, routing: { partition: 0 }, records });
      }
      if (done === 4000) await counting.log.append({ stream: 'demo', topic: AgentTopic.Commands, routing: { partition: 0 }, records: [{ headers: new Map([...headers, ['agdx.ct', { kind: 'uint16', value: new Uint8Array([1, 0]) }]]), payload: new Uint8Array([0x9a, 0xff]) }] });
    }
    const middle = await session.checkpoint();
    await session.append('instruction', 'after');

    const step = (s: string[], t: SessionTurn): string[] => {
      s.push(`${t.kind}|${sessionTurnText(t)}`);
      return s;
    };
    const expected = (await session.turnsSince(start)).reduce(step, []);
    const expectedErrors = errors.splice(0).map((e) => e.context);
    expect(expected).toHaveLength(TURNS + 1);
    expect(expectedErrors).toHaveLength(1);

    let folded = 0;
    let readBefore = counting.returned();
    let mostAhead = 0;
    const replayed = await session.replay(start, [] as string[], (s, t) => {
      folded++;
      mostAhead = Math.max(mostAhead, counting.returned() - readBefore - folded);
      return step(s, t);
    });
    expect(replayed).toEqual(expected);
    expect(errors.splice(0).map((e) => e.context)).toEqual(expectedErrors);
    // six topics are read (only two hold turns): never more than a page of each ahead of the fold
    expect(mostAhead).toBeLessThanOrEqual(2 * PAGE);

    folded = 0;
    readBefore = counting.returned();
    mostAhead = 0;
    const atMiddle = await session.stateAt(middle, [] as string[], (s, t) => {
      folded++;
      mostAhead = Math.max(mostAhead, counting.returned() - readBefore - folded);
      return step(s, t);
    });
    expect(atMiddle).toEqual((await session.turnsAt(middle)).reduce(step, []));
    expect(atMiddle).toEqual(expected.slice(0, TURNS));
    expect(mostAhead).toBeLessThanOrEqual(2 * PAGE);
  });

  it('a fold that throws ends the replay with its error; a bad fold or checkpoint is an InvalidError', async () => {
    const laser = AgdxClient.from(new MemoryLog(), { stream: 'demo' });
    await laser.bootstrap(2);
    const session = sessions(laser).create('throws');
    await session.append('instruction', 'a');
    await session.append('response', 'b');
    const boom = new Error('boom');
    await expect(
      session.replay(new Checkpoint(), 0, () => {
        throw boom;
      }),
    ).rejects.toBe(boom);
    const invalid = await session.replay(new Checkpoint(), 0, undefined as never).catch((e: unknown) => e);
    expect(AgdxError.is(invalid, 'invalid')).toBe(true);
    const notCheckpoint = await session.stateAt({} as Checkpoint, 0, (s) => s).catch((e: unknown) => e);
    expect(AgdxError.is(notCheckpoint, 'invalid')).toBe(true);
    expect(await session.replay(new Checkpoint(), 0, (s) => s + 1)).toBe(2);
  });
});
