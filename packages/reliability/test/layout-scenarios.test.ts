/**
 * The stream-layout scenario suite on the embedded MemoryLog and over the dev server on TCP (VSR
 * and classic): the seed 002 request, a streamed answer with reasoning and a tool call with its
 * AG-UI replay, a session with turns and context (default and custom session layout), A2A
 * SendMessage + GetTask and MCP tools/call, under each of the four stream layouts, and readers,
 * requesters and a second bootstrap given another layout than the writers' refused with
 * layout-mismatch. One dev
 * server serves the whole file; every layout runs on a stream of its own.
 */
import { startDevServer, type DevServer } from '@agdx/iggy-dev-server';
import { MemoryLog, type LogTransport } from '@agdx/transport';
import { IggyTransport } from '@agdx/transport-iggy';
import { afterAll, beforeAll, describe, it } from 'vitest';
import {
  a2aSendAndGetTask,
  customSessionConfig,
  LAYOUTS,
  layoutEnvs,
  mcpToolsCall,
  readersRefuseAnotherLayout,
  seedRequest,
  sessionTurnsAndContext,
  streamedAnswerAndAguiReplay,
  withAssistant,
  type LayoutEnvFactory,
} from './support/layout-scenarios.js';

let server: DevServer | undefined;
beforeAll(async () => {
  server = await startDevServer({ port: 0, host: '127.0.0.1' });
}, 30_000);
afterAll(async () => {
  await server?.close();
});

let streams = 0;
const fresh = (prefix: string) => (): string => `${prefix}-${++streams}-${Date.now().toString(36)}`;

const memory: LayoutEnvFactory = (layout) => {
  const log = new MemoryLog();
  return layoutEnvs(async (): Promise<LogTransport> => log.connect(), fresh('layouts'))(layout);
};

const overIggy =
  (protocol: 'vsr' | 'classic'): LayoutEnvFactory =>
  (layout) => {
    if (server === undefined) throw new Error('the dev server did not start');
    const url = server.url;
    return layoutEnvs(() => IggyTransport.connect(url, { protocol, waitPollMs: { min: 2, max: 20 } }), fresh(`layouts-${protocol}`))(layout);
  };

const TRANSPORTS: readonly (readonly [string, LayoutEnvFactory])[] = [
  ['MemoryLog', memory],
  ['Iggy TCP (vsr)', overIggy('vsr')],
  ['Iggy TCP (classic)', overIggy('classic')],
];

for (const [transport, open] of TRANSPORTS) {
  describe.each(LAYOUTS)(`on ${transport}, under the %s layout`, (_name, layout) => {
    it('seed 002: the assistant answers laser.request, and the reply reaches the requester', () => withAssistant(open, layout, seedRequest));

    it('a streamed answer with reasoning and a tool call arrives, and AG-UI replays it in order', () => withAssistant(open, layout, streamedAnswerAndAguiReplay));

    it('a session with turns, context() and a model call reads back whole', () => withAssistant(open, layout, (env) => sessionTurnsAndContext(env)));

    it('a session on a custom session layout (own stream and turn topics) reads back whole', () =>
      withAssistant(open, layout, async (env) => sessionTurnsAndContext(env, await customSessionConfig(env))));

    it('A2A SendMessage, then GetTask finds the completed task', () => withAssistant(open, layout, a2aSendAndGetTask));

    it('MCP tools/call returns the assistant answer', () => withAssistant(open, layout, mcpToolsCall));

    it('readers, requesters, agents and a bootstrap given another layout are refused with layout-mismatch; the writers\' layout reads the log', async () => {
      const env = await open(layout);
      try {
        await readersRefuseAnotherLayout(env);
      } finally {
        await env.close();
      }
    });
  });
}
