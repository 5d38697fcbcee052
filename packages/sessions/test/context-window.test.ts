/**
 * The open read window of `context()` and `turns()` (the newest CONTEXT_READ_WINDOW records of
 * every partition) is kept between reads: a repeated read asks the log for what it gained, and
 * answers exactly what a read of the whole window answers.
 */
import { describe, expect, it } from 'vitest';
import { ManualLogClock, MemoryLog, type LogTransport, type ReadRequest } from '@agdx/transport';
import { AgentEnvelope, AgentId, CodecError, ContentType, ConversationId, encodeProvenanceHeaders, envelopeRecord, MintUlid, RecordId } from '@agdx/wire';
import { CONTEXT_READ_WINDOW, SessionConfig, sessions, sessionTurnText, type PartitionBounds, type Session } from '@agdx/sessions';
import { clientOn, countingLog } from './support/counting-log.js';

/** The same slice as the open window, through a bounds function the window cache does not recognise: an uncached read. */
const wholeWindow: PartitionBounds = (_topic, _partition, tail) => ({ start: tail > BigInt(CONTEXT_READ_WINDOW) ? tail - BigInt(CONTEXT_READ_WINDOW) : 0n, end: tail });

async function texts(session: Session): Promise<string[]> {
  return (await session.turns()).map(sessionTurnText);
}

async function uncached(session: Session): Promise<string[]> {
  return (await session.scope.read(session.scope.topics, wholeWindow)).map((m) => new TextDecoder().decode(m.payload));
}

/** Writes `count` records of another conversation to `topic` partition 0, in batches. */
async function filler(log: MemoryLog, topic: string, count: number): Promise<void> {
  const headers = encodeProvenanceHeaders({ conversation: ConversationId.derive('someone-else') });
  for (let left = count; left > 0; left -= 1000) {
    const n = Math.min(1000, left);
    await log.append({ stream: 'demo', topic, routing: { partition: 0 }, records: Array.from({ length: n }, () => ({ headers, payload: new Uint8Array([1]) })) });
  }
}

