/**
 * The stream's layout declaration (`agdx.layout`, an SDK extension): bootstrap writes it once,
 * readers whose layout it contradicts fail with LayoutMismatchError naming both layouts, readers
 * whose layout agrees (or logs without one) read as before, and a hostile declaration is ignored.
 */
import {
  AgdxClient,
  Agent,
  AgentTopic,
  checkLayoutDeclaration,
  declareLayout,
  decodeLayoutDeclaration,
  encodeLayoutDeclaration,
  LAYOUT_DECLARATION_TOPIC,
  LayoutMismatchError,
  locatePartitions,
  MAX_LAYOUT_DECLARATION_BYTES,
  readLayoutDeclaration,
  type StreamLayout,
} from '@agdx/agents';
import { MemoryLog } from '@agdx/transport';
import { ConversationId } from '@agdx/wire';
import { describe, expect, it } from 'vitest';

const STREAM = 'layout-declared';
const conversation = ConversationId.new().toString();
const shared: StreamLayout = { kind: 'shared' };
const byTopic: StreamLayout = { kind: 'perAgentTopic', topics: new Map([['model', 'agent.model'], ['tools', 'agent.tools']]) };
const byPartition: StreamLayout = { kind: 'perAgentPartition', partitions: new Map([['model', 1], ['tools', 2]]) };
const text = new TextEncoder();

async function bootstrapped(layout: StreamLayout): Promise<MemoryLog> {
  const log = new MemoryLog();
  await AgdxClient.from(log, { stream: STREAM, layout }).bootstrap(4);
  return log;
}

async function failure(run: Promise<unknown>): Promise<LayoutMismatchError> {
  const error = await run.then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(LayoutMismatchError);
  return error as LayoutMismatchError;
}

const locate = (log: MemoryLog, layout: StreamLayout): Promise<unknown> => locatePartitions(log, STREAM, layout, { topic: AgentTopic.Sessions, conversation });

describe('the layout declaration record', () => {
  it('has the same bytes for the same layout, whatever the declaration order, and decodes back', () => {
    const reordered: StreamLayout = { kind: 'perAgentTopic', topics: new Map([['tools', 'agent.tools'], ['model', 'agent.model']]) };
    expect(encodeLayoutDeclaration(reordered)).toEqual(encodeLayoutDeclaration(byTopic));
    for (const layout of [shared, byTopic, byPartition, { kind: 'singlePartition' } as const]) {
      expect(decodeLayoutDeclaration(encodeLayoutDeclaration(layout))).toEqual(layout);
    }
    // an agent named like an object key is only ever a Map key
    const proto: StreamLayout = { kind: 'perAgentTopic', topics: new Map([['__proto__', 'agent.proto']]) };
    expect(decodeLayoutDeclaration(encodeLayoutDeclaration(proto))).toEqual(proto);
  });

  it('ignores anything but a well-formed declaration of its version', () => {
    const json = (value: unknown): Uint8Array => text.encode(JSON.stringify(value));
    const hostile: Uint8Array[] = [
      new Uint8Array(0),
      new Uint8Array([0xff, 0xfe, 0x7b]),
      text.encode('{"v":1,"kind":'),
      json([1, 'shared']),
      json(null),
      json({ v: 2, kind: 'shared' }),
      json({ v: 1, kind: 'everything' }),
      json({ v: 1, kind: 'perAgentTopic' }),
      json({ v: 1, kind: 'perAgentTopic', topics: [['model', 'agent.model'], ['model', 'agent.other']] }),
      json({ v: 1, kind: 'perAgentTopic', topics: [['model', AgentTopic.Sessions]] }),
      json({ v: 1, kind: 'perAgentTopic', topics: [['model', 'x'.repeat(256)]] }),
      json({ v: 1, kind: 'perAgentTopic', topics: [['', 'agent.model']] }),
      json({ v: 1, kind: 'perAgentTopic', topics: [['model']] }),
      json({ v: 1, kind: 'perAgentPartition', partitions: [['model', -1]] }),
      json({ v: 1, kind: 'perAgentPartition', partitions: [['model', 1.5]] }),
      json({ v: 1, kind: 'perAgentPartition', partitions: [['model', '1']] }),
      json({ v: 1, kind: 'shared', pad: 'x'.repeat(MAX_LAYOUT_DECLARATION_BYTES) }),
      // the offset a writer expected its record at: a decimal string of a 64-bit value, or absent
      json({ v: 1, kind: 'shared', at: 0 }),
      json({ v: 1, kind: 'shared', at: '01' }),
      json({ v: 1, kind: 'shared', at: '-1' }),
      json({ v: 1, kind: 'shared', at: '18446744073709551616' }),
      json({ v: 1, kind: 'shared', at: null }),
    ];
    for (const payload of hostile) expect(decodeLayoutDeclaration(payload)).toBeUndefined();
  });
});

