import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SpanKind } from '@opentelemetry/api';
import { AgdxClient } from '@agdx/agents';
import { startDevServer, type DevServer } from '@agdx/iggy-dev-server';
import { instrument } from '@agdx/otel';
import { IggyTransport } from '@agdx/transport-iggy';
import { ConversationId } from '@agdx/wire';
import { askPlanner, spawnFabric } from './support/fabric.js';
import { memorySdk, until } from './support/telemetry-sdk.js';

const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const WORKER = fileURLToPath(new URL('./support/worker-process.ts', import.meta.url));

interface ChildSpan {
  readonly name: string;
  readonly kind: number;
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string | undefined;
  readonly agent: string | undefined;
}

let server: DevServer;
beforeAll(async () => {
  server = await startDevServer({ port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  await server.close();
});

describe('over the dev server, in two processes', () => {
  // A child compiling TypeScript on a loaded machine can take a while to start.
  it('the worker and approver in another process continue the planner’s trace', { timeout: 120_000 }, async () => {
    const setup = await IggyTransport.connect(server.url);
    await AgdxClient.from(setup, { stream: 'demo' }).bootstrap(2);
    await setup.close();

    const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=@agdx/source', WORKER, server.url], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    try {
      await until(() => out.includes('ready\n') || child.exitCode !== null, 'the worker process to start', 4_000);
      expect(out, err).toContain('ready\n');

      const sdk = memorySdk();
      const transport = await IggyTransport.connect(server.url);
      const client = AgdxClient.from(transport, { stream: 'demo' });
      const { telemetry } = instrument(client, { tracerProvider: sdk.tracerProvider, meterProvider: sdk.meterProvider });
      const [planner] = await spawnFabric(client, ['planner']);
      const answer = await askPlanner(client, ConversationId.new());
      expect(answer).toBe('summary, approved');
      await until(() => sdk.spans().some((s) => s.kind === SpanKind.CONSUMER) && telemetry.runningScopes === 0, 'the planner to finish');
      expect(await exited, err).toBe(0);
      await planner!.shutdown();
      await client.close();
      await transport.close();

      const here = sdk.spans();
      const there = JSON.parse(out.split('\n')[1] as string) as ChildSpan[];
      const traceId = here[0]!.spanContext().traceId;
      expect(new Set([...here.map((s) => s.spanContext().traceId), ...there.map((s) => s.traceId)])).toEqual(new Set([traceId]));
      // The worker's handle span (other process) is the child of the planner's request send (this process).
      const workerHandle = there.find((s) => s.kind === SpanKind.CONSUMER && s.agent === 'worker')!;
      const delegation = here.find((s) => s.spanContext().spanId === workerHandle.parentSpanId)!;
      expect(delegation.kind).toBe(SpanKind.PRODUCER);
      expect(delegation.attributes['gen_ai.agent.id']).toBe('planner');
      // The approver's handle continues the worker's prompt, both in the other process.
      const approverHandle = there.find((s) => s.kind === SpanKind.CONSUMER && s.agent === 'approver')!;
      const prompt = there.find((s) => s.spanId === approverHandle.parentSpanId)!;
      expect(prompt.kind).toBe(SpanKind.PRODUCER);
      expect(there.find((s) => s.spanId === prompt.parentSpanId)?.name).toBe('human_input approver');
      await sdk.shutdown();
    } finally {
      if (child.exitCode === null) child.kill();
    }
  });
});
