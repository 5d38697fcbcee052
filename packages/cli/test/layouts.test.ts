/**
 * `agdx sessions` and `agdx tail` on logs written with a topic or a partition per agent: given the
 * writers' layout (`--layout` and its declarations) they find the records the layout moved off the
 * session's own partition. In process, against an in-process dev server.
 */
import { AgdxClient, AgentTopic, type StreamLayout } from '@agdx/agents';
import { ExitCode } from '@agdx/cli';
import { startDevServer, type DevServer } from '@agdx/iggy-dev-server';
import { sessions } from '@agdx/sessions';
import { IggyTransport } from '@agdx/transport-iggy';
import { AgentId, CorrelationId, MintUlid } from '@agdx/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agdxInProcess as agdx } from './support.js';

const planner = AgentId.new('planner');
const model = AgentId.new('model');
const text = new TextEncoder();

let server: DevServer;
let url = '';
beforeAll(async () => {
  server = await startDevServer({ port: 0 });
  url = `iggy://iggy:iggy@127.0.0.1:${server.port}`;
});
afterAll(async () => {
  await server.close();
});

/** Writes a session `name` with one model call (planner → model → planner) under `layout`. */
async function writeSession(stream: string, layout: StreamLayout, name: string): Promise<void> {
  const transport = await IggyTransport.connect(url);
  const laser = AgdxClient.from(transport, { stream, layout });
  try {
    await laser.bootstrap(4);
    const session = sessions(laser).create(name);
    await session.lifecycle.begin({ agent: planner });
    const correlation = MintUlid.mint(CorrelationId);
    await laser.agdx(AgentTopic.Sessions, planner, session.conversation).command(correlation, text.encode('{"prompt":"summarise"}')).withOperation('chat').withTarget(model).send();
    await laser.agdx(AgentTopic.Sessions, model, session.conversation).respond(correlation, text.encode('two lines')).withOperation('chat').withTarget(planner).send();
    await session.lifecycle.end();
  } finally {
    await laser.close();
    await transport.close();
  }
}

describe('agdx sessions and tail under a topic per agent', () => {
  const stream = 'cli-layout-topic';
  const layoutArgs = ['--layout', 'perAgentTopic', '--agent-topic', 'model=agent.model', '--agent-topic', 'planner=agent.planner'];
  beforeAll(() => writeSession(stream, { kind: 'perAgentTopic', topics: new Map([['model', 'agent.model'], ['planner', 'agent.planner']]) }, 'ticket-topic'));

  it('sessions list and show count the model call on the agents\' topics', async () => {
    const list = await agdx('sessions', 'list', '--iggy', url, '--stream', stream, ...layoutArgs);
    expect(list, list.err).toMatchObject({ code: ExitCode.Ok, err: '' });
    expect(list.out).toMatch(/completed\s+-\s+planner\s+\d+\s+1\/0\s/);
    const show = await agdx('sessions', 'show', 'ticket-topic', '--iggy', url, '--stream', stream, ...layoutArgs);
    expect(show.code, show.err).toBe(ExitCode.Ok);
    expect(show.out).toContain('(model calls 1, tool calls 0, errors 0)');
    expect(show.out).toMatch(/model\.request\s+planner\s+agent\.model\[\d\]@0/);
    // Without the layout the reader would look only on agent.sessions; bootstrap declared the
    // writers' layout, so the read says so instead of showing no model call.
    const blind = await agdx('sessions', 'show', 'ticket-topic', '--iggy', url, '--stream', stream);
    expect(blind.code).toBe(ExitCode.Failure);
    expect(blind.out).toBe('');
    expect(blind.err).toMatch(/^agdx: layout-mismatch: stream `cli-layout-topic` declares the perAgentTopic \(model -> agent\.model, planner -> agent\.planner\) layout, but this reader uses the shared layout/);
    const blindList = await agdx('sessions', 'list', '--iggy', url, '--stream', stream);
    expect(blindList.err).toMatch(/^agdx: layout-mismatch: /);
  });

  it('tail follows the declared per-agent topics when no topic is named', async () => {
    const tail = await agdx('tail', '--iggy', url, '--stream', stream, '--from', 'beginning', '--json', '--kind', 'command', '--limit', '1', ...layoutArgs);
    expect(tail.code, tail.err).toBe(ExitCode.Ok);
    const [record] = tail.out.trim().split('\n').map((l) => JSON.parse(l) as { topic: string; fields: Record<string, string> });
    expect(record).toMatchObject({ topic: 'agent.model', fields: { source: 'planner', target: 'model', operation: 'chat' } });
  });

  it('tail without topics and without the layout says the stream declares another one', async () => {
    const tail = await agdx('tail', '--iggy', url, '--stream', stream, '--from', 'beginning', '--json', '--limit', '1');
    expect(tail.code).toBe(ExitCode.Failure);
    expect(tail.err).toMatch(/^agdx: layout-mismatch: stream `cli-layout-topic` declares the perAgentTopic .* but this reader uses the shared layout/);
    // named topics are followed whatever the layout
    const named = await agdx('tail', 'agent.model', '--iggy', url, '--stream', stream, '--from', 'beginning', '--json', '--limit', '1');
    expect(named.code, named.err).toBe(ExitCode.Ok);
  });

  it('a declared topic or partition the log does not have is a layout mismatch, not an empty answer', async () => {
    const show = await agdx('sessions', 'show', 'ticket-topic', '--iggy', url, '--stream', stream, '--layout', 'perAgentTopic', '--agent-topic', 'model=agent.elsewhere');
    expect(show.code).toBe(ExitCode.Failure);
    expect(show.err).toMatch(/^agdx: layout-mismatch: .*agent\.elsewhere/);
    const list = await agdx('sessions', 'list', '--iggy', url, '--stream', stream, '--layout', 'perAgentPartition', '--agent-partition', 'model=9');
    expect(list.code).toBe(ExitCode.Failure);
    expect(list.err).toMatch(/^agdx: layout-mismatch: the layout declares partition 9, but `agent.sessions` has 4 partitions/);
  });
});