describe('bootstrap declares the layout', () => {
  it('once: a repeated bootstrap writes nothing, and replacing it with another layout must be asked for', async () => {
    const log = new MemoryLog();
    const laser = AgdxClient.from(log, { stream: STREAM, layout: byTopic });
    const first = await laser.bootstrap(2);
    expect(first.topics.at(-1)).toBe(LAYOUT_DECLARATION_TOPIC);
    await laser.bootstrap(2);
    expect((await log.describeTopic({ stream: STREAM, topic: LAYOUT_DECLARATION_TOPIC })).partitions).toEqual([{ partition: 0, nextOffset: 1n }]);
    expect(await readLayoutDeclaration(log, STREAM)).toEqual({ layout: byTopic, offset: 0n });
    const refusal = await failure(declareLayout(log, STREAM, shared));
    expect(refusal.context).toMatchObject({ stream: STREAM, declaredLayout: 'perAgentTopic', requestedLayout: 'shared', declarationOffset: 0n });
    // the signal-only form of the fourth argument refuses just the same
    await failure(declareLayout(log, STREAM, shared, new AbortController().signal));
    expect(await readLayoutDeclaration(log, STREAM)).toEqual({ layout: byTopic, offset: 0n });
    expect(await declareLayout(log, STREAM, shared, { replaceLayout: true })).toBe(true);
    expect(await readLayoutDeclaration(log, STREAM)).toEqual({ layout: shared, offset: 1n });
  });

  it('a stream without a declaration reads as before', async () => {
    const log = new MemoryLog();
    await log.ensureStream(STREAM);
    await log.ensureTopic({ stream: STREAM, topic: AgentTopic.Sessions }, { partitions: 4 });
    expect(await readLayoutDeclaration(log, STREAM)).toBeUndefined();
    await expect(locate(log, shared)).resolves.toHaveLength(1);
    // and so does a stream that does not exist: the read reports that itself
    expect(await readLayoutDeclaration(log, 'nowhere')).toBeUndefined();
  });
});

