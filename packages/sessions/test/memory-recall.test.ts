import { describe, expect, it } from 'vitest';
import { PolicyBlockedError, type ActionGovernor } from '@agdx/agents';
import {
  decodeMemoryRecord,
  EmbedderError,
  encodeMemoryRecord,
  fuseReciprocalRank,
  MAX_INDEXED_TOKENS,
  MEMORY_NAMESPACE_HEADER,
  sessions,
  SessionConfig,
  SummarizerError,
  tokenize,
  type Embedder,
  type MemoryRecord,
} from '@agdx/sessions';
import { MemoryLog, type LogTransport } from '@agdx/transport';
import { AgdxClient } from '@agdx/agents';
import { AgdxError, CodecError, encodeProvenanceHeaders, InvalidError, stringHeader, UnsupportedError, type ConversationId } from '@agdx/wire';
import { setup } from './helpers.js';

/** Concept axes of the test embedder: a text's vector counts its words on each axis. */
const CONCEPTS: readonly (readonly string[])[] = [
  ['tea', 'coffee', 'espresso', 'latte', 'drink', 'drinks', 'beverage', 'beverages', 'cup'],
  ['night', 'nights', 'morning', 'evening', 'shift', 'schedule', 'late'],
  ['french', 'spanish', 'english', 'language', 'speaks', 'fluent'],
  ['dog', 'cat', 'pet', 'pets', 'puppy', 'animal'],
];

/** A deterministic embedder for the tests; counts its calls and the texts it embedded. */
function conceptEmbedder(): Embedder & { calls: number; texts: number } {
  const embedder = {
    dimensions: CONCEPTS.length,
    calls: 0,
    texts: 0,
    embed(texts: readonly string[]): number[][] {
      embedder.calls++;
      embedder.texts += texts.length;
      return texts.map((text) => {
        const words = tokenize(text);
        // a tiny constant keeps texts without any concept word from being all zeros
        return CONCEPTS.map((axis) => words.filter((w) => axis.includes(w)).length + 0.01);
      });
    },
  };
  return embedder;
}

