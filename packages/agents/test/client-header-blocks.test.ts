/** Memoised header blocks: whatever mix of senders, sessions, addressees and ancestry a client sends, every record carries the block a fresh encode gives. */
import { describe, expect, it } from 'vitest';
import { AgdxClient, AgentTopic, readAgentMessage } from '@agdx/agents';
import { AgentId, ConversationId, encodeHeaderBlock, MintUlid, CorrelationId } from '@agdx/wire';
import { MemoryLog } from '@agdx/transport';
import { readAll } from './support-client/client.js';

const enc = new TextEncoder();

describe('header blocks', () => {
  it('match a fresh encode for every record, across more combinations than the recent-block memo holds', async () => {
    const log = new MemoryLog();
    const laser = AgdxClient.from(log, { stream: 's' });
    await laser.bootstrap(1);
    const sources = [AgentId.new('planner'), AgentId.new('critic')];
    const targets = [undefined, 'echo', 'writer'];
    const sessions = [ConversationId.new(), ConversationId.new()];
    const parent = ConversationId.new();
    let sent = 0;
    // 2 sources x 3 targets x 2 sessions x 2 ancestries = 24 combinations, sent round-robin three
    // times, so entries are evicted from the memo and found again.
    for (let round = 0; round < 3; round++) {
      for (const source of sources) {
        for (const target of targets) {
          for (const conversation of sessions) {
            for (const withParent of [false, true]) {
              // A fresh but equal id object for the session now and then: equal values share a block.
              const session = round === 1 ? ConversationId.parse(conversation.toString()) : conversation;
              const builder = laser.agdx(AgentTopic.Commands, source, session).command(MintUlid.mint(CorrelationId), enc.encode(`n${sent}`));
              if (target !== undefined) builder.withTarget(target);
              if (withParent) builder.withParent(parent, parent);
              await builder.send();
              sent++;
            }
          }
        }
      }
    }
    const records = await readAll(log, 's', AgentTopic.Commands);
    expect(records).toHaveLength(sent);
    for (const record of records) {
      const envelope = readAgentMessage(record, { stream: 's', topic: AgentTopic.Commands }).envelope!;
      const fresh = encodeHeaderBlock(envelope, 0, { topic: AgentTopic.Commands });
      expect([...record.headers.entries()].map(([k, v]) => [k, v.kind, [...v.value]])).toEqual([...fresh.entries()].map(([k, v]) => [k, v.kind, [...v.value]]));
    }
  });
});
