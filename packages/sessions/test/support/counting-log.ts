import { expect } from 'vitest';
import { AgdxClient, AgentTopic, SESSIONS_TOPIC, type StreamLayout } from '@agdx/agents';
import { sessions, type Sessions } from '@agdx/sessions';
import { MemoryLog, type LogTransport, type ReadRequest } from '@agdx/transport';
import { AgentId, CorrelationId, HEARTBEAT_TOPIC, MintUlid, type ConversationId } from '@agdx/wire';

export const agent: AgentId = AgentId.parse('planner');
export const model: AgentId = AgentId.parse('model');
export const text: TextEncoder = new TextEncoder();
/** The topics the session reads fold on the default layout. */
export const LANE: readonly string[] = [SESSIONS_TOPIC, 'agent.control', HEARTBEAT_TOPIC];

/** A model request and its answer on the lane: two records, one model call. */
export async function exchange(laser: AgdxClient, conversation: ConversationId): Promise<void> {
  const correlation = MintUlid.mint(CorrelationId);
  await laser.agdx(AgentTopic.Sessions, agent, conversation).command(correlation, text.encode('{"prompt":"hi"}')).withOperation('chat').withTarget(model).send();
  await laser.agdx(AgentTopic.Sessions, model, conversation).respond(correlation, text.encode('{"text":"hello"}')).withOperation('chat').withTarget(agent).send();
}

/** Every read of `reader` answers what a reader folding the whole log from scratch answers. */
export async function expectSameAsFresh(laser: AgdxClient, reader: Sessions, ids: readonly ConversationId[]): Promise<void> {
  const fresh = sessions(laser, undefined, { snapshots: false });
  expect(await reader.list({ limit: 1000 })).toEqual(await fresh.list({ limit: 1000 }));
  for (const id of ids) {
    expect(await reader.get(id)).toEqual(await fresh.get(id));
    expect(await reader.events(id)).toEqual(await fresh.events(id));
    expect(await reader.state(id)).toEqual(await fresh.state(id));
    expect(await reader.links(id)).toEqual(await fresh.links(id));
  }
}

/** A MemoryLog seen through a transport that counts the records each `read` returns, per topic. */
export interface CountingLog {
  readonly log: MemoryLog;
  readonly transport: LogTransport;
  /** Records returned by reads of `topics` (every topic when omitted) since the last reset. */
  read(topics?: readonly string[]): number;
  reset(): void;
}

/** Wraps `log` so that tests can tell how much of it a read touched. */
export function countingLog(log: MemoryLog = new MemoryLog()): CountingLog {
  const counts = new Map<string, number>();
  const transport = new Proxy(log, {
    get(target, prop) {
      if (prop === 'read') {
        return async (request: ReadRequest) => {
          const records = await target.read(request);
          counts.set(request.topic, (counts.get(request.topic) ?? 0) + records.length);
          return records;
        };
      }
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  }) as LogTransport;
  return {
    log,
    transport,
    read: (topics) => [...counts].filter(([t]) => topics === undefined || topics.includes(t)).reduce((n, [, c]) => n + c, 0),
    reset: () => counts.clear(),
  };
}

/** A client on `transport` with a bootstrapped `demo` stream. */
export async function clientOn(transport: LogTransport, partitions = 2, layout?: StreamLayout): Promise<AgdxClient> {
  const laser = AgdxClient.from(transport, layout === undefined ? { stream: 'demo' } : { stream: 'demo', layout });
  await laser.bootstrap(partitions);
  return laser;
}