describe('agdx sessions under a partition per agent', () => {
  const stream = 'cli-layout-partition';
  beforeAll(() => writeSession(stream, { kind: 'perAgentPartition', partitions: new Map([['model', 0], ['planner', 2]]) }, 'ticket-partition'));

  it('sessions show finds the call on the agents\' partitions', async () => {
    const show = await agdx('sessions', 'show', 'ticket-partition', '--iggy', url, '--stream', stream, '--layout', 'perAgentPartition', '--agent-partition', 'model=0', '--agent-partition', 'planner=2');
    expect(show.code, show.err).toBe(ExitCode.Ok);
    expect(show.out).toContain('status   completed');
    expect(show.out).toContain('(model calls 1, tool calls 0, errors 0)');
    expect(show.out).toMatch(/model\.request\s+planner\s+agent\.sessions\[0\]@0/);
  });
});

describe('layout options', () => {
  it('are in the help of sessions and tail', async () => {
    for (const command of ['sessions', 'tail']) {
      const help = await agdx(command, '--help');
      expect(help.out).toMatch(/^  --layout KIND +the stream layout the log was written with \(default shared\):\n +shared, perAgentTopic, perAgentPartition, singlePartition$/m);
      expect(help.out).toMatch(/^  --agent-topic AGENT=TOPIC\n +perAgentTopic: /m);
      expect(help.out).toMatch(/^  --agent-partition AGENT=N\n +perAgentPartition: /m);
    }
  });

  it.each([
    [['--layout', 'sideways'], '--layout must be one of shared, perAgentTopic, perAgentPartition, singlePartition'],
    [['--layout', 'perAgentTopic'], 'needs at least one --agent-topic'],
    [['--agent-topic', 'model=agent.model'], '--agent-topic needs --layout perAgentTopic'],
    [['--layout', 'perAgentTopic', '--agent-topic', 'model'], 'must be AGENT=VALUE'],
    [['--layout', 'perAgentTopic', '--agent-topic', 'model=agent.sessions'], 'cannot be `agent.sessions`'],
    [['--layout', 'perAgentPartition', '--agent-partition', 'model=-1'], 'must be a whole number'],
    [['--layout', 'perAgentPartition', '--agent-partition', 'a=1', '--agent-partition', 'a=2'], 'declares agent "a" twice'],
  ])('%j is a usage error', async (argv, message) => {
    for (const command of [['sessions', 'list'], ['tail']]) {
      const result = await agdx(...command, '--iggy', 'iggy://iggy:iggy@127.0.0.1:1', ...argv);
      expect(result.code).toBe(ExitCode.Usage);
      expect(result.err).toContain(message);
    }
  });
});
