/** Root client and send builders: bootstrap, capabilities, kind rules, governor, claim check, layouts. */
import { describe, expect, it } from 'vitest';
import {
  AgdxClient,
  AgentTopic,
  NoStreamError,
  PolicyBlockedError,
  readAgentMessage,
  resolveAgentMessageBody,
  agentMessageResolveBody,
  type ActionGovernor,
  type GovernedAction,
} from '@agdx/agents';
import { KeyRegistry, SigningKey } from '@agdx/sign';
import {
  AgdxError,
  AgentEnvelope,
  AgentId,
  CONTENT_TYPE_REF,
  ConversationId,
  CorrelationId,
  decodeBodyRef,
  InMemoryBlobStore,
  IntegrityError,
  InvalidError,
  MintUlid,
  RecordId,
  readBridgeHops,
  type BlobStore,
} from '@agdx/wire';
import { MemoryLog } from '@agdx/transport';
import { readAll } from './support-client/client.js';
import { recordingTransport } from './support-client/recording-transport.js';

const enc = new TextEncoder();
const dec = (b: Uint8Array): string => new TextDecoder().decode(b);

describe('bootstrap and capabilities', () => {
  it('creates the well-known topics idempotently; heartbeats expire after an hour; control and registry wait for first use', async () => {
    const log = new MemoryLog();
    const laser = AgdxClient.from(log, { stream: 'demo' });
    const first = await laser.bootstrap(3);
    const second = await laser.bootstrap(3);
    expect(second).toEqual(first);
    expect(first.topics).toEqual([
      'agent.sessions',
      'agent.streams',
      'agent.heartbeats',
      'agent.memory',
      'agent.dlq',
      'agent.audit',
      'agent.workflow_journal',
      'agent.commands',
      'agent.responses',
      'agent.tool_calls',
      'agent.tool_results',
      'agent.llm_io',
      'agent.human_input',
      'agdx.layout',
    ]);
    // the layout declaration is one partition, written once however often bootstrap runs
    expect((await log.describeTopic({ stream: 'demo', topic: 'agdx.layout' })).partitions).toEqual([{ partition: 0, nextOffset: 1n }]);
    const hb = await log.describeTopic({ stream: 'demo', topic: AgentTopic.Heartbeats });
    expect(hb.messageExpiryMicros).toBe(3_600_000_000n);
    expect(hb.partitionCount).toBe(3);
    await expect(log.describeTopic({ stream: 'demo', topic: AgentTopic.Control })).rejects.toSatisfy((e) => AgdxError.is(e, 'not-found'));
    // First use creates agent.control with the bootstrap's partition count.
    const conv = ConversationId.new();
    await laser.agdx(AgentTopic.Control, 'operator', conv).command(MintUlid.mint(CorrelationId), enc.encode('pause')).withOperation('session_pause').send();
    expect((await log.describeTopic({ stream: 'demo', topic: AgentTopic.Control })).partitionCount).toBe(3);
    const [rec] = await readAll(log, 'demo', AgentTopic.Control);
    expect(readAgentMessage(rec!, { stream: 'demo', topic: AgentTopic.Control }).headers.get('agdx.to')?.value).toEqual(enc.encode('*'));
  });

  it('reports a plain log: every managed feature off, sessions never inferred', () => {
    const caps = AgdxClient.from(new MemoryLog(), { stream: 'demo' }).capabilities();
    expect(caps.managed).toBe(false);
    expect(caps.sessions).toBe(false);
    expect(caps.kv.available).toBe(false);
    expect(caps.query.available).toBe(false);
    expect(caps.backends).toEqual([]);
  });

  it('needs a default stream to send; withDefaultStream moves the client', async () => {
    const log = new MemoryLog();
    const bare = AgdxClient.from(log);
    expect(bare.defaultStream).toBeUndefined();
    expect(() => bare.agdx(AgentTopic.Sessions, 'a', ConversationId.new())).toThrow(NoStreamError);
    await expect(bare.bootstrap(1)).rejects.toBeInstanceOf(NoStreamError);
    const other = bare.withDefaultStream('other');
    expect(other.defaultStream).toBe('other');
    await other.bootstrap(1);
    expect(await log.describeTopic({ stream: 'other', topic: AgentTopic.Sessions })).toBeDefined();
  });
});