describe('the kept context window', () => {
  it('a repeated context read reads only what the log gained (plus one record per partition holding kept turns)', async () => {
    const counting = countingLog();
    const laser = await clientOn(counting.transport, 4);
    const session = sessions(laser).create('long');
    for (let i = 0; i < 200; i++) await session.append(i % 2 === 0 ? 'instruction' : 'model.response', `turn ${i}`);
    counting.reset();
    expect(await session.context()).toHaveLength(50);
    expect(counting.read()).toBe(200);

    for (let k = 0; k < 3; k++) {
      await session.append('tool.call', `call ${k}`);
      counting.reset();
      const turns = await session.context();
      expect(sessionTurnText(turns[turns.length - 1] as (typeof turns)[number])).toBe(`call ${k}`);
      // the new turn, and one probe per partition that already held this conversation's turns
      // (instruction and model.response from the start; tool.call from the second read on)
      expect(counting.read()).toBe(1 + (k === 0 ? 2 : 3));
    }
    counting.reset();
    await session.turns();
    expect(counting.read()).toBe(3);
    // another handle on the same factory continues the same window; a new factory starts its own
    expect(await texts(sessions(laser).create('long'))).toEqual(await texts(session));
    expect(await texts(session)).toEqual(await uncached(session));
  });

  it('slides: turns that leave the newest 10,000 records of their partition leave the context', async () => {
    const log = new MemoryLog();
    const laser = await clientOn(log, 1);
    const session = sessions(laser).create('slides');
    await session.append('instruction', 'old');
    await session.append('response', 'kept');
    expect(await texts(session)).toEqual(['old', 'kept']);
    await filler(log, 'agent.commands', CONTEXT_READ_WINDOW - 1);
    expect(await texts(session)).toEqual(['old', 'kept']);
    await filler(log, 'agent.commands', 1);
    expect(await texts(session)).toEqual(['kept']);
    expect(await texts(session)).toEqual(await uncached(session));
    await session.append('instruction', 'new');
    expect(await texts(session)).toEqual(['kept', 'new']);
  });

  it('drops kept turns the log has expired since, as a read of the whole window would', async () => {
    const clock = new ManualLogClock(1_000_000_000n);
    const log = new MemoryLog({ clock });
    const laser = await clientOn(log, 1);
    await log.ensureTopic({ stream: 'demo', topic: 'short.turns' }, { partitions: 1, messageExpiryMicros: 1_000_000n });
    const session = sessions(laser, new SessionConfig().topic('instruction', 'short.turns')).create('expiring');
    await session.append('instruction', 'expires');
    clock.advance(600_000n);
    await session.append('instruction', 'stays');
    await session.append('response', 'durable');
    expect(await texts(session)).toEqual(['expires', 'stays', 'durable']);
    clock.advance(600_000n);
    expect(await texts(session)).toEqual(['stays', 'durable']);
    expect(await texts(session)).toEqual(await uncached(session));
    clock.advance(600_000n);
    expect(await texts(session)).toEqual(['durable']);
  });

  it('drops an expired turn even when the window slid past an older kept turn in the same read', async () => {
    const clock = new ManualLogClock(1_000_000_000n);
    const log = new MemoryLog({ clock });
    const laser = await clientOn(log, 1);
    await log.ensureTopic({ stream: 'demo', topic: 'short.turns' }, { partitions: 1, messageExpiryMicros: 1_000_000n });
    const session = sessions(laser, new SessionConfig().topic('instruction', 'short.turns')).create('slid-and-expired');
    await session.append('instruction', 'a');
    clock.advance(100_000n);
    await session.append('instruction', 'b');
    expect(await texts(session)).toEqual(['a', 'b']);
    clock.advance(600_000n);
    await filler(log, 'short.turns', CONTEXT_READ_WINDOW - 1);
    clock.advance(450_000n);
    // 'a' left the window, 'b' is in it but expired: a read of the whole window sees neither
    expect(await uncached(session)).toEqual([]);
    expect(await texts(session)).toEqual([]);
  });

  it('a topic deleted and created again starts its window over; a deleted topic contributes nothing', async () => {
    const log = new MemoryLog();
    const laser = await clientOn(log, 1);
    const session = sessions(laser).create('recreated');
    await session.append('instruction', 'before');
    await session.append('response', 'answer');
    expect(await texts(session)).toEqual(['before', 'answer']);
    await log.deleteTopic({ stream: 'demo', topic: 'agent.commands' });
    expect(await texts(session)).toEqual(['answer']);
    await log.ensureTopic({ stream: 'demo', topic: 'agent.commands' }, { partitions: 1 });
    await session.append('instruction', 'after');
    expect(await texts(session)).toEqual(['answer', 'after']);
    expect(await texts(session)).toEqual(await uncached(session));
  });

  it('an undecodable record is reported once, when the window first meets it, and the turns around it stay', async () => {
    const log = new MemoryLog();
    const laser = await clientOn(log, 1);
    const errors: CodecError[] = [];
    const session = sessions(laser, undefined, { onError: (e) => errors.push(e) }).create('hostile');
    await session.append('instruction', 'first');
    // an envelope's headers over a payload that is no envelope
    const envelope = AgentEnvelope.fromFields({ kind: 'event', record: MintUlid.mint(RecordId), conversation: session.conversation, source: AgentId.new('assistant'), operation: 'note', body: new Uint8Array([1]) });
    const record = envelopeRecord(envelope, ContentType.cbor, { topic: 'agent.commands' });
    const bad = await log.append({ stream: 'demo', topic: 'agent.commands', routing: { partition: 0 }, records: [{ headers: record.headers, payload: new Uint8Array([0x9a, 0xff, 0xff, 0xff, 0xff]) }] });
    await session.append('instruction', 'second');
    expect(await texts(session)).toEqual(['first', 'second']);
    expect(await texts(session)).toEqual(['first', 'second']);
    await session.append('instruction', 'third');
    expect(await texts(session)).toEqual(['first', 'second', 'third']);
    expect(errors.map((e) => e.context)).toEqual([{ stream: 'demo', topic: 'agent.commands', partition: 0, offset: bad.baseOffset, reason: 'codec' }]);
  });

  it('a read that fails leaves the window as it was: the next read answers in full', async () => {
    const log = new MemoryLog();
    let failNext = false;
    const transport = new Proxy(log, {
      get(target, prop) {
        if (prop === 'read') {
          return async (request: ReadRequest) => {
            if (failNext && request.topic === 'agent.responses') {
              failNext = false;
              throw new Error('connection reset');
            }
            return target.read(request);
          };
        }
        const value: unknown = Reflect.get(target, prop, target);
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    }) as LogTransport;
    const laser = await clientOn(transport, 1);
    const session = sessions(laser).create('flaky');
    await session.append('instruction', 'one');
    expect(await texts(session)).toEqual(['one']);
    await session.append('instruction', 'two');
    await session.append('response', 'three');
    failNext = true;
    await expect(session.turns()).rejects.toThrow('connection reset');
    expect(await texts(session)).toEqual(['one', 'two', 'three']);
  });
});
