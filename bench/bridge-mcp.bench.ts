// @agdx/bridge-mcp: MCP tools/call round trips through the Streamable HTTP handler on loopback
// (node:http + the bridge's node adapter, fetch as the client) to an echo worker agent on the
// embedded MemoryLog, against the same call made directly with the agents API (client.request
// of a tool command, correlated reply) in the same run. A middle figure shows the bridge without
// HTTP (McpBridge.callTool), and a bare node:http server answering a fixed result shows what
// loopback HTTP alone costs on this machine. Calls are sequential.
// Run: pnpm exec tsx --conditions=@agdx/source bench/bridge-mcp.bench.ts → one JSON object on stdout.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { AgdxClient, Agent, AgentTopic, agentMessageBody } from '@agdx/agents';
import { createMcpHttpHandler, McpBridge } from '@agdx/bridge-mcp';
import { toNodeListener } from '@agdx/bridge-mcp/node';
import { MemoryLog } from '@agdx/transport';
import { AgentId, ConversationId, CorrelationId, MintUlid } from '@agdx/wire';
import { median } from './support/stats.js';

const RUNS = Number(process.env.AGDX_BENCH_RUNS ?? 3);
const CALLS = Number(process.env.AGDX_BENCH_CALLS ?? 300);
const WARMUP = 50;

interface Figures {
  readonly callsPerSecond: number;
  readonly p50Ms: number;
  readonly p90Ms: number;
}

async function measure(call: (i: number) => Promise<void>): Promise<Figures> {
  for (let i = 0; i < WARMUP; i++) await call(i);
  const latencies: number[] = [];
  const started = performance.now();
  for (let i = 0; i < CALLS; i++) {
    const t = performance.now();
    await call(i);
    latencies.push(performance.now() - t);
  }
  const seconds = (performance.now() - started) / 1000;
  const sorted = [...latencies].sort((a, b) => a - b);
  return { callsPerSecond: CALLS / seconds, p50Ms: median(latencies), p90Ms: sorted[Math.floor(sorted.length * 0.9)]! };
}

function summarise(runs: Figures[]): Figures {
  return {
    callsPerSecond: Number(median(runs.map((r) => r.callsPerSecond)).toFixed(1)),
    p50Ms: Number(median(runs.map((r) => r.p50Ms)).toFixed(3)),
    p90Ms: Number(median(runs.map((r) => r.p90Ms)).toFixed(3)),
  };
}

async function main(): Promise<void> {
  const log = new MemoryLog();
  const laser = AgdxClient.from(log, { stream: 'bench' });
  await laser.bootstrap(1);
  const echo = Agent.builder()
    .id(AgentId.new('echo'))
    .listenOn(AgentTopic.ToolCalls)
    .respondOn(AgentTopic.ToolResults)
    .handler({ handle: (message, ctx) => ctx.respond(agentMessageBody(message)) })
    .build()
    .spawn(laser);
  await echo.ready();

  const bridge = new McpBridge(laser, 'mcp-gateway', AgentTopic.ToolCalls, AgentTopic.ToolResults, 'bench').withTool('echo', 'echoes its arguments', { type: 'object' });
  const server = createServer(toNodeListener(createMcpHttpHandler(bridge)));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' };

  // The HTTP floor on this machine: a bare node:http server answering a fixed JSON-RPC result.
  const bare = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      response.setHeader('content-type', 'application/json');
      response.end('{"jsonrpc":"2.0","id":0,"result":{"content":[{"type":"text","text":"{}"}]}}');
    });
  });
  await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
  const bareUrl = `http://127.0.0.1:${(bare.address() as AddressInfo).port}/mcp`;
  const httpFloor = async (i: number): Promise<void> => {
    const response = await fetch(bareUrl, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'echo', arguments: { n: i } } }) });
    await response.json();
  };

  const http = async (i: number): Promise<void> => {
    const response = await fetch(url, {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'echo', arguments: { n: i } } }),
    });
    const answer = (await response.json()) as { result?: { content: unknown[] } };
    if (answer.result?.content.length !== 1) throw new Error(`unexpected answer ${JSON.stringify(answer)}`);
  };
  const direct = async (i: number): Promise<void> => {
    await bridge.callTool('echo', { n: i });
  };
  const encoder = new TextEncoder();
  const baseline = async (i: number): Promise<void> => {
    const request = laser
      .agdx(AgentTopic.ToolCalls, AgentId.new('caller'), ConversationId.new())
      .command(MintUlid.mint(CorrelationId), encoder.encode(JSON.stringify({ name: 'echo', arguments: { n: i } })))
      .withTool('echo')
      .contentType('json');
    const reply = await laser.request(request, { replyTopic: AgentTopic.ToolResults, timeoutMs: 30_000 });
    if (reply.envelope === undefined) throw new Error('no reply');
  };

  const httpRuns: Figures[] = [];
  const directRuns: Figures[] = [];
  const baselineRuns: Figures[] = [];
  const floorRuns: Figures[] = [];
  for (let run = 0; run < RUNS; run++) {
    // Interleaved so a load change on a shared machine hits all four alike.
    baselineRuns.push(await measure(baseline));
    floorRuns.push(await measure(httpFloor));
    directRuns.push(await measure(direct));
    httpRuns.push(await measure(http));
  }
  server.closeAllConnections();
  server.close();
  bare.closeAllConnections();
  bare.close();
  await echo.shutdown();
  await laser.close();

  const ours = summarise(httpRuns);
  const bridgeOnly = summarise(directRuns);
  const base = summarise(baselineRuns);
  process.stdout.write(
    `${JSON.stringify({
      name: 'bridge-mcp tools/call round trips',
      environment: { node: process.version, platform: `${process.platform}-${process.arch}`, loadAverage1m: Number(loadavg()[0]!.toFixed(2)) },
      config: { runs: RUNS, callsPerRun: CALLS, warmup: WARMUP, log: 'MemoryLog, 1 partition', transport: 'node:http on 127.0.0.1 + fetch, sequential calls' },
      ours: { httpToolsCall: ours, bridgeCallToolWithoutHttp: bridgeOnly },
      baseline: { agentsRequest: base, bareNodeHttpRoundTrip: summarise(floorRuns) },
      ratio: {
        callsPerSecondHttpVsAgents: Number((ours.callsPerSecond / base.callsPerSecond).toFixed(3)),
        p50HttpVsAgents: Number((ours.p50Ms / base.p50Ms).toFixed(3)),
        callsPerSecondBridgeVsAgents: Number((bridgeOnly.callsPerSecond / base.callsPerSecond).toFixed(3)),
      },
    })}\n`,
  );
}

await main();
