/**
 * The second process of the two-process test: connects to the dev server at argv[2], runs the
 * worker and the approver on an instrumented client with its own in-memory SDK, prints `ready`,
 * and once both have handled their record prints its finished spans as one JSON line and exits.
 */
import { SpanKind } from '@opentelemetry/api';
import { AgdxClient } from '@agdx/agents';
import { instrument } from '@agdx/otel';
import { IggyTransport } from '@agdx/transport-iggy';
import { spawnFabric } from './fabric.js';
import { memorySdk, until } from './telemetry-sdk.js';

const sdk = memorySdk();
const transport = await IggyTransport.connect(process.argv[2] as string);
const client = AgdxClient.from(transport, { stream: 'demo' });
const { telemetry } = instrument(client, { tracerProvider: sdk.tracerProvider, meterProvider: sdk.meterProvider });
const agents = await spawnFabric(client, ['worker', 'approver']);
process.stdout.write('ready\n');
await until(() => sdk.spans().filter((s) => s.kind === SpanKind.CONSUMER).length >= 2 && telemetry.runningScopes === 0, 'worker and approver to finish', 4_000);
const spans = sdk.spans().map((s) => ({
  name: s.name,
  kind: s.kind,
  traceId: s.spanContext().traceId,
  spanId: s.spanContext().spanId,
  parentSpanId: s.parentSpanContext?.spanId,
  agent: s.attributes['gen_ai.agent.id'],
}));
process.stdout.write(`${JSON.stringify(spans)}\n`);
await Promise.all(agents.map((a) => a.shutdown()));
await client.close();
await transport.close();
await sdk.shutdown();
