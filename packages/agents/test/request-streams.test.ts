/**
 * `request()` waits where the reply comes: on the stream its request goes to, which is the
 * default stream of the client that built it, whichever client of the family sends it.
 */
import { describe, expect, it } from 'vitest';
import { AgdxClient, AgentTopic, agentMessageBody, readAgentMessage } from '@agdx/agents';
import { ConversationId, CorrelationId, MintUlid } from '@agdx/wire';
import { MemoryLog } from '@agdx/transport';
import { nextRecord } from './support-client/client.js';

describe('request() across default streams', () => {
  it('waits on the stream of the client that built the request, not the default stream of the one sending it', async () => {
    const log = new MemoryLog();
    const laser = AgdxClient.from(log, { stream: 'a' });
    await laser.bootstrap(1);
    const tenant = laser.withDefaultStream('b');
    await tenant.bootstrap(1);
    const conversation = ConversationId.new();
    const request = tenant.agdx(AgentTopic.Sessions, 'me', conversation).command(MintUlid.mint(CorrelationId), new Uint8Array([1])).withTarget('worker');
    expect(request.stream).toBe('b');
    const asking = laser.request(request, { replyTopic: AgentTopic.Sessions, timeoutMs: 60_000 });
    // The worker answers where it read the command: on stream b.
    const command = readAgentMessage(await nextRecord(log, 'b', AgentTopic.Sessions, () => true), { stream: 'b', topic: AgentTopic.Sessions });
    await tenant.agdx(AgentTopic.Sessions, 'worker', conversation).respond(command.envelope!.correlation!, new Uint8Array([42])).withTarget('me').send();
    const reply = await asking;
    expect([reply.id.stream, agentMessageBody(reply)[0]]).toEqual(['b', 42]);
    await laser.close();
  });

  it('refuses a request built by another client family, before anything is sent', async () => {
    const log = new MemoryLog();
    const laser = AgdxClient.from(log, { stream: 'a' });
    await laser.bootstrap(1);
    const stranger = AgdxClient.from(new MemoryLog(), { stream: 'a' });
    const request = stranger.agdx(AgentTopic.Sessions, 'me', ConversationId.new()).command(MintUlid.mint(CorrelationId), new Uint8Array([1]));
    await expect(laser.request(request, { replyTopic: AgentTopic.Sessions, timeoutMs: 60_000 })).rejects.toMatchObject({ kind: 'invalid', context: { field: 'request' } });
    // Not sent: the builder is still unused.
    await expect(request.send().catch((error: unknown) => error)).resolves.toMatchObject({ kind: 'publish-failed' });
  });
});
