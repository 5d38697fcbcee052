/**
 * Edge access: A2A and MCP requests with no claims or a wrong audience get 401 (no challenge),
 * a missing scope gets 403 with the step-up challenge, and only a matching audience and scope
 * reaches the bridge. Target filtering is routing, not an access boundary: any reader of a topic
 * sees records addressed to others (docs/reliability.md says so).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { AgdxClient, AgentTopic, readAgentMessage, agentMessageBody } from '@agdx/agents';
import type { EdgeClaims } from '@agdx/agents';
import { MemoryLog } from '@agdx/transport';
import { AgentId, ConversationId, CorrelationId, MintUlid } from '@agdx/wire';
import { edgeHandlers, type EdgeHandlers } from './support/edge-handlers.js';

const AUDIENCE = 'https://agents.example/edge';
const tokens: Record<string, EdgeClaims> = {
  good: { audience: [AUDIENCE], scopes: ['agents:call', 'agents:read'] },
  'wrong-audience': { audience: ['https://elsewhere.example'], scopes: ['agents:call', 'agents:read'] },
  'read-only': { audience: [AUDIENCE], scopes: ['agents:read'] },
};
const handlers: EdgeHandlers = await edgeHandlers({
  audience: AUDIENCE,
  // Reads need agents:read, everything else agents:call.
  scope: (method) => (['GetTask', 'tools/list', 'resources/list', 'prompts/list', 'initialize'].includes(method) ? 'agents:read' : 'agents:call'),
  claims: (request) => {
    const token = /^Bearer (.+)$/.exec(request.headers.get('authorization') ?? '')?.[1];
    if (token === 'explode') throw new Error('token decoder failed');
    return token === undefined ? undefined : tokens[token];
  },
});
afterAll(() => handlers.client.close());

function rpc(method: string, params: unknown, token?: string): Request {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (token !== undefined) headers['authorization'] = `Bearer ${token}`;
  return new Request('http://127.0.0.1/', { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: 7, method, params }) });
}

const cases = [
  { bridge: 'a2a', call: 'SendMessage', read: 'GetTask', params: { message: { role: 'ROLE_USER', messageId: 'm', parts: [{ text: 'hi' }] } } },
  { bridge: 'mcp', call: 'tools/call', read: 'tools/list', params: { name: 'nothing', arguments: {} } },
] as const;

describe('edge authorization of the bridges', () => {
  for (const c of cases) {
    it(`${c.bridge}: 401 without claims, with a wrong audience or a failing decoder; 403 with the challenge for a missing scope`, async () => {
      const handler = handlers[c.bridge];
      for (const token of [undefined, 'unknown', 'wrong-audience', 'explode']) {
        const response = await handler(rpc(c.call, c.params, token));
        expect(response.status, String(token)).toBe(401);
        expect(response.headers.get('www-authenticate'), String(token)).toBeNull();
      }
      const stepUp = await handler(rpc(c.call, c.params, 'read-only'));
      expect(stepUp.status).toBe(403);
      expect(stepUp.headers.get('www-authenticate')).toBe('Bearer scope="agents:call"');
      // The read scope is enough for a read, and the right token passes for both.
      expect((await handler(rpc(c.read, { id: ConversationId.new().toString() }, 'read-only'))).status).toBe(200);
      expect((await handler(rpc(c.read, { id: ConversationId.new().toString() }, 'good'))).status).toBe(200);
    });
  }
});

describe('target filtering is not an access boundary', () => {
  it('a record addressed to one agent is readable, body and all, by any reader of the topic', async () => {
    const log = new MemoryLog();
    const alice = AgdxClient.from(log, { stream: 'acl' });
    await alice.bootstrap(1);
    const conversation = ConversationId.new();
    await alice
      .agdx(AgentTopic.Sessions, 'alice', conversation)
      .command(MintUlid.mint(CorrelationId), new TextEncoder().encode('for bob only'))
      .withTarget(AgentId.new('bob'))
      .send();
    const [record] = await log.connect().read({ stream: 'acl', topic: AgentTopic.Sessions, partition: 0, offset: 0n });
    expect(record).toBeDefined();
    const seenByEve = readAgentMessage(record!, { stream: 'acl', topic: AgentTopic.Sessions });
    expect(seenByEve.provenance.target?.asStr()).toBe('bob');
    expect(new TextDecoder().decode(agentMessageBody(seenByEve))).toBe('for bob only');
    await alice.close();
  });
});
