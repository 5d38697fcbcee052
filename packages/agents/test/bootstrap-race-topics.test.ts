/**
 * Two processes bootstrapping one stream at once with different layouts: the one whose layout
 * declaration lands second loses (LayoutMismatchError). Bootstrap creates a layout's topics before
 * it declares it, so a losing topic-per-agent bootstrap may have created topics the winning
 * layout never uses; it says which, in the error, so they can be deleted. With different
 * partition counts the second bootstrap stops at the first topic, having created nothing.
 */
import { AgdxClient, AgentTopic, LAYOUT_DECLARATION_TOPIC, LayoutMismatchError, readLayoutDeclaration, type BootstrapResult, type StreamLayout } from '@agdx/agents';
import { AgdxError } from '@agdx/wire';
import { MemoryLog, type AppendRequest, type AppendResult, type LogTransport } from '@agdx/transport';
import { describe, expect, it } from 'vitest';

const STREAM = 'bootstrap-race';
const shared: StreamLayout = { kind: 'shared' };
const byTopic: StreamLayout = { kind: 'perAgentTopic', topics: new Map([['model', 'agent.model'], ['tools', 'agent.tools']]) };
const modelOnly: StreamLayout = { kind: 'perAgentTopic', topics: new Map([['model', 'agent.model']]) };

/**
 * A MemoryLog connection whose declaration appends are held until `writers` of them wait (every
 * racer has created its topics and read the declaration topic), then let through with the
 * `first` layout's record first: the race is decided by the test, not by call counts.
 */