/** A transport that counts the records its reads returned. */
function countingReads(inner: LogTransport): { transport: LogTransport; recordsRead: () => number } {
  let count = 0;
  const transport = new Proxy(inner, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (prop === 'read' && typeof value === 'function') {
        return async (...args: unknown[]) => {
          const records = (await (value as (...a: unknown[]) => Promise<unknown[]>).apply(target, args)) as unknown[];
          count += records.length;
          return records;
        };
      }
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { transport, recordsRead: () => count };
}

/** Appends memory records of `conversation` in the default namespace in one batch. */
async function appendMemory(log: MemoryLog, conversation: ConversationId, records: readonly MemoryRecord[]): Promise<void> {
  const headers = new Map([...encodeProvenanceHeaders({ conversation }), [MEMORY_NAMESPACE_HEADER, stringHeader('agent.session')]]);
  await log.append({ stream: 'demo', topic: 'agent.memory', records: records.map((r) => ({ headers, payload: encodeMemoryRecord(r) })), routing: { partition: 0 } });
}

describe('keyword recall (BM25 over a Unicode tokenizer)', () => {
  it('finds the relevant item first among distractors, and only items sharing a word', async () => {
    const { laser } = await setup();
    const memory = sessions(laser).create('ranking').memory();
    await memory.remember('The user prefers green tea in the afternoon.');
    for (let i = 0; i < 40; i++) await memory.remember(`distractor note ${i} about the weather and the afternoon traffic`);
    await memory.remember('Deploys happen on Tuesdays after the standup.');
    const hits = await memory.search('what TEA does the user like?');
    expect(hits[0]?.text()).toBe('The user prefers green tea in the afternoon.');
    expect(hits[0]?.score).toBeGreaterThan(hits[1]?.score ?? 0);
    // "the" and "user" occur in other items too, but a rare word outweighs common ones
    const deploy = await memory.recall().keyword('tuesday deploys').limit(1).fetch();
    expect(deploy.map((i) => i.text())).toEqual(['Deploys happen on Tuesdays after the standup.']);
    expect(await memory.search('kangaroo')).toEqual([]);
  });

  it('folds case, accents, punctuation and compatibility forms; splits ideographs', async () => {
    expect(tokenize('Café, CAFE\u0301 naïve—Résumé! ﬁle x_y 42')).toEqual(['cafe', 'cafe', 'naive', 'resume', 'file', 'x', 'y', '42']);
    expect(tokenize('東京タワーに行く')).toEqual(['東', '京', 'タ', 'ワ', 'ー', 'に', '行', 'く']);
    expect(tokenize('  ?!… ')).toEqual([]);
    expect(tokenize('a'.repeat(500))).toEqual(['a'.repeat(64)]);
    const { laser } = await setup();
    const memory = sessions(laser).create('unicode').memory();
    await memory.remember('Lives in Zürich, near the café');
    await memory.remember('東京タワーに行った');
    await memory.remember('Lives in Berlin');
    expect((await memory.search('ZURICH')).map((i) => i.text())).toEqual(['Lives in Zürich, near the café']);
    expect((await memory.search('cafe\u0301')).map((i) => i.text())).toEqual(['Lives in Zürich, near the café']);
    expect((await memory.search('東京')).map((i) => i.text())).toEqual(['東京タワーに行った']);
  });

  it('improve raises an item above a newer equal match, negative feedback lowers it, forget removes it', async () => {
    const { laser } = await setup();
    const memory = sessions(laser).create('feedback').memory();
    const older = await memory.remember('tea with milk');
    const newer = await memory.remember('tea with lemon');
    // equal BM25: recency breaks the tie towards the newer item
    expect((await memory.search('tea')).map((i) => i.id)).toEqual([newer, older]);
    await memory.improve(older, 2);
    const boosted = await memory.search('tea');
    expect(boosted.map((i) => [i.id, i.weight])).toEqual([
      [older, 2],
      [newer, 0],
    ]);
    await memory.improve(older, -6);
    expect((await memory.search('tea')).map((i) => i.id)).toEqual([newer, older]);
    await memory.forget(newer);
    expect((await memory.search('tea')).map((i) => i.id)).toEqual([older]);
    expect(await memory.search('lemon')).toEqual([]);
  });

  it('a named slot is searchable by its latest value only', async () => {
    const { laser } = await setup();
    const memory = sessions(laser).create('slot-search').memory();
    await memory.remember('favourite colour is red', { key: 'colour' });
    expect((await memory.search('red')).map((i) => i.id)).toEqual(['agent.session/colour']);
    await memory.remember('favourite colour is blue', { key: 'colour' });
    expect(await memory.search('red')).toEqual([]);
    expect((await memory.search('blue')).map((i) => i.text())).toEqual(['favourite colour is blue']);
  });

  it('namespaces and conversations never see each other', async () => {
    const { laser } = await setup();
    const factory = sessions(laser);
    const mine = factory.create('ns-a').memory();
    await mine.remember('secret plan alpha');
    await mine.memory('private.ns').remember('secret plan beta');
    await factory.create('ns-b').memory().remember('secret plan gamma');
    expect((await mine.search('secret plan')).map((i) => i.text())).toEqual(['secret plan alpha']);
    expect((await mine.memory('private.ns').search('secret')).map((i) => i.text())).toEqual(['secret plan beta']);
    expect((await factory.create('ns-b').memory().search('plan')).map((i) => i.text())).toEqual(['secret plan gamma']);
  });

  it('block cuts the ranked list with the token estimate; limit cuts it by count', async () => {
    const { laser } = await setup();
    const memory = sessions(laser).create('block').memory();
    await memory.remember('the kettle is in the kitchen'); // 28 bytes: 7 tokens
    await memory.remember('unrelated');
    await memory.remember('kettle descaling is due on friday, kettle brand acme'); // 52 bytes: 13 tokens
    expect(await memory.recall().keyword('kettle').block(13)).toBe(
      'kettle descaling is due on friday, kettle brand acme\n\n[... 1 more recalled item(s) omitted ...]',
    );
    expect(await memory.recall().keyword('kettle').tokenBudget(20).block()).toBe('kettle descaling is due on friday, kettle brand acme\n\nthe kettle is in the kitchen');
    expect((await memory.recall().keyword('kettle').limit(1).fetch()).length).toBe(1);
  });
});

describe('incremental folded index', () => {
  it('a repeated recall reads only the records appended since the last one', async () => {
    const { transport, recordsRead } = countingReads(new MemoryLog());
    const laser = AgdxClient.from(transport, { stream: 'demo' });
    await laser.bootstrap(2);
    const session = sessions(laser).create('incremental');
    const memory = session.memory();
    for (let i = 0; i < 30; i++) await memory.remember(`note ${i}`);
    await memory.recall().fetch();
    const first = recordsRead();
    expect(first).toBeGreaterThanOrEqual(30);
    expect((await memory.search('note')).length).toBe(30);
    expect(recordsRead()).toBe(first);
    await memory.remember('one more note');
    // a new handle on the same session shares the index
    expect((await session.memory().recall().limit(1).fetch())[0]?.text()).toBe('one more note');
    expect(recordsRead()).toBe(first + 1);
  });

  it('a restart (new factory, new client) folds the same memory from the log', async () => {
    const log = new MemoryLog();
    const first = AgdxClient.from(log, { stream: 'demo' });
    await first.bootstrap(2);
    const memory = sessions(first).create('restart').memory();
    const tea = await memory.remember('drinks tea');
    await memory.remember('drinks coffee');
    await memory.improve(tea, 1);
    await memory.search('tea');
    const restarted = sessions(AgdxClient.from(log, { stream: 'demo' })).create('restart').memory();
    expect((await restarted.search('drinks')).map((i) => [i.text(), i.weight])).toEqual([
      ['drinks tea', 1],
      ['drinks coffee', 0],
    ]);
  });

  it('recent recall stays correct after most items are forgotten (the newest-first list is compacted)', async () => {
    const { log, laser } = await setup({ partitions: 1 });
    const session = sessions(laser).create('compaction');
    const memory = session.memory();
    // written in two batches, as remember and forget would write them one by one
    const ids = Array.from({ length: 1500 }, (_, i) => `item-${String(i).padStart(4, '0')}`);
    await appendMemory(log, session.conversation, ids.map((id, i) => ({ kind: 'item', id, itemKind: 'fact', body: new TextEncoder().encode(`entry ${i}`) })));
    expect((await memory.recall().limit(2).fetch()).map((i) => i.text())).toEqual(['entry 1499', 'entry 1498']);
    await memory.improve(ids[3]!, 1);
    await appendMemory(log, session.conversation, ids.slice(0, 1490).map((target) => ({ kind: 'forget', target })));
    await memory.remember('entry after');
    const recalled = (await memory.recall().limit(20).fetch()).map((i) => i.text());
    expect(recalled).toEqual(['entry after', ...Array.from({ length: 10 }, (_, i) => `entry ${1499 - i}`)]);
  });

  it('concurrent recalls see one consistent fold', async () => {
    const { laser } = await setup();
    const memory = sessions(laser).create('concurrent').memory();
    for (let i = 0; i < 10; i++) await memory.remember(`item ${i}`);
    const results = await Promise.all([memory.recall().fetch(), memory.search('item'), memory.recall().limit(3).fetch()]);
    expect(results.map((r) => r.length)).toEqual([10, 10, 3]);
  });

  it('starts over when the memory topic is recreated', async () => {
    const log = new MemoryLog();
    const laser = AgdxClient.from(log, { stream: 'demo' });
    await laser.bootstrap(1);
    const memory = sessions(laser).create('recreated').memory();
    await memory.remember('before one');
    await memory.remember('before two');
    expect((await memory.recall().fetch()).length).toBe(2);
    await log.deleteTopic({ stream: 'demo', topic: 'agent.memory' });
    await log.ensureTopic({ stream: 'demo', topic: 'agent.memory' }, { partitions: 1 });
    await memory.remember('after');
    expect((await memory.recall().fetch()).map((i) => i.text())).toEqual(['after']);
  });
});

describe('semantic and hybrid recall with the user embedder', () => {
  it('ranks by cosine similarity of the embedder vectors, stored beside each item on the log', async () => {
    const { log, laser } = await setup({ partitions: 1 });
    const embedder = conceptEmbedder();
    const memory = sessions(laser).create('semantic').memory().withEmbedder(embedder);
    expect(memory.embedder).toBe(embedder);
    await memory.remember('enjoys an espresso after lunch');
    await memory.remember('works the late shift on weekends');
    await memory.remember('speaks fluent spanish');
    await memory.remember('has a puppy called Rex');
    // no item contains the word "beverage": keyword finds nothing, semantic finds the coffee item
    expect(await memory.search('favourite beverage')).toEqual([]);
    const hits = await memory.recall().semantic('favourite beverage').fetch();
    expect(hits.map((i) => i.text())[0]).toBe('enjoys an espresso after lunch');
    expect(hits).toHaveLength(4);
    expect((await memory.recall().strategy('semantic', 'which language?').limit(1).fetch())[0]?.text()).toBe('speaks fluent spanish');
    // the vector is in the item record
    const records = await log.read({ stream: 'demo', topic: 'agent.memory', partition: 0, offset: 0n, maxCount: 10 });
    const first = decodeMemoryRecord(records[0]!.payload);
    expect(first.kind === 'item' && first.embedding?.length).toBe(CONCEPTS.length * 4);
    // after a restart only the query is embedded: the items' vectors come from the log
    const again = conceptEmbedder();
    const restarted = sessions(AgdxClient.from(log, { stream: 'demo' })).create('semantic').memory().withEmbedder(again);
    expect((await restarted.recall().semantic('a cup of tea').limit(1).fetch())[0]?.text()).toBe('enjoys an espresso after lunch');
    expect(again.texts).toBe(1);
  });

  it('without stored vectors, items are embedded once at recall time and kept in process', async () => {
    const { laser } = await setup();
    const base = sessions(laser).create('recompute').memory();
    await base.remember('drinks latte');
    await base.remember('adopted a cat');
    const embedder = conceptEmbedder();
    const memory = base.withEmbedder(embedder, { storeVectors: false });
    await memory.remember('night owl');
    expect(embedder.texts).toBe(0);
    expect((await memory.recall().semantic('pets').limit(1).fetch())[0]?.text()).toBe('adopted a cat');
    expect(embedder.texts).toBe(4);
    expect((await memory.recall().semantic('evening').limit(1).fetch())[0]?.text()).toBe('night owl');
    expect(embedder.texts).toBe(5);
  });

  it('hybrid fuses the keyword and semantic rankings by reciprocal rank', async () => {
    const { laser } = await setup();
    const memory = sessions(laser).create('hybrid').memory().withEmbedder(conceptEmbedder());
    await memory.remember('green tea with honey');
    await memory.remember('espresso every morning');
    await memory.remember('green paint for the kitchen wall');
    await memory.remember('walks the dog');
    // keyword alone: the two green items; semantic alone: the two drinks
    expect((await memory.search('green drink')).map((i) => i.text()).sort()).toEqual(['green paint for the kitchen wall', 'green tea with honey']);
    const semantic = await memory.recall().semantic('green drink').limit(2).fetch();
    expect(semantic.map((i) => i.text()).sort()).toEqual(['espresso every morning', 'green tea with honey']);
    // fused: the item high in both lists leads, and each list's other item follows
    const hybrid = await memory.recall().hybrid('green drink').fetch();
    expect(hybrid[0]?.text()).toBe('green tea with honey');
    expect(hybrid.slice(1, 3).map((i) => i.text()).sort()).toEqual(['espresso every morning', 'green paint for the kitchen wall']);
    expect(hybrid[0]!.score).toBeGreaterThan(1 / 61);
    expect(hybrid[0]!.score).toBeLessThanOrEqual(2 / 61);
  });

  it('hybrid over many items equals fusing the full keyword and semantic rankings', async () => {
    const { log, laser } = await setup({ partitions: 1 });
    const session = sessions(laser).create('hybrid-depth');
    const words = ['tea', 'coffee', 'night', 'shift', 'french', 'dog', 'cat', 'report', 'ticket', 'window'];
    const texts = Array.from({ length: 400 }, (_, i) => `${words[i % 10]} ${words[(i * 7) % 10]} ${words[(i * 3) % 10]} note${i % 37}`);
    await appendMemory(log, session.conversation, texts.map((t, i) => ({ kind: 'item', id: `h-${String(i).padStart(3, '0')}`, itemKind: 'fact', body: new TextEncoder().encode(t) })));
    const memory = session.memory().withEmbedder(conceptEmbedder());
    for (const [query, limit] of [['tea night', 5], ['dog report ticket', 20], ['window', 3]] as const) {
      const keyword = (await memory.recall().keyword(query).limit(1000).fetch()).map((i) => i.id);
      const semantic = (await memory.recall().semantic(query).limit(1000).fetch()).map((i) => i.id);
      const fused = [...fuseReciprocalRank([keyword, semantic])];
      const order = new Map((await memory.recall().limit(1000).fetch()).map((i, rank) => [i.id, rank]));
      fused.sort((a, b) => b[1] - a[1] || (order.get(a[0]) ?? 0) - (order.get(b[0]) ?? 0));
      const hybrid = await memory.recall().hybrid(query).limit(limit).fetch();
      expect(hybrid.map((i) => i.id)).toEqual(fused.slice(0, limit).map(([id]) => id));
    }
  });

  it('semantic recall respects forget and improve', async () => {
    const { laser } = await setup();
    const memory = sessions(laser).create('semantic-fb').memory().withEmbedder(conceptEmbedder());
    const cat = await memory.remember('has a cat');
    const dog = await memory.remember('has a dog');
    expect((await memory.recall().semantic('pet').fetch())[0]?.id).toBe(dog);
    await memory.improve(cat, 4);
    expect((await memory.recall().semantic('pet').fetch())[0]?.id).toBe(cat);
    await memory.forget(cat);
    expect((await memory.recall().semantic('pet').fetch()).map((i) => i.id)).toEqual([dog]);
  });
});

describe('hostile input', () => {
  it('empty or wordless queries and bad strategies are InvalidErrors; semantic without an embedder is unsupported', async () => {
    const { laser } = await setup();
    const memory = sessions(laser).create('hostile-q').memory();
    await memory.remember('');
    await memory.remember('something');
    expect((await memory.recall().fetch()).length).toBe(2);
    await expect(memory.search('')).rejects.toBeInstanceOf(InvalidError);
    await expect(memory.search('   ')).rejects.toBeInstanceOf(InvalidError);
    await expect(memory.search('?!…')).rejects.toBeInstanceOf(InvalidError);
    expect(() => memory.recall().keyword(7 as never)).toThrow(InvalidError);
    expect(() => memory.recall().keyword('x'.repeat(70_000))).toThrow(InvalidError);
    expect(() => memory.recall().strategy('magic' as never, 'x')).toThrow(InvalidError);
    expect(() => memory.recall().semantic('tea')).toThrow(UnsupportedError);
    expect(() => memory.recall().hybrid('tea')).toThrow(UnsupportedError);
    expect(() => memory.withEmbedder({ dimensions: 0, embed: () => [] })).toThrow(InvalidError);
    expect(() => memory.withEmbedder({ dimensions: 3 } as never)).toThrow(InvalidError);
    await expect(memory.remember('x', { key: '' })).rejects.toBeInstanceOf(InvalidError);
  });

  it('a huge item is stored, indexed by its first words, and found', async () => {
    const { laser } = await setup();
    const memory = sessions(laser).create('huge').memory();
    const huge = `needle ${'hay '.repeat(MAX_INDEXED_TOKENS + 10_000)}trailing`;
    const id = await memory.remember(huge);
    await memory.remember('a small needle note');
    const hits = await memory.search('needle');
    expect(hits.map((i) => i.id)).toContain(id);
    // the words past the index cap are not indexed
    expect(await memory.search('trailing')).toEqual([]);
    expect(await memory.recall().keyword('needle').block(10)).toMatch(/^(a small needle note|needle hay)/);
  });

  it('an embedder that throws, miscounts or returns the wrong dimension is an EmbedderError and writes nothing', async () => {
    const { laser } = await setup();
    const plain = sessions(laser).create('bad-embedder').memory();
    await plain.remember('already here');
    const cases: Embedder[] = [
      {
        dimensions: 3,
        embed: () => {
          throw new Error('model offline');
        },
      },
      { dimensions: 3, embed: async () => Promise.reject(new Error('rate limited')) },
      { dimensions: 3, embed: (texts) => texts.map(() => [1, 2]) },
      { dimensions: 3, embed: () => [] },
      { dimensions: 3, embed: (texts) => texts.map(() => [1, NaN, 2]) },
      { dimensions: 3, embed: (texts) => texts.map(() => [1, 1e300, 2]) },
      { dimensions: 3, embed: () => 'nope' as never },
      { dimensions: 3, embed: (texts) => texts.map(() => ['1', '2', '3'] as never) },
    ];
    for (const embedder of cases) {
      const memory = plain.withEmbedder(embedder);
      const write = memory.remember('new item').then(
        () => undefined,
        (e: unknown) => e,
      );
      const error = await write;
      expect(error).toBeInstanceOf(EmbedderError);
      expect(AgdxError.is(error, 'handler')).toBe(true);
      await expect(memory.recall().semantic('anything').fetch()).rejects.toBeInstanceOf(EmbedderError);
    }
    const thrown = await plain
      .withEmbedder(cases[0]!)
      .remember('x')
      .catch((e: unknown) => e);
    expect((thrown as EmbedderError).cause).toBeInstanceOf(Error);
    expect((await plain.recall().fetch()).map((i) => i.text())).toEqual(['already here']);
  });

  it('an undecodable record in the namespace is reported and skipped; the others are recalled', async () => {
    const { log, laser } = await setup({ partitions: 1 });
    const skipped: CodecError[] = [];
    const factory = sessions(laser, new SessionConfig(), { onError: (e) => skipped.push(e) });
    const session = factory.create('bad-record');
    const memory = session.memory();
    await memory.remember('good tea');
    const headers = new Map([...encodeProvenanceHeaders({ conversation: session.conversation }), [MEMORY_NAMESPACE_HEADER, stringHeader('agent.session')]]);
    await log.append({ stream: 'demo', topic: 'agent.memory', records: [{ headers, payload: new Uint8Array([0xff, 0x00]) }], routing: { partition: 0 } });
    await memory.remember('more tea');
    expect((await memory.search('tea')).map((i) => i.text())).toEqual(['more tea', 'good tea']);
    expect(skipped).toHaveLength(1);
    expect(skipped[0]?.context).toMatchObject({ topic: 'agent.memory', offset: 1n });
  });
});

describe('consolidate with a summarizer', () => {
  it('writes one summary of the pruned items before forgetting them', async () => {
    const { log, laser } = await setup({ partitions: 1 });
    const memory = sessions(laser).create('summarize').memory();
    for (const t of ['one', 'two', 'three', 'four', 'five']) await memory.remember(t);
    let seen: string[] = [];
    const report = await memory.consolidate(2, {
      summarize: (items) => {
        seen = items.map((i) => i.text());
        return `summary of ${seen.join(', ')}`;
      },
    });
    expect(seen).toEqual(['one', 'two', 'three']);
    expect(report).toMatchObject({ scanned: 5, kept: 2, forgotten: 3 });
    const recalled = await memory.recall().fetch();
    expect(recalled.map((i) => [i.text(), i.kind])).toEqual([
      ['summary of one, two, three', 'summary'],
      ['five', 'fact'],
      ['four', 'fact'],
    ]);
    expect(recalled[0]?.id).toBe(report.summary);
    // on the log, the summary precedes every tombstone
    const records = await log.read({ stream: 'demo', topic: 'agent.memory', partition: 0, offset: 0n, maxCount: 100 });
    const kinds = records.map((r) => decodeMemoryRecord(r.payload)).map((r) => (r.kind === 'item' ? r.itemKind : r.kind));
    expect(kinds.indexOf('summary')).toBeLessThan(kinds.indexOf('forget'));
    expect((await memory.search('summary')).map((i) => i.id)).toEqual([report.summary]);
  });

  it('a failing summarizer prunes nothing; a write refused after the summary loses nothing', async () => {
    const { laser } = await setup();
    const memory = sessions(laser).create('summarize-fail').memory();
    for (const t of ['a1', 'a2', 'a3']) await memory.remember(t);
    await expect(
      memory.consolidate(1, {
        summarize: () => {
          throw new Error('model down');
        },
      }),
    ).rejects.toBeInstanceOf(SummarizerError);
    await expect(memory.consolidate(1, { summarize: () => 42 as never })).rejects.toBeInstanceOf(SummarizerError);
    expect((await memory.recall().fetch()).length).toBe(3);

    // a governor refusing tombstones stands in for a process that dies between the two steps
    const governor: ActionGovernor = {
      check: (action) => {
        const record = decodeMemoryRecord((action as { payload: Uint8Array }).payload);
        return record.kind === 'forget' ? { kind: 'deny', reason: 'no pruning today' } : { kind: 'allow' };
      },
    };
    const governed = sessions(laser, new SessionConfig(), { governor }).create('summarize-fail').memory();
    await expect(governed.consolidate(1, { summarize: (items) => items.map((i) => i.text()).join('+') })).rejects.toBeInstanceOf(PolicyBlockedError);
    expect((await memory.recall().fetch()).map((i) => i.text())).toEqual(['a1+a2', 'a3', 'a2', 'a1']);
  });
});
