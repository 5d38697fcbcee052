/**
 * A small Iggy server for tests, speaking both protocols on one port. Commands run against a
 * `MemoryLog` (one MemoryLog connection per client connection, so group membership and offset
 * ownership follow the log's own rules). An `intercept` hook answers chosen requests with
 * faults instead: a status, silence, raw bytes, a truncated or oversized frame, an eviction, a
 * dropped socket, or the log's own reply tampered with (bytes flipped, duplicated, renumbered).
 */

import net from 'node:net';
import {
  ClassicRequestSplitter,
  ClassicServerSession,
  CommandCode,
  decodeClassicRequest,
  decodeCreateConsumerGroupRequest,
  decodeCreateStreamRequest,
  decodeCreateTopicRequest,
  decodeDeleteConsumerOffsetRequest,
  decodeGetConsumerOffsetRequest,
  decodeGroupTarget,
  decodeLoginUserRequest,
  decodeLoginWithTokenRequest,
  decodePollMessagesRequest,
  decodeRegisterRequest,
  decodeSendMessagesRequest,
  decodeStoreConsumerOffsetRequest,
  decodeTopicTarget,
  decodeUserHeaders,
  decodeVsrRequestFrame,
  detectProtocolGeneration,
  encodeClassicResponse,
  encodeClientDetails,
  encodeConsumerGroupAssignment,
  encodeConsumerGroupDetails,
  encodeConsumerGroupInfo,
  encodeConsumerOffsetInfo,
  encodeIdentityResponse,
  encodeMessageBatch,
  encodePollResponseClassic,
  encodePollResponseVsr,
  encodeRegisterReply,
  encodeSendMessagesResponse,
  encodeStreamInfo,
  encodeTopicDetails,
  encodeUserHeaders,
  EvictionReason,
  EXPIRY_NEVER,
  SIZE_UNLIMITED,
  initChecksums,
  isResultFramedOperation,
  RESYNC_REQUIRED_PARTITION,
  stampMessageBatch,
  VsrFrameSplitter,
  VsrServerSession,
} from '@agdx/iggy-protocol';
import type { FrameSplitter, IggyProtocol, VsrRequestHeader } from '@agdx/iggy-protocol';
import { MemoryLog, TransportError } from '@agdx/transport';
import type { GroupMember, LogRecord, LogTransport, Routing } from '@agdx/transport';

/** What the intercept hook may answer instead of the log. */
export type FakeAction =
  | { readonly status: number }
  | { readonly payload: Uint8Array }
  | { readonly silent: true }
  | { readonly raw: Uint8Array }
  | { readonly destroy: true }
  | { readonly evict: number }
  /** The request waits (this connection's later requests behind it) until `hold` settles, then the log answers. */
  | { readonly hold: Promise<unknown> }
  /**
   * The log answers, then `tamper` rewrites the reply frame; every frame it returns is written.
   * `statusFrame` builds a reply to the same request carrying a status instead (to send both).
   */
  | { readonly tamper: (frame: Uint8Array, statusFrame: (status: number) => Uint8Array) => Uint8Array | readonly Uint8Array[] };

/** One request as the intercept hook sees it. */
export interface FakeRequest {
  readonly protocol: IggyProtocol;
  readonly code: number;
  readonly body: Uint8Array;
  /** 1-based index of the connection since the server started. */
  readonly connection: number;
}

/** Options of {@link startFakeServer}. */
export interface FakeServerOptions {
  /** Return an action to fault a request, or `undefined` to let the log answer. */
  readonly intercept?: (request: FakeRequest) => FakeAction | undefined;
  /** The log behind the server (default: a fresh MemoryLog). */
  readonly log?: MemoryLog;
}

/** A running fake server. */
export interface FakeServer {
  readonly port: number;
  readonly url: string;
  readonly log: MemoryLog;
  /** Connections accepted so far. */
  readonly accepted: () => number;
  /** Request frames received so far over every connection, counted as they arrive (before they are served). */
  readonly received: () => number;
  /** Destroys every open client socket (the server keeps listening). */
  dropAll(): void;
  /** The (1-based) connections that are members of a group right now. */
  groupMembers(stream: string, topic: string, group: string): number[];
  close(): Promise<void>;
}