function racing(log: MemoryLog, writers: number, first: StreamLayout['kind'], firstTopics?: number): LogTransport {
  const held: { request: AppendRequest; go: () => void }[] = [];
  const isFirst = (request: AppendRequest): boolean => {
    const declared = JSON.parse(new TextDecoder().decode(request.records[0]?.payload)) as { kind: string; topics?: Record<string, string> };
    return declared.kind === first && (firstTopics === undefined || Object.keys(declared.topics ?? {}).length === firstTopics);
  };
  return new Proxy(log, {
    get(target, prop) {
      if (prop === 'append') {
        return async (request: AppendRequest): Promise<AppendResult> => {
          if (request.topic === LAYOUT_DECLARATION_TOPIC && writers > 0) {
            writers--;
            await new Promise<void>((go) => {
              held.push({ request, go });
              if (writers > 0) return;
              const order = [...held.filter((h) => isFirst(h.request)), ...held.filter((h) => !isFirst(h.request))];
              // Released one at a time, in order: each append is stored before the next is let go.
              void order.reduce<Promise<void>>((prev, h) => prev.then(async () => {
                h.go();
                await new Promise((resolve) => setImmediate(resolve));
              }), Promise.resolve());
            });
          }
          return target.append(request);
        };
      }
      const value = Reflect.get(target, prop, target) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  }) as LogTransport;
}

async function settle(run: Promise<BootstrapResult>): Promise<BootstrapResult | unknown> {
  return run.catch((error: unknown) => error);
}

async function topicExists(log: MemoryLog, topic: string): Promise<boolean> {
  return log.describeTopic({ stream: STREAM, topic }).then(
    () => true,
    (error: unknown) => {
      if (AgdxError.is(error, 'not-found')) return false;
      throw error;
    },
  );
}

describe('a bootstrap that loses the layout race', () => {
  it('names the topics it created that the winning layout does not use, and they are all that is left over', async () => {
    const log = new MemoryLog();
    const transport = racing(log, 2, 'shared');
    const [won, lost] = await Promise.all([
      settle(AgdxClient.from(transport, { stream: STREAM, layout: shared }).bootstrap(2)),
      settle(AgdxClient.from(transport, { stream: STREAM, layout: byTopic }).bootstrap(2)),
    ]);
    expect((won as BootstrapResult).topics).not.toContain('agent.model');
    expect(lost).toBeInstanceOf(LayoutMismatchError);
    const error = lost as LayoutMismatchError;
    expect(error.context).toMatchObject({ stream: STREAM, declaredLayout: 'shared', requestedLayout: 'perAgentTopic', strayTopics: ['agent.model', 'agent.tools'] });
    expect(error.message).toContain('`agent.model`, `agent.tools`');
    expect(error.cause).toBeInstanceOf(LayoutMismatchError);
    expect((await readLayoutDeclaration(log, STREAM))?.layout).toEqual(shared);
    // Deleting what the error names leaves exactly the winner's topics.
    for (const topic of error.context?.['strayTopics'] as string[]) await log.deleteTopic({ stream: STREAM, topic });
    for (const topic of (won as BootstrapResult).topics) expect(await topicExists(log, topic)).toBe(true);
    expect(await topicExists(log, 'agent.model')).toBe(false);
    expect(await topicExists(log, 'agent.tools')).toBe(false);
    // The winner's next bootstrap is content with the stream as it is.
    await AgdxClient.from(log, { stream: STREAM, layout: shared }).bootstrap(2);
  });

  it('names only the topics the winning layout leaves out', async () => {
    const log = new MemoryLog();
    const transport = racing(log, 2, 'perAgentTopic', 1);
    const [won, lost] = await Promise.all([
      settle(AgdxClient.from(transport, { stream: STREAM, layout: modelOnly }).bootstrap(1)),
      settle(AgdxClient.from(transport, { stream: STREAM, layout: byTopic }).bootstrap(1)),
    ]);
    expect((won as BootstrapResult).topics).toContain('agent.model');
    expect(lost).toBeInstanceOf(LayoutMismatchError);
    expect((lost as LayoutMismatchError).context).toMatchObject({ strayTopics: ['agent.tools'] });
    expect((lost as LayoutMismatchError).message).not.toContain('`agent.model`');
  });

  it('a loser that created nothing of its own is refused as before, naming no topics', async () => {
    const log = new MemoryLog();
    const transport = racing(log, 2, 'perAgentTopic');
    const [won, lost] = await Promise.all([
      settle(AgdxClient.from(transport, { stream: STREAM, layout: byTopic }).bootstrap(2)),
      settle(AgdxClient.from(transport, { stream: STREAM, layout: shared }).bootstrap(2)),
    ]);
    expect((won as BootstrapResult).topics).toContain('agent.tools');
    expect(lost).toBeInstanceOf(LayoutMismatchError);
    expect((lost as LayoutMismatchError).context?.['strayTopics']).toBeUndefined();
  });

  it('does not name a topic that existed before it ran, even one the winner does not use', async () => {
    const log = new MemoryLog();
    await log.ensureStream(STREAM);
    await log.ensureTopic({ stream: STREAM, topic: 'agent.model' }, { partitions: 2 });
    const transport = racing(log, 2, 'shared');
    const [, lost] = await Promise.all([
      settle(AgdxClient.from(transport, { stream: STREAM, layout: shared }).bootstrap(2)),
      settle(AgdxClient.from(transport, { stream: STREAM, layout: byTopic }).bootstrap(2)),
    ]);
    expect((lost as LayoutMismatchError).context).toMatchObject({ strayTopics: ['agent.tools'] });
  });

  it('with other partition counts, the second to create a topic stops there: a ConflictError naming it, and no topic of its own', async () => {
    const log = new MemoryLog();
    const [a, b] = await Promise.all([
      settle(AgdxClient.from(log, { stream: STREAM, layout: shared }).bootstrap(2)),
      settle(AgdxClient.from(log, { stream: STREAM, layout: byTopic }).bootstrap(4)),
    ]);
    const failed = [a, b].filter((x) => AgdxError.is(x));
    expect(failed).toHaveLength(1);
    const conflict = failed[0] as AgdxError;
    expect(conflict.kind).toBe('conflict');
    expect(conflict.context).toMatchObject({ stream: STREAM, topic: AgentTopic.Sessions });
    const winnerPartitions = AgdxError.is(a) ? 4 : 2;
    for (const topic of [AgentTopic.Sessions, AgentTopic.HumanInput]) {
      expect((await log.describeTopic({ stream: STREAM, topic })).partitionCount).toBe(winnerPartitions);
    }
    // The shared bootstrap won: the topic-per-agent one created none of its topics.
    if (AgdxError.is(b)) expect(await topicExists(log, 'agent.model')).toBe(false);
  });
});
