import { Agent, AgentTopic, RESUME_MARKER_TOPIC } from '@agdx/agents';
import { InvalidError } from '@agdx/wire';
import { MemoryLog } from '@agdx/transport';
import { describe, expect, it } from 'vitest';
import { checkCrashLoopGuard, MAX_RESUME_LOOK_BACK, ResumeMarkers, type ResumeMarkerScope } from '../src/agent/resume-markers.js';

const STREAM = 'markers';

async function log(): Promise<MemoryLog> {
  const memory = new MemoryLog();
  await memory.ensureStream(STREAM);
  return memory;
}

function scope(over: Partial<ResumeMarkerScope> = {}): ResumeMarkerScope {
  return { stream: STREAM, topic: AgentTopic.Sessions, group: 'worker', agent: 'worker', instance: 'instance-a', ...over };
}

describe('resume markers', () => {
  it('counts earlier resumes at the same record, and creates the topic on first use with an expiry', async () => {
    const memory = await log();
    const markers = new ResumeMarkers(memory, scope(), 64);
    expect(await markers.resuming(0, 7n)).toBe(0);
    expect(await markers.resuming(0, 7n)).toBe(1);
    // Another process of the same group resuming at the same record counts too.
    expect(await new ResumeMarkers(memory, scope(), 64).resuming(0, 7n)).toBe(2);
    const topic = await memory.describeTopic({ stream: STREAM, topic: RESUME_MARKER_TOPIC });
    expect(topic.partitionCount).toBe(1);
    expect(topic.messageExpiryMicros).toBe(3_600_000_000n);
  });

  it('does not count resumes at another partition, offset, topic or group (instances sharing a group)', async () => {
    const memory = await log();
    const a = new ResumeMarkers(memory, scope(), 64);
    const b = new ResumeMarkers(memory, scope({ instance: 'instance-b' }), 64);
    for (let i = 0; i < 5; i++) {
      await b.resuming(1, 3n);
      await b.resuming(0, 4n);
      await new ResumeMarkers(memory, scope({ group: 'other' }), 64).resuming(0, 3n);
      await new ResumeMarkers(memory, scope({ topic: 'agent.commands' }), 64).resuming(0, 3n);
    }
    expect(await a.resuming(0, 3n)).toBe(0);
    expect(await b.resuming(0, 3n)).toBe(1);
  });

  it('a withdrawal cancels one marker of the same record, and never counts below zero', async () => {
    const memory = await log();
    const markers = new ResumeMarkers(memory, scope(), 64);
    expect(await markers.resuming(0, 7n)).toBe(0);
    await markers.withdraw(0, 7n);
    expect(await markers.resuming(0, 7n)).toBe(0);
    expect(await markers.resuming(0, 7n)).toBe(1);
    // A withdrawal for another record cancels nothing here.
    await markers.withdraw(0, 8n);
    await markers.withdraw(0, 8n);
    expect(await markers.resuming(0, 7n)).toBe(2);
    expect(await markers.resuming(0, 8n)).toBe(0);
  });

  it('creates the marker topic again when it was deleted after first use', async () => {
    const memory = await log();
    const markers = new ResumeMarkers(memory, scope(), 64);
    expect(await markers.resuming(0, 7n)).toBe(0);
    expect(await markers.resuming(0, 7n)).toBe(1);
    await memory.deleteTopic({ stream: STREAM, topic: RESUME_MARKER_TOPIC });
    expect(await markers.resuming(0, 7n)).toBe(0);
    expect(await markers.resuming(0, 7n)).toBe(1);
    expect((await memory.describeTopic({ stream: STREAM, topic: RESUME_MARKER_TOPIC })).messageExpiryMicros).toBe(3_600_000_000n);
  });

  it('looks back a bounded window: markers pushed out by others no longer count', async () => {
    const memory = await log();
    const mine = new ResumeMarkers(memory, scope(), 8);
    await mine.resuming(2, 10n);
    await mine.resuming(2, 10n);
    const others = new ResumeMarkers(memory, scope({ group: 'busy' }), 8);
    for (let i = 0; i < 7; i++) await others.resuming(0, BigInt(i));
    // One of the two earlier markers is still within the 8 records before the new one.
    expect(await mine.resuming(2, 10n)).toBe(1);
    for (let i = 0; i < 8; i++) await others.resuming(0, BigInt(i));
    expect(await mine.resuming(2, 10n)).toBe(0);
  });

  it('ignores hostile records on the marker topic: garbage, oversized, wrong types, near misses', async () => {
    const memory = await log();
    const markers = new ResumeMarkers(memory, scope(), 64);
    await markers.resuming(0, 1n);
    const text = new TextEncoder();
    const near = { v: 1, stream: STREAM, topic: AgentTopic.Sessions, group: 'worker', partition: 0, offset: '1' };
    const payloads = [
      new Uint8Array([0xff, 0xfe, 0x00]),
      text.encode('null'),
      text.encode('[1,2]'),
      text.encode(JSON.stringify({ ...near, offset: 1 })),
      text.encode(JSON.stringify({ ...near, partition: '0' })),
      text.encode(JSON.stringify({ ...near, v: 2 })),
      text.encode(JSON.stringify({ ...near, pad: 'x'.repeat(4_096) })),
    ];
    await memory.append({ stream: STREAM, topic: RESUME_MARKER_TOPIC, routing: { partition: 0 }, records: payloads.map((payload) => ({ payload })) });
    expect(await markers.resuming(0, 1n)).toBe(1);
  });

  it('validates its options', () => {
    expect(checkCrashLoopGuard(false)).toBe(false);
    expect(checkCrashLoopGuard({})).toEqual({ maxResumes: undefined, lookBack: 512 });
    for (const bad of [{ maxResumes: 0 }, { maxResumes: 1.5 }, { lookBack: 0 }, { lookBack: MAX_RESUME_LOOK_BACK + 1 }, { lookBack: Number.NaN }]) {
      expect(() => Agent.builder().crashLoopGuard(bad)).toThrow(InvalidError);
    }
    expect(() => Agent.builder().crashLoopGuard(null as never)).toThrow(InvalidError);
  });
});