describe('send builders', () => {
  it('send() is single-use; every kind rule is checked before anything is published', async () => {
    const transport = recordingTransport();
    const laser = AgdxClient.from(transport, { stream: 'demo' });
    await laser.bootstrap(1);
    const send = laser.agdx(AgentTopic.Sessions, 'planner', ConversationId.new());
    const b = send.command(MintUlid.mint(CorrelationId), enc.encode('x'));
    const id = await b.send();
    expect(id).toBeInstanceOf(RecordId);
    await expect(b.send()).rejects.toThrow('an AGDX send can only be performed once');
    const n = transport.appends.length;
    await expect(send.command(MintUlid.mint(CorrelationId), enc.encode('x')).withTaskState('Working').send()).rejects.toThrow(InvalidError);
    await expect(send.status('task').withTaskState('Working').send()).rejects.toThrow(/correlation/);
    await expect(send.emit(enc.encode('x')).last().send()).rejects.toThrow(/last/);
    await expect(send.fail(MintUlid.mint(CorrelationId), { code: 1, retryable: false }).contentType('raw').send()).rejects.toThrow(/content type/);
    await expect(send.command(MintUlid.mint(CorrelationId), enc.encode('x')).withTarget(AgentId.parse('x'.repeat(256))).send()).rejects.toThrow(InvalidError);
    expect(transport.appends.length).toBe(n);
  });

  it('sendReceipt reports the log position; the status session operation carries its lifecycle body', async () => {
    const log = new MemoryLog();
    const laser = AgdxClient.from(log, { stream: 'demo' });
    await laser.bootstrap(2);
    const receipt = await laser.agdx(AgentTopic.Sessions, 'planner', ConversationId.new()).emit(enc.encode('hi')).withIdempotencyKey('k-1').sendReceipt();
    const records = await log.read({ stream: 'demo', topic: AgentTopic.Sessions, partition: receipt.position.partition, offset: receipt.position.offset });
    expect(readAgentMessage(records[0]!, { stream: 'demo', topic: AgentTopic.Sessions }).envelope?.record?.equals(receipt.record)).toBe(true);
    expect(receipt.position).toMatchObject({ stream: 'demo', topic: AgentTopic.Sessions });
  });

  it('signs with the signer and a context binding agdx.ct and agdx.av', async () => {
    const log = new MemoryLog();
    const laser = AgdxClient.from(log, { stream: 'demo' });
    await laser.bootstrap(1);
    const key = SigningKey.fromBytes(new Uint8Array(32).fill(9));
    const registry = new KeyRegistry();
    registry.enroll('planner', key);
    const receipt = await laser
      .agdx(AgentTopic.Sessions, 'planner', ConversationId.new())
      .command(MintUlid.mint(CorrelationId), enc.encode('{}'))
      .contentType('json')
      .signedBy(key)
      .sendReceipt();
    expect(receipt.envelope.signature?.context).toEqual({ contentType: 1, agentVersion: 1 });
    const [rec] = await readAll(log, 'demo', AgentTopic.Sessions);
    const m = readAgentMessage(rec!, { stream: 'demo', topic: AgentTopic.Sessions });
    expect((await registry.verifyAt(m.envelope!, rec!.timestampMicros, m.headers)).principal).toBe('planner');
  });

  it('stamps bridge hops and refuses a loop before publishing', async () => {
    const transport = recordingTransport();
    const laser = AgdxClient.from(transport, { stream: 'demo' });
    await laser.bootstrap(1);
    const send = laser.agdx(AgentTopic.Sessions, 'mcp-gateway', ConversationId.new());
    const r = await send.command(MintUlid.mint(CorrelationId), enc.encode('x')).enterBridge('mcp-gateway', ['a2a-gateway']).sendReceipt();
    expect(readBridgeHops(r.envelope.metadata as never)).toEqual(['a2a-gateway', 'mcp-gateway']);
    expect(() => send.command(MintUlid.mint(CorrelationId), enc.encode('x')).enterBridge('a2a', ['a2a'])).toThrow(/bridge loop/);
    expect(() => send.command(MintUlid.mint(CorrelationId), enc.encode('x')).withBridgeHops(['a', 'b', 'a'])).toThrow(/bridge loop/);
  });
});

