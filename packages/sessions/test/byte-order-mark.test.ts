import { describe, expect, it } from 'vitest';
import { AgentTopic } from '@agdx/agents';
import { FOLD_HEADER, FOLD_STREAM_HEADER, SNAPSHOT_TOPIC, sessions, sessionTurnText, type Embedder } from '@agdx/sessions';
import { CorrelationId, encodeProvenanceHeaders, MintUlid } from '@agdx/wire';
import { setup, encoder } from './helpers.js';
import { agent, model } from './support/counting-log.js';

// A TextDecoder drops a leading U+FEFF unless told not to; what was written must read back as written.
const BOM = '\ufeff';

/** An embedder that records every text it was asked to embed. */
function recordingEmbedder(): Embedder & { seen: string[] } {
  const seen: string[] = [];
  return { dimensions: 2, seen, embed: (texts) => texts.map((t) => (seen.push(t), [t.length + 1, 1])) };
}

describe('text that starts with U+FEFF reads back with it', () => {
  it('turn text: a plain turn payload and an envelope body, with a mark in the middle untouched', async () => {
    const { log, laser } = await setup({ partitions: 1 });
    const session = sessions(laser).create('bom');
    const conversation = session.conversation;
    await log.append({
      stream: 'demo',
      topic: 'agent.tool_calls',
      records: [`${BOM}plain`, `mid${BOM}dle`].map((t) => ({ headers: encodeProvenanceHeaders({ conversation }), payload: encoder.encode(t) })),
      routing: { key: conversation.toString() },
    });
    await laser.agdx(AgentTopic.Commands, agent, conversation).command(MintUlid.mint(CorrelationId), encoder.encode(`${BOM}enveloped`)).withOperation('chat').withTarget(model).send();
    const texts = (await session.context()).map(sessionTurnText);
    expect(texts.sort()).toEqual([`${BOM}enveloped`, `${BOM}plain`, `mid${BOM}dle`].sort());
  });

  it('memory items: recalled text, keyword search and the texts given to an embedder', async () => {
    const { laser } = await setup();
    const memory = sessions(laser).create('bom-memory').memory();
    await memory.remember(`${BOM}likes tea`);
    await memory.remember(encoder.encode(`${BOM}${BOM}works nights`));
    expect((await memory.recall().fetch()).map((i) => i.text())).toEqual([`${BOM}${BOM}works nights`, `${BOM}likes tea`]);
    expect((await memory.search('tea')).map((i) => i.text())).toEqual([`${BOM}likes tea`]);

    const stored = recordingEmbedder();
    await memory.withEmbedder(stored).remember(`${BOM}speaks french`);
    expect(stored.seen).toEqual([`${BOM}speaks french`]);
    // without stored vectors the items are embedded at recall time, from their text
    const late = recordingEmbedder();
    await memory.withEmbedder(late, { storeVectors: false }).recall().semantic('x').fetch();
    expect(late.seen.sort()).toEqual(['x', `${BOM}likes tea`, `${BOM}${BOM}works nights`].sort());
  });

  it('a fold snapshot naming the stream with a leading U+FEFF is not taken for that stream', async () => {
    const { laser } = await setup();
    const writer = sessions(laser);
    const session = writer.create('snap');
    await session.lifecycle.begin({ agent });
    await writer.snapshot();
    const [good] = await laser.transport.read({ stream: 'demo', topic: SNAPSHOT_TOPIC, partition: 0, offset: 0n, maxCount: 1 });
    const headers = new Map([
      [FOLD_HEADER, { kind: 'string' as const, value: encoder.encode('sessions') }],
      [FOLD_STREAM_HEADER, { kind: 'string' as const, value: encoder.encode(`${BOM}demo`) }],
    ]);
    await laser.transport.append({ stream: 'demo', topic: SNAPSHOT_TOPIC, records: [{ headers, payload: good!.payload }], routing: { partition: 0 } });
    const reader = sessions(laser);
    expect((await reader.sources(session.conversation)).start).toEqual({ from: 'snapshot', snapshot: { topic: SNAPSHOT_TOPIC, partition: 0, offset: 0n } });
  });
});