class IggyStatus extends Error {
  readonly code: number;
  constructor(code: number) {
    super(`iggy status ${code}`);
    this.code = code;
  }
}

interface ServerState {
  readonly log: MemoryLog;
  readonly streams: Map<string, number>;
  readonly topics: Map<string, number>;
  /** group key → id; members per group key: connection id → member. */
  readonly groups: Map<string, number>;
  readonly members: Map<string, Map<number, GroupMember>>;
  nextId: number;
  nextSession: bigint;
  received: number;
}

const groupKey = (stream: string, topic: string, group: string): string => `${stream}\u0000${topic}\u0000${group}`;

function name(id: string | number): string {
  if (typeof id !== 'string') throw new IggyStatus(6);
  return id;
}

function kindOf(error: unknown): string | undefined {
  return TransportError.is(error) ? error.kind : undefined;
}

/** Starts the fake server on an ephemeral loopback port. */
export async function startFakeServer(options: FakeServerOptions = {}): Promise<FakeServer> {
  await initChecksums();
  const state: ServerState = {
    log: options.log ?? new MemoryLog(),
    streams: new Map(),
    topics: new Map(),
    groups: new Map(),
    members: new Map(),
    nextId: 1,
    nextSession: 100n,
    received: 0,
  };
  const sockets = new Set<net.Socket>();
  let accepted = 0;
  const server = net.createServer((socket) => {
    accepted++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    serveConnection(socket, accepted, state, options.intercept);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    url: `iggy://iggy:iggy@127.0.0.1:${port}`,
    log: state.log,
    accepted: () => accepted,
    received: () => state.received,
    groupMembers: (stream, topic, group) => [...(state.members.get(groupKey(stream, topic, group))?.keys() ?? [])],
    dropAll: () => {
      for (const s of sockets) s.destroy();
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function serveConnection(socket: net.Socket, index: number, state: ServerState, intercept: FakeServerOptions['intercept']): void {
  const transport = state.log.connect();
  const myMembers = new Map<string, GroupMember>();
  let protocol: IggyProtocol | undefined;
  let splitter: FrameSplitter | undefined;
  let first = new Uint8Array(0);
  const vsr = new VsrServerSession();
  const classic = new ClassicServerSession();
  let chain = Promise.resolve();

  const cleanup = async (): Promise<void> => {
    for (const [key, member] of myMembers) {
      state.members.get(key)?.delete(index);
      await member.leave().catch(() => undefined);
    }
    myMembers.clear();
    await transport.close().catch(() => undefined);
  };
  socket.on('close', () => {
    chain = chain.then(cleanup);
  });

  const ctx: CommandContext = { state, transport, myMembers, index };

  socket.on('data', (chunk: Uint8Array) => {
    if (splitter === undefined) {
      const joined = new Uint8Array(first.length + chunk.length);
      joined.set(first);
      joined.set(chunk, first.length);
      const detected = detectProtocolGeneration(joined);
      if (detected === 'need-more') {
        first = joined;
        return;
      }
      if (detected === 'unknown') {
        socket.destroy();
        return;
      }
      protocol = detected;
      splitter = detected === 'vsr' ? new VsrFrameSplitter() : new ClassicRequestSplitter();
      chunk = joined;
    }
    let frames: Uint8Array[];
    try {
      frames = splitter.push(chunk);
    } catch {
      socket.destroy();
      return;
    }
    state.received += frames.length;
    for (const frame of frames) {
      chain = chain
        .then(() => (protocol === 'vsr' ? handleVsr(frame) : handleClassic(frame)))
        .catch(() => {
          socket.destroy();
        });
    }
  });

  const write = (bytes: Uint8Array): void => {
    if (!socket.destroyed) socket.write(bytes);
  };

  const faulted = (code: number, body: Uint8Array, p: IggyProtocol): FakeAction | undefined =>
    intercept?.({ protocol: p, code, body, connection: index });

  async function handleVsr(frame: Uint8Array): Promise<void> {
    const { header, body } = decodeVsrRequestFrame(frame);
    const admission = vsr.admit(header);
    if (admission.action === 'drop') return;
    if (admission.action === 'respond') {
      write(admission.frame);
      if (admission.closes) socket.end();
      return;
    }
    if (admission.action === 'register') {
      const request = decodeRegisterRequest(body);
      const c = request.credentials;
      const ok = 'token' in c ? c.token === 'secret-token' : c.username === 'iggy' && c.password === 'iggy';
      if (!ok) {
        write(vsr.evict(header.client, 'token' in c ? EvictionReason.InvalidToken : EvictionReason.InvalidCredentials));
        socket.end();
        return;
      }
      const session = state.nextSession++;
      write(vsr.bind(header, 0, session, encodeRegisterReply({ userId: 0, session, serverProtocolVersion: 11264, serverVersion: 'fake' })));
      return;
    }
    let fault = faulted(admission.code, body, 'vsr');
    if (fault !== undefined && 'hold' in fault) {
      await fault.hold.catch(() => undefined);
      fault = undefined;
    }
    if (fault !== undefined && 'tamper' in fault) {
      const payload = await runCommand(ctx, 'vsr', admission.code, body);
      writeTampered(fault, vsr.reply(header, { payload }), (status) => vsr.reply(header, statusOutcome(header, status)));
      return;
    }
    if (fault !== undefined) return applyFault(fault, (status, payload) => vsr.reply(header, status !== 0 ? statusOutcome(header, status) : { payload }), header);
    if (admission.code === CommandCode.LogoutUser) {
      write(vsr.reply(header));
      return;
    }
    try {
      const payload = await runCommand(ctx, 'vsr', admission.code, body);
      write(vsr.reply(header, { payload }));
    } catch (error) {
      const code = error instanceof IggyStatus ? error.code : 1;
      write(vsr.reply(header, statusOutcome(header, code)));
    }
  }

  function statusOutcome(header: VsrRequestHeader, code: number): { status?: number; results?: { index: number; code: number }[] } {
    return isResultFramedOperation(header.operation) ? { results: [{ index: 0, code }] } : { status: code };
  }

  async function handleClassic(frame: Uint8Array): Promise<void> {
    const { code, payload: body } = decodeClassicRequest(frame);
    const admission = classic.admit(code);
    if (admission.action === 'deny') {
      write(encodeClassicResponse(admission.status));
      return;
    }
    if (code === CommandCode.LoginUser || code === CommandCode.LoginWithPersonalAccessToken) {
      const ok = code === CommandCode.LoginUser
        ? ((r) => r.username === 'iggy' && r.password === 'iggy')(decodeLoginUserRequest(body))
        : decodeLoginWithTokenRequest(body).token === 'secret-token';
      if (!ok) {
        write(encodeClassicResponse(code === CommandCode.LoginUser ? 42 : 53));
        return;
      }
      classic.login(0);
      write(encodeClassicResponse(0, encodeIdentityResponse(0)));
      return;
    }
    let fault = faulted(code, body, 'classic');
    if (fault !== undefined && 'hold' in fault) {
      await fault.hold.catch(() => undefined);
      fault = undefined;
    }
    if (fault !== undefined && 'tamper' in fault) {
      writeTampered(fault, encodeClassicResponse(0, await runCommand(ctx, 'classic', code, body)), (status) => encodeClassicResponse(status));
      return;
    }
    if (fault !== undefined) return applyFault(fault, (status, payload) => encodeClassicResponse(status, status === 0 ? payload : new Uint8Array(0)));
    if (code === CommandCode.LogoutUser) {
      classic.logout();
      write(encodeClassicResponse(0));
      return;
    }
    try {
      write(encodeClassicResponse(0, await runCommand(ctx, 'classic', code, body)));
    } catch (error) {
      write(encodeClassicResponse(error instanceof IggyStatus ? error.code : 1));
    }
  }

  function writeTampered(fault: Extract<FakeAction, { tamper: unknown }>, frame: Uint8Array, statusFrame: (status: number) => Uint8Array): void {
    const out = fault.tamper(frame, statusFrame);
    for (const f of out instanceof Uint8Array ? [out] : out) write(f);
  }

  function applyFault(fault: FakeAction, reply: (status: number, payload: Uint8Array) => Uint8Array, header?: VsrRequestHeader): void {
    if ('silent' in fault) return;
    if ('destroy' in fault) {
      socket.destroy();
      return;
    }
    if ('raw' in fault) {
      write(fault.raw);
      return;
    }
    // Both are handled before a fault gets here.
    if ('tamper' in fault || 'hold' in fault) return;
    if ('evict' in fault) {
      write(vsr.evict(header?.client ?? 1n, fault.evict));
      socket.end();
      return;
    }
    if ('status' in fault) {
      write(reply(fault.status, new Uint8Array(0)));
      return;
    }
    write(reply(0, fault.payload));
  }
}

interface CommandContext {
  readonly state: ServerState;
  readonly transport: LogTransport;
  readonly myMembers: Map<string, GroupMember>;
  readonly index: number;
}

async function topicDetails(ctx: CommandContext, protocol: IggyProtocol, stream: string, topic: string): Promise<Uint8Array> {
  if (!ctx.state.streams.has(stream)) throw new IggyStatus(1009);
  const id = ctx.state.topics.get(`${stream}\u0000${topic}`);
  if (id === undefined) return new Uint8Array(0);
  const d = await ctx.transport.describeTopic({ stream, topic });
  const total = d.partitions.reduce((n, p) => n + p.nextOffset, 0n);
  return encodeTopicDetails(
    {
      id,
      createdAt: 0n,
      partitionsCount: d.partitionCount,
      messageExpiry: d.messageExpiryMicros ?? EXPIRY_NEVER,
      compression: 1,
      maxTopicSize: d.maxTopicBytes ?? SIZE_UNLIMITED,
      ...(protocol === 'classic' ? { replicationFactor: 1 } : { options: new Map(), derivedOptions: new Map() }),
      sizeBytes: 0n,
      messagesCount: total,
      name: topic,
      partitions: d.partitions.map((p) => ({
        id: p.partition,
        createdAt: 0n,
        segmentsCount: 1,
        currentOffset: p.nextOffset > 0n ? p.nextOffset - 1n : 0n,
        sizeBytes: 0n,
        messagesCount: p.nextOffset,
      })),
    },
    protocol,
  );
}

async function orStatus<T>(action: () => Promise<T>, codes: Partial<Record<string, number>>): Promise<T> {
  try {
    return await action();
  } catch (error) {
    const kind = kindOf(error);
    throw new IggyStatus((kind !== undefined ? codes[kind] : undefined) ?? 1);
  }
}

async function runCommand(ctx: CommandContext, protocol: IggyProtocol, code: number, body: Uint8Array): Promise<Uint8Array> {
  const { state, transport: t } = ctx;
  const partitionMissing = protocol === 'vsr' ? 20 : 3007;
  switch (code) {
    case CommandCode.Ping:
      return new Uint8Array(0);
    case CommandCode.GetMe:
      return encodeClientDetails({ clientId: ctx.index, userId: 0, transport: 1, address: '127.0.0.1', consumerGroups: [] });
    case CommandCode.CreateStream: {
      const { name: stream } = decodeCreateStreamRequest(body, protocol);
      if (state.streams.has(stream)) throw new IggyStatus(1012);
      const id = state.nextId++;
      state.streams.set(stream, id);
      await t.ensureStream(stream);
      return encodeStreamInfo({ id, createdAt: 0n, topicsCount: 0, sizeBytes: 0n, messagesCount: 0n, name: stream, ...(protocol === 'vsr' ? { options: new Map() } : {}) }, protocol);
    }
    case CommandCode.GetTopic: {
      const target = decodeTopicTarget(body);
      return topicDetails(ctx, protocol, name(target.stream), name(target.topic));
    }
    case CommandCode.CreateTopic: {
      const req = decodeCreateTopicRequest(body, protocol);
      const stream = name(req.stream);
      if (!state.streams.has(stream)) throw new IggyStatus(1009);
      const key = `${stream}\u0000${req.name}`;
      if (state.topics.has(key)) throw new IggyStatus(2013);
      const expiry = req.messageExpiry === undefined || req.messageExpiry === 0n || req.messageExpiry === EXPIRY_NEVER ? undefined : req.messageExpiry;
      const size = req.maxTopicSize === undefined || req.maxTopicSize === 0n || req.maxTopicSize === SIZE_UNLIMITED ? undefined : req.maxTopicSize;
      await orStatus(() => t.ensureTopic({ stream, topic: req.name }, { partitions: req.partitionsCount, messageExpiryMicros: expiry, maxTopicBytes: size }), { invalid: 2019 });
      state.topics.set(key, state.nextId++);
      return topicDetails(ctx, protocol, stream, req.name);
    }
    case CommandCode.SendMessages: {
      const req = decodeSendMessagesRequest(body, protocol);
      const stream = name(req.stream);
      const topic = name(req.topic);
      const p = req.partitioning;
      const routing: Routing = p.kind === 'partition' ? { partition: p.partitionId } : p.kind === 'key' ? { key: p.key } : { balanced: true };
      const records = req.messages.map((m) => ({ payload: m.payload.slice(), headers: m.rawHeaders.length === 0 ? undefined : decodeUserHeaders(m.rawHeaders) }));
      const result = await orStatus(() => t.append({ stream, topic, routing, records }), { 'not-found': partitionMissing, invalid: 4009 });
      if (protocol === 'classic') return new Uint8Array(0);
      return encodeSendMessagesResponse([{ streamId: state.streams.get(stream) ?? 0, topicId: state.topics.get(`${stream}\u0000${topic}`) ?? 0, partitionId: result.partition, baseOffset: result.baseOffset }]);
    }
    case CommandCode.PollMessages: {
      const req = decodePollMessagesRequest(body);
      const stream = name(req.stream);
      const topic = name(req.topic);
      const partition = req.partitionId ?? 0;
      let records: readonly LogRecord[];
      if (req.consumer.kind === 'group') {
        const member = ctx.myMembers.get(groupKey(stream, topic, name(req.consumer.id)));
        if (member === undefined) throw new IggyStatus(5006);
        if (!(await member.assignment()).includes(partition)) return encodePollResponse(protocol, RESYNC_REQUIRED_PARTITION, 0n, []);
        const stored = await t.getOffset({ stream, topic, partition, consumer: { kind: 'group', name: name(req.consumer.id) } });
        const from = stored === undefined ? 0n : stored + 1n;
        records = await t.read({ stream, topic, partition, offset: from, maxCount: req.count });
        const last = records.at(-1);
        if (req.autoCommit && last !== undefined) await member.commit(partition, last.offset);
      } else {
        const s = req.strategy;
        records = await orStatus(
          () =>
            s.kind === 'timestamp'
              ? t.readFromTimestamp({ stream, topic, partition, timestampMicros: s.value, maxCount: req.count })
              : t.read({ stream, topic, partition, offset: s.kind === 'offset' ? s.value : 0n, maxCount: req.count }),
          { 'not-found': 3007 },
        );
      }
      const d = await t.describeTopic({ stream, topic });
      const next = d.partitions[partition]?.nextOffset ?? 0n;
      return encodePollResponse(protocol, partition, next > 0n ? next - 1n : 0n, records);
    }
    case CommandCode.StoreConsumerOffset: {
      const req = decodeStoreConsumerOffsetRequest(body, protocol);
      const consumer = { kind: req.consumer.kind, name: name(req.consumer.id) } as const;
      await orStatus(() => t.storeOffset({ stream: name(req.stream), topic: name(req.topic), partition: req.partitionId ?? 0, consumer, offset: req.offset }), {
        invalid: 4100,
        conflict: protocol === 'vsr' ? 20 : 5009,
        'not-found': partitionMissing,
      });
      return new Uint8Array(0);
    }
    case CommandCode.GetConsumerOffset: {
      const req = decodeGetConsumerOffsetRequest(body);
      const consumer = { kind: req.consumer.kind, name: name(req.consumer.id) } as const;
      const stream = name(req.stream);
      const topic = name(req.topic);
      const partition = req.partitionId ?? 0;
      const stored = await orStatus(() => t.getOffset({ stream, topic, partition, consumer }), { 'not-found': consumer.kind === 'group' ? 5000 : 3007 });
      if (stored === undefined) return new Uint8Array(0);
      const next = (await t.describeTopic({ stream, topic })).partitions[partition]?.nextOffset ?? 0n;
      return encodeConsumerOffsetInfo({ partitionId: partition, currentOffset: next > 0n ? next - 1n : 0n, storedOffset: stored });
    }
    case CommandCode.DeleteConsumerOffset: {
      const req = decodeDeleteConsumerOffsetRequest(body, protocol);
      const consumer = { kind: req.consumer.kind, name: name(req.consumer.id) } as const;
      const deleted = await orStatus(() => t.deleteOffset({ stream: name(req.stream), topic: name(req.topic), partition: req.partitionId ?? 0, consumer }), {
        conflict: protocol === 'vsr' ? 20 : 5009,
        'not-found': partitionMissing,
      });
      if (!deleted) throw new IggyStatus(3021);
      return new Uint8Array(0);
    }
    case CommandCode.CreateConsumerGroup: {
      const req = decodeCreateConsumerGroupRequest(body);
      const stream = name(req.stream);
      const topic = name(req.topic);
      if (!state.topics.has(`${stream}\u0000${topic}`)) throw new IggyStatus(2010);
      const key = groupKey(stream, topic, req.name);
      if (state.groups.has(key)) throw new IggyStatus(5004);
      const id = state.nextId++;
      state.groups.set(key, id);
      state.members.set(key, new Map());
      const d = await t.describeTopic({ stream, topic });
      return encodeConsumerGroupInfo({ id, partitionsCount: d.partitionCount, membersCount: 0, name: req.name });
    }
    case CommandCode.GetConsumerGroup: {
      const req = decodeGroupTarget(body);
      const stream = name(req.stream);
      const topic = name(req.topic);
      const key = groupKey(stream, topic, name(req.group));
      const id = state.groups.get(key);
      if (id === undefined) return new Uint8Array(0);
      const members = [];
      for (const [connection, member] of state.members.get(key) ?? []) {
        members.push({ id: connection, partitions: [...(await member.assignment())] });
      }
      const d = await t.describeTopic({ stream, topic });
      return encodeConsumerGroupDetails({ id, partitionsCount: d.partitionCount, membersCount: members.length, name: name(req.group), members });
    }
    case CommandCode.JoinConsumerGroup: {
      const req = decodeGroupTarget(body);
      const stream = name(req.stream);
      const topic = name(req.topic);
      const group = name(req.group);
      const key = groupKey(stream, topic, group);
      if (!state.groups.has(key)) throw new IggyStatus(5000);
      if (!ctx.myMembers.has(key)) {
        const member = await t.joinGroup({ stream, topic, group });
        ctx.myMembers.set(key, member);
        state.members.get(key)?.set(ctx.index, member);
      }
      return new Uint8Array(0);
    }
    case CommandCode.LeaveConsumerGroup: {
      const req = decodeGroupTarget(body);
      const key = groupKey(name(req.stream), name(req.topic), name(req.group));
      const member = ctx.myMembers.get(key);
      if (member === undefined) throw new IggyStatus(5006);
      ctx.myMembers.delete(key);
      state.members.get(key)?.delete(ctx.index);
      await member.leave();
      return new Uint8Array(0);
    }
    case CommandCode.SyncConsumerGroup: {
      const req = decodeGroupTarget(body);
      const member = ctx.myMembers.get(groupKey(name(req.stream), name(req.topic), name(req.group)));
      if (member === undefined) throw new IggyStatus(5006);
      return encodeConsumerGroupAssignment({ generation: 1n, partitions: [...(await member.assignment())] });
    }
    default:
      throw new IggyStatus(3);
  }
}

function encodePollResponse(protocol: IggyProtocol, partition: number, currentOffset: bigint, records: readonly LogRecord[]): Uint8Array {
  if (protocol === 'classic') {
    return encodePollResponseClassic(
      partition,
      currentOffset,
      records.map((r) => ({ id: 1n, offset: r.offset, timestamp: r.timestampMicros, originTimestamp: r.timestampMicros, payload: r.payload, rawHeaders: encodeUserHeaders(r.headers) })),
    );
  }
  const batches = records.map((r) =>
    stampMessageBatch(encodeMessageBatch([{ id: 1n, payload: r.payload, headers: r.headers }]), { partitionId: partition, baseOffset: r.offset, baseTimestamp: r.timestampMicros }),
  );
  return encodePollResponseVsr(partition, currentOffset, batches);
}