describe('ActionGovernor', () => {
  it('is checked before each send: deny publishes nothing, rewrite replaces the body before signing', async () => {
    const seen: GovernedAction[] = [];
    const governor: ActionGovernor = {
      check: (action) => {
        seen.push(action);
        if (action.operation === 'rm -rf') return { kind: 'deny', reason: 'destructive operation' };
        if (action.kind === 'send') return { kind: 'rewrite', body: enc.encode(dec(action.payload).toUpperCase()) };
        if (action.operation === 'redact') return { kind: 'rewrite', body: enc.encode('[redacted]') };
        return { kind: 'allow' };
      },
    };
    const transport = recordingTransport();
    const laser = AgdxClient.from(transport, { stream: 'demo', governor });
    await laser.bootstrap(1);
    const send = laser.agdx(AgentTopic.Sessions, 'planner', ConversationId.new());
    const n = transport.appends.length;
    await expect(send.command(MintUlid.mint(CorrelationId), enc.encode('x')).withOperation('rm -rf').send()).rejects.toBeInstanceOf(PolicyBlockedError);
    expect(transport.appends.length).toBe(n);
    const redacted = await send.command(MintUlid.mint(CorrelationId), enc.encode('secret')).withOperation('redact').withMetadata('purpose', 'support').sendReceipt();
    expect(dec(redacted.envelope.body)).toBe('[redacted]');
    expect(seen.at(-1)).toMatchObject({ kind: 'command', topic: AgentTopic.Sessions, source: 'planner', purpose: 'support', signed: false });
    const w = laser.agdx(AgentTopic.Streams, 'planner', ConversationId.new()).stream(MintUlid.mint(CorrelationId), 'chat');
    await w.write(enc.encode('shout'));
    await w.finish('stop');
    const chunk = readAgentMessage((await readAll(transport, 'demo', AgentTopic.Streams))[0]!, { stream: 'demo', topic: AgentTopic.Streams });
    expect(dec(chunk.envelope!.body)).toBe('SHOUT');
    // A rule violation is caught before the governor sees the action.
    const count = seen.length;
    await expect(send.emit(enc.encode('x')).last().send()).rejects.toThrow(InvalidError);
    expect(seen.length).toBe(count);
  });
});

describe('claim check', () => {
  it('at or above the threshold stores the body and sends a BodyRef with content type ref; below stays inline', async () => {
    const store = new InMemoryBlobStore();
    const log = new MemoryLog();
    const laser = AgdxClient.from(log, { stream: 'demo', blobStore: store });
    await laser.bootstrap(1);
    const send = laser.agdx(AgentTopic.Sessions, 'planner', ConversationId.new());
    const big = new Uint8Array(4096).fill(7);
    const at = await send.command(MintUlid.mint(CorrelationId), big).claimCheck(store, 4096).sendReceipt();
    expect(at.contentType).toBe(CONTENT_TYPE_REF);
    expect(decodeBodyRef(at.envelope.body).sizeBytes).toBe(4096n);
    const below = await send.command(MintUlid.mint(CorrelationId), big.subarray(0, 4095)).claimCheck(store, 4096).sendReceipt();
    expect(below.contentType).toBe(0);
    expect(below.envelope.body.length).toBe(4095);
    const records = await readAll(log, 'demo', AgentTopic.Sessions);
    const stored = readAgentMessage(records[0]!, { stream: 'demo', topic: AgentTopic.Sessions });
    expect(stored.contentType).toBe(CONTENT_TYPE_REF);
    expect(await resolveAgentMessageBody(stored, store)).toEqual(big);
    const inline = readAgentMessage(records[1]!, { stream: 'demo', topic: AgentTopic.Sessions });
    expect((await agentMessageResolveBody(inline, store)).length).toBe(4095);
  });

  it('checks the size and digest of fetched bytes', async () => {
    const blobs = new Map<string, Uint8Array>();
    const store: BlobStore = {
      put: async (bytes) => {
        blobs.set('k', bytes.slice());
        return 'k';
      },
      get: async (key) => blobs.get(key),
    };
    const log = new MemoryLog();
    const laser = AgdxClient.from(log, { stream: 'demo' });
    await laser.bootstrap(1);
    await laser.agdx(AgentTopic.Sessions, 'planner', ConversationId.new()).emit(enc.encode('abcdef')).claimCheck(store, 1).send();
    const m = readAgentMessage((await readAll(log, 'demo', AgentTopic.Sessions))[0]!, { stream: 'demo', topic: AgentTopic.Sessions });
    blobs.set('k', enc.encode('abcdeX'));
    await expect(resolveAgentMessageBody(m, store)).rejects.toBeInstanceOf(IntegrityError);
    blobs.set('k', enc.encode('abc'));
    await expect(resolveAgentMessageBody(m, store)).rejects.toBeInstanceOf(IntegrityError);
  });
});

