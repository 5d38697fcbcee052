/**
 * The per-client stream limit of the node adapter, through a framework mount: a client holding
 * its limit of open event streams (16 by default) that asks for an AG-UI run without an
 * `Accept: text/event-stream` header is refused with 429 before the run's command is published.
 * Only the mounts that run the node adapter (Express, Fastify, Koa) have the limit.
 */

import { AgentTopic } from '@agdx/agents';
import { DEFAULT_MAX_STREAMS_PER_CLIENT } from '@agdx/bridge-kit/node';
import { ConversationId } from '@agdx/wire';
import { describe, expect, it } from 'vitest';
import { MOUNTS, startEdge } from '../../../../examples/edge-app/edge.js';
import { MAX_BODY_BYTES, TOKEN, type StartApp } from './checklist.js';

const AUTH = { authorization: `Bearer ${TOKEN}` };

/** Defines the stream-limit test for one framework whose mount runs the node adapter. */
export function streamLimitChecklist(framework: string, start: StartApp): void {
  describe(`${framework}: the per-client stream limit`, () => {
    it('refuses an AG-UI run past the limit with 429 before its command is on the log', async () => {
      const edge = await startEdge(new Map([[TOKEN, { audience: ['agdx-edge'], scopes: ['agents'] }]]), MAX_BODY_BYTES);
      const app = await start(edge.handlers);
      const aborts: AbortController[] = [];
      try {
        for (let i = 0; i < DEFAULT_MAX_STREAMS_PER_CLIENT; i++) {
          const abort = new AbortController();
          aborts.push(abort);
          const open = await fetch(`${app.url}${MOUNTS.agui}?threadId=${ConversationId.new().toString()}`, { headers: AUTH, signal: abort.signal });
          expect(open.status).toBe(200);
        }
        const records = async (): Promise<bigint> =>
          (await edge.client.transport.describeTopic({ stream: 'edge-app', topic: AgentTopic.Sessions })).partitions.reduce((sum, p) => sum + p.nextOffset, 0n);
        const before = await records();
        const run = await fetch(`${app.url}${MOUNTS.agui}`, {
          method: 'POST',
          headers: { ...AUTH, 'content-type': 'application/json' },
          body: JSON.stringify({ threadId: ConversationId.new().toString(), runId: 'r1', messages: [{ id: 'u1', role: 'user', content: 'hello' }], tools: [], context: [], state: {}, forwardedProps: {} }),
        });
        expect(run.status).toBe(429);
        expect(run.headers.get('retry-after')).toBe('1');
        await run.body?.cancel();
        expect(await records()).toBe(before);
      } finally {
        for (const abort of aborts) abort.abort();
        await app.close();
        await edge.close();
      }
    });
  });
}