describe('a second bootstrap with another layout', () => {
  it('is refused with LayoutMismatchError naming both layouts, before it creates anything', async () => {
    const log = await bootstrapped(shared);
    const error = await failure(AgdxClient.from(log, { stream: STREAM, layout: byTopic }).bootstrap(4));
    expect(error.message).toContain('already declares the shared layout; declaring the perAgentTopic (model -> agent.model, tools -> agent.tools) layout instead');
    expect(error.message).toContain('replaceLayout: true');
    expect(error.context).toMatchObject({ stream: STREAM, declaredLayout: 'shared', requestedLayout: 'perAgentTopic', declarationOffset: 0n });
    // the refused layout's own topics were not created, and the first deployment still reads
    await expect(log.describeTopic({ stream: STREAM, topic: 'agent.model' })).rejects.toMatchObject({ kind: 'not-found' });
    expect(await readLayoutDeclaration(log, STREAM)).toEqual({ layout: shared, offset: 0n });
    await expect(locate(log, shared)).resolves.toHaveLength(1);
    // a per-agent layout naming one more agent is another layout too
    const partitioned = await bootstrapped(byPartition);
    const more: StreamLayout = { kind: 'perAgentPartition', partitions: new Map([...byPartition.partitions, ['ui', 3]]) };
    expect((await failure(AgdxClient.from(partitioned, { stream: STREAM, layout: more }).bootstrap(4))).context).toMatchObject({ declaredLayout: 'perAgentPartition' });
  });

  it('replaces the declaration when told to (a deliberate migration): the old layout\'s readers then fail', async () => {
    const log = await bootstrapped(shared);
    const result = await AgdxClient.from(log, { stream: STREAM, layout: byTopic }).bootstrap(4, { replaceLayout: true });
    expect(result.topics).toContain('agent.model');
    expect(await readLayoutDeclaration(log, STREAM)).toEqual({ layout: byTopic, offset: 1n });
    await failure(locate(log, shared));
    // the same layout again (declaration order aside) is idempotent, with or without the flag
    const reordered: StreamLayout = { kind: 'perAgentTopic', topics: new Map([['tools', 'agent.tools'], ['model', 'agent.model']]) };
    await AgdxClient.from(log, { stream: STREAM, layout: reordered }).bootstrap(4);
    await AgdxClient.from(log, { stream: STREAM, layout: byTopic }).bootstrap(4, { replaceLayout: true });
    expect((await log.describeTopic({ stream: STREAM, topic: LAYOUT_DECLARATION_TOPIC })).partitions[0]?.nextOffset).toBe(2n);
  });

  it('declares over a last record that is corrupt or of an unknown version without being told to', async () => {
    const log = await bootstrapped(byTopic);
    for (const payload of [text.encode('not a layout'), text.encode(JSON.stringify({ v: 2, kind: 'shared' }))]) {
      await log.append({ stream: STREAM, topic: LAYOUT_DECLARATION_TOPIC, records: [{ payload }], routing: { partition: 0 } });
      expect(await declareLayout(log, STREAM, shared)).toBe(true);
      expect((await readLayoutDeclaration(log, STREAM))?.layout).toEqual(shared);
      await declareLayout(log, STREAM, byTopic, { replaceLayout: true });
    }
  });
});