describe('stream layouts', () => {
  const conv = ConversationId.new();
  const key = conv.toString();

  it('shared: keyed by the session; lifecycle and broadcasts stay on the lane', async () => {
    const t = recordingTransport();
    const laser = AgdxClient.from(t, { stream: 'demo' });
    await laser.bootstrap(4);
    await laser.agdx(AgentTopic.Sessions, 'a', conv).command(MintUlid.mint(CorrelationId), enc.encode('x')).withTarget('worker').send();
    expect(t.appends.at(-1)?.request).toMatchObject({ topic: AgentTopic.Sessions, routing: { key } });
  });

  it('perAgentTopic: addressed commands and replies go to the declared topic, keyed by session', async () => {
    const t = recordingTransport();
    const laser = AgdxClient.from(t, { stream: 'demo', layout: { kind: 'perAgentTopic', topics: new Map([['worker', 'inbox.worker'], ['boss', 'inbox.boss']]) } });
    const boot = await laser.bootstrap(2);
    expect(boot.topics).toContain('inbox.worker');
    const send = laser.agdx(AgentTopic.Sessions, 'boss', conv);
    const corr = MintUlid.mint(CorrelationId);
    await send.command(corr, enc.encode('x')).withTarget('worker').send();
    expect(t.appends.at(-1)?.request).toMatchObject({ topic: 'inbox.worker', routing: { key } });
    await send.command(MintUlid.mint(CorrelationId), enc.encode('x')).withTarget('stranger').send();
    expect(t.appends.at(-1)?.request).toMatchObject({ topic: AgentTopic.Sessions, routing: { key } });
    await send.emit(enc.encode('e')).withTarget('worker').send(); // events are not routed
    expect(t.appends.at(-1)?.request.topic).toBe(AgentTopic.Sessions);
    // The requester waits on its own declared topic.
    expect(laser.replies(AgentTopic.Sessions, { requester: 'boss' }).topic).toBe('inbox.boss');
    expect(() => AgdxClient.from(t, { layout: { kind: 'perAgentTopic', topics: new Map([['x', 'agent.control']]) } })).toThrow(InvalidError);
  });

  it('perAgentPartition: addressed records land on the declared partition (command by addressee, reply by requester)', async () => {
    const t = recordingTransport();
    const laser = AgdxClient.from(t, { stream: 'demo', layout: { kind: 'perAgentPartition', partitions: new Map([['worker', 3], ['boss', 1]]) } });
    await laser.bootstrap(4);
    const corr = MintUlid.mint(CorrelationId);
    await laser.agdx(AgentTopic.Sessions, 'boss', conv).command(corr, enc.encode('x')).withTarget('worker').send();
    expect(t.appends.at(-1)?.request.routing).toEqual({ partition: 3 });
    await laser.agdx(AgentTopic.Sessions, 'worker', conv).respond(corr, enc.encode('y')).withTarget('boss').send();
    expect(t.appends.at(-1)?.request.routing).toEqual({ partition: 1 });
    await laser.agdx(AgentTopic.Sessions, 'worker', conv).status('task').withCorrelation(corr).withTaskState('Working').withTarget('boss').send();
    expect(t.appends.at(-1)?.request.routing).toEqual({ key });
    const w = laser.agdx(AgentTopic.Sessions, 'worker', conv).stream(corr, 'chat').withTarget('boss');
    await w.finish('stop');
    expect(t.appends.at(-1)?.request.routing).toEqual({ partition: 1 });
  });

  it('singlePartition: bootstrap creates one partition per topic', async () => {
    const log = new MemoryLog();
    const laser = AgdxClient.from(log, { stream: 'demo', layout: { kind: 'singlePartition' } });
    expect((await laser.bootstrap(8)).partitions).toBe(1);
    expect((await log.describeTopic({ stream: 'demo', topic: AgentTopic.Sessions })).partitionCount).toBe(1);
  });
});

describe('publish()', () => {
  it('publishes a ready envelope with the shared header block and returns its position', async () => {
    const log = new MemoryLog();
    const laser = AgdxClient.from(log, { stream: 'demo' });
    await laser.bootstrap(2);
    const conv = ConversationId.new();
    const env = AgentEnvelope.event(MintUlid.mint(RecordId), conv, AgentId.new('ui'), enc.encode('{}'));
    const at = await laser.publish(AgentTopic.Sessions, env, 1);
    const [rec] = await log.read({ stream: 'demo', topic: AgentTopic.Sessions, partition: at.partition, offset: at.offset });
    const m = readAgentMessage(rec!, { stream: 'demo', topic: AgentTopic.Sessions });
    expect(m.envelope?.record?.equals(env.record)).toBe(true);
    expect(m.contentType).toBe(1);
    await expect(laser.publish(AgentTopic.Sessions, env.with({ last: true }), 1)).rejects.toThrow(InvalidError);
    await expect(laser.publish(AgentTopic.Sessions, env, 256)).rejects.toThrow(InvalidError);
    expect((await laser.publish(AgentTopic.Sessions, env, 'json')).topic).toBe(AgentTopic.Sessions);
    expect(laser.scopedName('agent.keys')).toBe('stream:demo/agent.keys');
  });
});
