/**
 * The client over a real Iggy connection: @agdx/transport-iggy against @agdx/iggy-dev-server on
 * TCP, both wire protocols. The seed 000 command, a buffered chunk stream, a correlated wait and
 * requestInput run as they do on MemoryLog.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgdxClient, AgentTopic, agentMessageBody, readAgentMessage } from '@agdx/agents';
import { startDevServer, type DevServer } from '@agdx/iggy-dev-server';
import { IggyTransport } from '@agdx/transport-iggy';
import { AgentId, ChunkAssembler, ConversationId, CorrelationId, MintUlid } from '@agdx/wire';
import { nextRecord, readAll } from './support-client/client.js';

let server: DevServer;
beforeAll(async () => {
  server = await startDevServer({ port: 0, host: '127.0.0.1' });
}, 30_000);
afterAll(async () => {
  await server?.close();
});

const dec = (b: Uint8Array): string => new TextDecoder().decode(b);

for (const protocol of ['vsr', 'classic'] as const) {
  describe(`over Iggy TCP (${protocol})`, () => {
    it('sends the seed command, streams chunks, answers a correlated wait and a requestInput', async () => {
      const transport = await IggyTransport.connect(server.url, { protocol });
      const stream = `agents-${protocol}-${Date.now().toString(36)}`;
      const laser = AgdxClient.from(transport, { stream });
      try {
        await laser.bootstrap(3);
        await laser.bootstrap(3);

        const text = new TextEncoder()
        const conversation = ConversationId.new()
        const correlation = MintUlid.mint(CorrelationId)
        const record = await laser
          .agdx(AgentTopic.Sessions, AgentId.new("planner"), conversation)
          .command(correlation, text.encode("summarize incident 42"))
          .withOperation("summarize")
          .send()

        const [lane] = await readAll(transport, stream, AgentTopic.Sessions);
        const command = readAgentMessage(lane!, { stream, topic: AgentTopic.Sessions });
        expect(command.envelope?.record?.equals(record)).toBe(true);
        expect(command.headers.get('agdx.to')?.value).toEqual(text.encode('*'));

        const writer = laser.agdx(AgentTopic.Streams, AgentId.new('summarizer'), conversation).stream(correlation, 'chat').buffered(32, 20);
        await writer.write(text.encode('The incident '));
        await writer.write(text.encode('is resolved.'));
        await writer.finish('stop');
        const assembler = new ChunkAssembler();
        let out = '';
        for (const r of await readAll(transport, stream, AgentTopic.Streams)) {
          for (const e of assembler.feed(readAgentMessage(r, { stream, topic: AgentTopic.Streams }).envelope!)) if (e.kind === 'body') out += dec(e.payload);
        }
        expect(out).toBe('The incident is resolved.');

        const reply = laser.request(
          laser.agdx(AgentTopic.Sessions, 'gateway', conversation).command(MintUlid.mint(CorrelationId), text.encode('ping')).withTarget('worker'),
          { replyTopic: AgentTopic.Sessions, timeoutMs: 10_000 },
        );
        const ping = await nextRecord(transport, stream, AgentTopic.Sessions, (r) => readAgentMessage(r, { stream, topic: AgentTopic.Sessions }).envelope?.target?.value === 'worker');
        const env = readAgentMessage(ping, { stream, topic: AgentTopic.Sessions }).envelope!;
        await laser.agdx(AgentTopic.Sessions, 'worker', conversation).respond(env.correlation!, text.encode('pong')).withTarget('gateway').send();
        expect(dec(agentMessageBody(await reply))).toBe('pong');

        const decision = laser
          .agdx(AgentTopic.Sessions, AgentId.new('orchestrator'), conversation)
          .requestInput(AgentTopic.Sessions, text.encode('restart?'), 10_000, { target: AgentId.new('approver') });
        const prompt = await nextRecord(transport, stream, AgentTopic.Sessions, (r) => readAgentMessage(r, { stream, topic: AgentTopic.Sessions }).envelope?.target?.value === 'approver');
        const p = readAgentMessage(prompt, { stream, topic: AgentTopic.Sessions }).envelope!;
        await laser.agdx(AgentTopic.Sessions, 'approver', conversation).respond(p.correlation!, text.encode('approved')).withTarget('orchestrator').send();
        expect(dec(await decision)).toBe('approved');
      } finally {
        await laser.close();
        await transport.close();
      }
    }, 30_000);

    it('sends 64 concurrent commands to one conversation over four connections in call order, each receipt naming its record', async () => {
      const transport = await IggyTransport.connect(server.url, { protocol, connections: 4, heartbeatIntervalMs: 0 });
      const stream = `order-${protocol}-${Date.now().toString(36)}`;
      const laser = AgdxClient.from(transport, { stream });
      try {
        await laser.bootstrap(3);
        const conversation = ConversationId.new();
        const planner = AgentId.new('planner');
        const text = new TextEncoder();
        for (let wave = 0; wave < 2; wave++) {
          const receipts = await Promise.all(
            Array.from({ length: 64 }, (_, i) =>
              laser.agdx(AgentTopic.Sessions, planner, conversation).command(MintUlid.mint(CorrelationId), text.encode(`${wave}.${i}`)).withTarget('worker').sendReceipt(),
            ),
          );
          const partition = receipts[0]!.position.partition;
          expect(receipts.every((r) => r.position.partition === partition)).toBe(true);
          const from = receipts[0]!.position.offset;
          const back = await transport.read({ stream, topic: AgentTopic.Sessions, partition, offset: from, maxCount: 64 });
          const bodies = back.map((r) => dec(readAgentMessage(r, { stream, topic: AgentTopic.Sessions }).envelope!.body));
          expect(bodies).toEqual(Array.from({ length: 64 }, (_, i) => `${wave}.${i}`));
          for (const [i, receipt] of receipts.entries()) expect(receipt.position.offset).toBe(from + BigInt(i));
        }
      } finally {
        await laser.close();
        await transport.close();
      }
    }, 30_000);
  });
}