describe('a reader whose layout the declaration contradicts', () => {
  it('a shared reader of a topic-per-agent log gets LayoutMismatchError naming both layouts', async () => {
    const log = await bootstrapped(byTopic);
    const error = await failure(locate(log, shared));
    expect(error.kind).toBe('layout-mismatch');
    expect(error.message).toContain('declares the perAgentTopic (model -> agent.model, tools -> agent.tools) layout, but this reader uses the shared layout');
    expect(error.context).toMatchObject({ stream: STREAM, declaredLayout: 'perAgentTopic', readerLayout: 'shared', declarationOffset: 0n });
  });

  it('a topic-per-agent reader of a shared log (whose topics happen to exist) gets it too', async () => {
    const log = await bootstrapped(shared);
    for (const topic of ['agent.model', 'agent.tools']) await log.ensureTopic({ stream: STREAM, topic }, { partitions: 4 });
    const error = await failure(locate(log, byTopic));
    expect(error.context).toMatchObject({ declaredLayout: 'shared', readerLayout: 'perAgentTopic' });
  });

  it('a per-agent reader that lacks or moves a declared agent gets it, naming the agent', async () => {
    const log = await bootstrapped(byTopic);
    const lacking: StreamLayout = { kind: 'perAgentTopic', topics: new Map([['model', 'agent.model']]) };
    expect((await failure(locate(log, lacking))).context).toMatchObject({ agent: 'tools' });
    const moved: StreamLayout = { kind: 'perAgentTopic', topics: new Map([['model', 'agent.tools'], ['tools', 'agent.tools']]) };
    expect((await failure(locate(log, moved))).context).toMatchObject({ agent: 'model' });
    const partitioned = await bootstrapped(byPartition);
    const elsewhere: StreamLayout = { kind: 'perAgentPartition', partitions: new Map([['model', 3], ['tools', 2]]) };
    expect((await failure(locate(partitioned, elsewhere))).message).toMatch(/`model` on 1, but this reader's perAgentPartition layout puts it on 3/);
  });

  it('raises no false alarm: the same layout, more agents, or shared against single partition', async () => {
    const log = await bootstrapped(byTopic);
    await expect(locate(log, byTopic)).resolves.toHaveLength(3);
    await log.ensureTopic({ stream: STREAM, topic: 'agent.ui' }, { partitions: 4 });
    const more: StreamLayout = { kind: 'perAgentTopic', topics: new Map([...byTopic.topics, ['ui', 'agent.ui']]) };
    await expect(locate(log, more)).resolves.toHaveLength(4);
    await expect(locate(await bootstrapped({ kind: 'singlePartition' }), shared)).resolves.toEqual([{ stream: STREAM, topic: AgentTopic.Sessions, partition: 0 }]);
    await expect(locate(await bootstrapped(shared), { kind: 'singlePartition' })).resolves.toHaveLength(1);
  });

  it('sees a new declaration at once, and ignores a corrupt last one (a later bootstrap repairs it)', async () => {
    const log = await bootstrapped(shared);
    await expect(locate(log, shared)).resolves.toHaveLength(1);
    await declareLayout(log, STREAM, byPartition, { replaceLayout: true });
    await failure(locate(log, shared));
    await log.append({ stream: STREAM, topic: LAYOUT_DECLARATION_TOPIC, records: [{ payload: text.encode('not a layout') }], routing: { partition: 0 } });
    await expect(checkLayoutDeclaration(log, STREAM, shared)).resolves.toBeUndefined();
    await AgdxClient.from(log, { stream: STREAM, layout: byPartition }).bootstrap(4);
    expect((await readLayoutDeclaration(log, STREAM))?.layout).toEqual(byPartition);
    await failure(checkLayoutDeclaration(log, STREAM, shared));
  });
});

describe('the declaration topic changing under a reader', () => {
  it('a declaration topic deleted and recreated between reads is read again, empty or not', async () => {
    const log = await bootstrapped(byTopic);
    await failure(checkLayoutDeclaration(log, STREAM, shared));
    await log.deleteTopic({ stream: STREAM, topic: LAYOUT_DECLARATION_TOPIC });
    await expect(checkLayoutDeclaration(log, STREAM, shared)).resolves.toBeUndefined();
    // recreated empty: no declaration; then declared again with the same bytes at offset 0
    await log.ensureTopic({ stream: STREAM, topic: LAYOUT_DECLARATION_TOPIC }, { partitions: 1 });
    await expect(checkLayoutDeclaration(log, STREAM, shared)).resolves.toBeUndefined();
    await declareLayout(log, STREAM, byTopic);
    await failure(checkLayoutDeclaration(log, STREAM, shared));
    await log.deleteTopic({ stream: STREAM, topic: LAYOUT_DECLARATION_TOPIC });
    await declareLayout(log, STREAM, shared);
    await expect(checkLayoutDeclaration(log, STREAM, shared)).resolves.toBeUndefined();
  });
});

describe('an agent starting under another layout than the stream declares', () => {
  it('refuses to consume where its work never lands; an agent the declaration does not name starts', async () => {
    const log = await bootstrapped(byTopic);
    const start = async (id: string): Promise<unknown> => {
      const agent = Agent.builder().id(id).listenOn(AgentTopic.Sessions).handler({ handle: () => undefined }).build().spawn(AgdxClient.from(log.connect(), { stream: STREAM }));
      try {
        return await agent.ready().then(() => undefined, (e: unknown) => e);
      } finally {
        await agent.shutdown().catch(() => undefined);
      }
    };
    const error = await start('model');
    expect(error).toBeInstanceOf(LayoutMismatchError);
    expect((error as LayoutMismatchError).message).toMatch(/puts `model`'s work on agent\.model, but this shared layout consumes agent\.sessions/);
    expect((error as LayoutMismatchError).context).toMatchObject({ agent: 'model', declaredLayout: 'perAgentTopic', readerLayout: 'shared' });
    expect(await start('auditor')).toBeUndefined();
  });
});
