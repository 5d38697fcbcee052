/**
 * `IggyTransport`: the AGDX `LogTransport` over an Apache Iggy server, speaking the VSR protocol
 * (Iggy 0.9 line) by default or the classic protocol (0.7/0.8) by option. Stream and topic
 * names are the Iggy names; partition ids are Iggy's 0-based ids.
 */

import { setMaxListeners } from 'node:events';
import {
  ClosedError,
  ConflictError,
  InvalidArgumentError,
  NotFoundError,
} from '@agdx/transport';
import type {
  AppendRequest,
  AppendResult,
  CallOptions,
  ConsumerRef,
  GroupMember,
  JoinGroupRequest,
  LogRecord,
  LogTransport,
  OffsetRequest,
  ReadFromTimestampRequest,
  ReadRequest,
  StoreOffsetRequest,
  TopicAddress,
  TopicDescription,
  TopicSettings,
  WaitRequest,
} from '@agdx/transport';
import { CommandCode, decodeTopicDetails, encodeTopicTarget, partitionForKey, partitioning } from '@agdx/iggy-protocol';
import type { Consumer, OutgoingMessage, Partitioning, PollingStrategy, TopicDetails } from '@agdx/iggy-protocol';
import { IggyAdmin } from './admin.js';
import { AppendCoalescer } from './append-coalescer.js';
import { loadBatchHasher } from './batch-hasher.js';
import type { BatchSender, SendPlacement } from './append-coalescer.js';
import * as cmd from './commands.js';
import { ClusterDirectory } from './cluster-directory.js';
import type { Endpoint } from './cluster-directory.js';
import { IggyConnection } from './connection/iggy-connection.js';
import { parseConnectionString } from './connection-string.js';
import { iggyCodeOf, toTransportError } from './error-mapping.js';
import { IggyGroupMember } from './group-member.js';
import { ownCopy, toOutgoingMessages } from './outgoing-messages.js';
import { resolveOptions } from './options.js';
import { OutcomeUnknownError } from './outcome-unknown.js';
import type { IggyTransportOptions, ResolvedIggyOptions } from './options.js';
import { sleepUnlessStopped } from './sleep.js';
import { checkExpiry, checkMaxCount, checkMaxTopicBytes, checkName, checkOffset, checkPartitionCount, checkSignal, checkTimeout, routingKeyBytes } from '@agdx/transport';
import { checkPartitionId } from './validation.js';

/** Command names by code, for {@link IggyTransport.requestsWritten}. */
const COMMAND_NAMES: ReadonlyMap<number, string> = new Map(Object.entries(CommandCode).map(([name, code]) => [code, name]));

/** A consumer id no offset is ever stored for: plain reads poll as this consumer, without commits. */
const READER: Consumer = { kind: 'consumer', id: 0 };

function consumerOf(ref: ConsumerRef): Consumer {
  if (typeof ref !== 'object' || ref === null || (ref.kind !== 'consumer' && ref.kind !== 'group')) {
    throw new InvalidArgumentError("consumer must be { kind: 'consumer' | 'group', name }");
  }
  checkName(ref.name, ref.kind === 'group' ? 'group' : 'consumer');
  return { kind: ref.kind, id: ref.name };
}

function describe(stream: string, topic: string, details: TopicDetails): TopicDescription {
  const partitions = [...details.partitions].sort((a, b) => a.id - b.id).map((p) => ({ partition: p.id, nextOffset: cmd.nextOffsetOf(p) }));
  return {
    stream,
    topic,
    partitionCount: partitions.length,
    messageExpiryMicros: cmd.expiryOf(details),
    maxTopicBytes: cmd.maxTopicBytesOf(details),
    partitions,
    createdAtMicros: details.createdAt,
  };
}

/** The coalescing key of an append's target: stream, topic and partition or key bytes; none for balanced. */
function coalescingKey(stream: string, topic: string, wire: Partitioning): string | undefined {
  if (wire.kind === 'partition') return `${stream}\u0000${topic}\u0000p${wire.partitionId}`;
  if (wire.kind !== 'key') return undefined;
  let hex = '';
  for (const b of wire.key) hex += (b < 16 ? '0' : '') + b.toString(16);
  return `${stream}\u0000${topic}\u0000k${hex}`;
}

/** A connected Iggy client implementing `LogTransport`; create it with {@link IggyTransport.connect}. */
export class IggyTransport implements LogTransport {
  /** Iggy has no blocking poll: `waitFor` polls, so latency-sensitive readers pace their own reads. */
  readonly waitsByPolling = true;
  /** The shared connections (one unless `connections` says more); members have their own. */
  readonly #connections: readonly IggyConnection[];
  readonly #options: ResolvedIggyOptions;
  readonly #members = new Set<IggyGroupMember>();
  readonly #stop = new AbortController();
  /** Classic only: the client-side round-robin counter of balanced appends, per topic. */
  readonly #balanced = new Map<string, number>();
  #closed = false;
  #admin: IggyAdmin | undefined;
  /**
   * One append per target (partition or key) on the wire at a time; concurrent appends to it
   * queue and leave as one batch. One, not one per connection: two connections do not keep the
   * order of two appends, appends to one partition must land in call order, and a classic
   * append's offsets are read right after it, exact only while no other append of ours is in
   * between.
   */
  readonly #coalescer = new AppendCoalescer();

  readonly #directory: ClusterDirectory;

  private constructor(connections: readonly IggyConnection[], options: ResolvedIggyOptions, directory: ClusterDirectory) {
    this.#directory = directory;
    // Every concurrent waitFor listens on this signal; many waiters are normal, not a leak.
    setMaxListeners(0, this.#stop.signal);
    this.#connections = connections;
    this.#options = options;
  }

  /**
   * Connects and logs in. Accepts a connection string (`user:password@host:port` or
   * `iggy://user:password@host:port?protocol=vsr|classic&tls=true`), options, or both (options
   * override what the string says). `call.signal` aborts the connection attempts. Rejects with a
   * `transport` error, before opening any socket, when the WebAssembly batch hasher fails to load
   * for any reason but the runtime not supporting WebAssembly (then the JavaScript checksums serve).
   */
  static async connect(target: string | IggyTransportOptions, overrides: IggyTransportOptions = {}, call: CallOptions = {}): Promise<IggyTransport> {
    checkSignal(call.signal);
    const base = typeof target === 'string' ? parseConnectionString(target) : target;
    const options = resolveOptions({ ...base, ...overrides });
    // Node only, so the WebAssembly batch hasher is allowed here: it seals a batch of 1,000 frames
    // in a fraction of the JavaScript hashing time. Where the runtime refuses WebAssembly (node
    // --jitless) the JavaScript checksums give the same bytes, so the connection goes on; any
    // other failure rejects the connect (see batch-hasher.ts).
    await loadBatchHasher();
    const directory = new ClusterDirectory(options.seeds);
    const opened = await Promise.allSettled(Array.from({ length: options.connections }, () => IggyConnection.open(options, call.signal, directory)));
    const connections = opened.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    const failed = opened.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed !== undefined) {
      await Promise.all(connections.map((c) => c.close()));
      throw failed.reason;
    }
    return new IggyTransport(connections, options, directory);
  }

  /** The protocol generation in use. */
  get protocol(): 'vsr' | 'classic' {
    return this.#options.protocol;
  }

  /**
   * The address the main connection is on: the primary of a cluster once discovery settled,
   * else the seed that answered.
   */
  get endpoint(): Endpoint | undefined {
    return (this.#connections[0] as IggyConnection).endpoint;
  }

  /** How many times the main connection was re-established after a loss. */
  get reconnects(): number {
    return this.#connections.reduce((n, c) => n + c.reconnects, 0);
  }

  /**
   * Requests this transport has written to the server so far, by command name (for example
   * `PollMessages`, `SendMessages`, `StoreConsumerOffset`), over its shared connections and the
   * connections of its current group members; a member that left takes its counts along.
   * Diagnostics: what a workload costs on the wire. Each call builds a new object.
   */
  get requestsWritten(): Readonly<Record<string, number>> {
    const totals: Record<string, number> = {};
    const add = (counts: ReadonlyMap<number, number>): void => {
      for (const [code, n] of counts) {
        const name = COMMAND_NAMES.get(code) ?? `command ${code}`;
        totals[name] = (totals[name] ?? 0) + n;
      }
    };
    for (const c of this.#connections) add(c.requestsWritten);
    for (const m of this.#members) add(m.requestsWritten);
    return totals;
  }

  /**
   * User and personal-access-token administration over this transport's connections
   * (`admin.users.create(...)`, `admin.tokens.create(...)`); what is allowed is up to the
   * logged-in user's permissions on the server.
   */
  get admin(): IggyAdmin {
    this.#checkOpen();
    return (this.#admin ??= new IggyAdmin({
      protocol: this.#options.protocol,
      request: (code, body, options) => {
        this.#checkOpen();
        return this.#connection.request(code, body, options);
      },
    }));
  }

  /** The least busy shared connection. */
  get #connection(): IggyConnection {
    let best = this.#connections[0] as IggyConnection;
    for (let i = 1; i < this.#connections.length; i++) {
      const c = this.#connections[i] as IggyConnection;
      if (c.load < best.load) best = c;
    }
    return best;
  }

  /** The shared connection every classic append to one partition goes over (see #appendClassic). */
  #connectionOf(stream: string, topic: string, partition: number): IggyConnection {
    if (this.#connections.length === 1) return this.#connections[0] as IggyConnection;
    // FNV-1a over the target: any stable spread over the connections will do.
    let hash = 0x811c9dc5;
    const key = `${stream}\u0000${topic}\u0000${partition}`;
    for (let i = 0; i < key.length; i++) hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193);
    return this.#connections[(hash >>> 0) % this.#connections.length] as IggyConnection;
  }

  #checkOpen(): void {
    if (this.#closed) throw new ClosedError('the Iggy transport is closed');
  }

  #begin(options: CallOptions | undefined): { signal: AbortSignal | undefined } {
    this.#checkOpen();
    checkSignal(options?.signal);
    return { signal: options?.signal };
  }

  /** Creates the stream when missing. */
  async ensureStream(stream: string, options?: CallOptions): Promise<void> {
    const o = this.#begin(options);
    checkName(stream, 'stream');
    try {
      await cmd.createStream(this.#connection, stream, o);
    } catch (error) {
      if (iggyCodeOf(error) !== 1012) throw error;
    }
  }

  /** Creates the topic when missing (with its expiry and size limit); an existing one must match `settings`. */
  async ensureTopic(address: TopicAddress, settings: TopicSettings, options?: CallOptions): Promise<TopicDescription> {
    const o = this.#begin(options);
    const { stream, topic } = this.#address(address);
    if (typeof settings !== 'object' || settings === null) throw new InvalidArgumentError('settings must be an object');
    const partitions = checkPartitionCount(settings.partitions);
    const expiry = checkExpiry(settings.messageExpiryMicros);
    const maxTopicBytes = checkMaxTopicBytes(settings.maxTopicBytes);
    const check = (details: TopicDetails): TopicDescription => {
      const described = describe(stream, topic, details);
      if (described.partitionCount !== partitions || described.messageExpiryMicros !== expiry || described.maxTopicBytes !== maxTopicBytes) {
        throw new ConflictError(`topic ${stream}/${topic} exists with other settings`, {
          context: {
            stream,
            topic,
            partitions: described.partitionCount,
            messageExpiryMicros: described.messageExpiryMicros?.toString(),
            maxTopicBytes: described.maxTopicBytes?.toString(),
          },
        });
      }
      return described;
    };
    const existing = await cmd.getTopic(this.#connection, stream, topic, o);
    if (existing !== undefined) return check(existing);
    try {
      const created = await cmd.createTopic(this.#connection, stream, topic, partitions, expiry, maxTopicBytes, o);
      if (created !== undefined) return check(created);
    } catch (error) {
      if (iggyCodeOf(error) !== 2013) throw error;
    }
    const now = await cmd.getTopic(this.#connection, stream, topic, o);
    if (now === undefined) throw new NotFoundError(`topic ${stream}/${topic} vanished while being created`, { context: { stream, topic } });
    return check(now);
  }

  /** The topic's partitions, next offsets, expiry and size limit. */
  async describeTopic(address: TopicAddress, options?: CallOptions): Promise<TopicDescription> {
    const o = this.#begin(options);
    const { stream, topic } = this.#address(address);
    return describe(stream, topic, await this.#topicDetails(stream, topic, o));
  }

  async #topicDetails(stream: string, topic: string, o: CallOptions): Promise<TopicDetails> {
    const details = await cmd.getTopic(this.#connection, stream, topic, o);
    if (details === undefined) throw new NotFoundError(`topic ${stream}/${topic} does not exist`, { context: { stream, topic } });
    return details;
  }

  #address(address: TopicAddress): { stream: string; topic: string } {
    if (typeof address !== 'object' || address === null) throw new InvalidArgumentError('address must be an object');
    return { stream: checkName(address.stream, 'stream'), topic: checkName(address.topic, 'topic') };
  }

  /** Appends a batch to one partition; see `LogTransport.append`. */
  async append(request: AppendRequest): Promise<AppendResult> {
    const o = this.#begin(request);
    const { stream, topic } = this.#address(request);
    const records = request.records;
    if (!Array.isArray(records) || records.length === 0) throw new InvalidArgumentError('records must be a non-empty array');
    const messages = toOutgoingMessages(records);
    const routing = request.routing === undefined ? { balanced: true } : request.routing;
    // Checked as MemoryLog does: `in` on a string or null would throw an untyped TypeError, and
    // a null routing is no more "balanced" here than it is there.
    if (typeof routing !== 'object' || routing === null) throw new InvalidArgumentError('routing must be { partition }, { key } or { balanced: true }');
    let wire: Partitioning;
    if ('partition' in routing) wire = partitioning.partitionId(checkPartitionId(routing.partition));
    else if ('key' in routing) wire = partitioning.key(routingKeyBytes(routing.key));
    else if ('balanced' in routing && routing.balanced === true) wire = partitioning.balanced();
    else throw new InvalidArgumentError('routing must be { partition }, { key } or { balanced: true }');

    const send: BatchSender =
      this.#options.protocol === 'vsr'
        ? async (batch, signal, hold) => {
            const [confirmation] = await cmd.sendMessages(this.#connection, stream, topic, wire, batch, { signal, onRelease: hold?.() });
            if (confirmation === undefined) throw new OutcomeUnknownError('the Iggy server acknowledged SendMessages without confirming a batch', { context: { stream, topic } });
            return { partition: confirmation.partitionId, baseOffset: confirmation.baseOffset };
          }
        : (batch, signal) => this.#appendClassic(stream, topic, wire, batch, { signal });
    // Balanced appends spread over partitions one by one, so they are never merged.
    const target = coalescingKey(stream, topic, wire);
    // Counted now: `messages` may be the caller's array, free to change while this waits.
    const count = messages.length;
    const placed = target === undefined ? await send(messages, o.signal) : await this.#coalescer.send(target, messages, send, o.signal);
    return { partition: placed.partition, baseOffset: placed.baseOffset, count };
  }

  /**
   * Classic servers answer SendMessages with nothing, so the partition is chosen here (the key
   * mapping is the server's own) and the batch's offsets come from the partition's highest
   * offset, read by a GetTopic written right behind the send on the same connection. The
   * server handles one connection's requests in order, so this is exact unless another client
   * writes to the same partition in between.
   */
  async #appendClassic(stream: string, topic: string, wire: Partitioning, given: readonly OutgoingMessage[], o: CallOptions): Promise<SendPlacement> {
    let partition: number;
    let messages = given;
    if (wire.kind === 'partition') partition = wire.partitionId;
    else {
      // The batch is encoded after the partition count is read: it must not see later changes.
      messages = ownCopy(given);
      const count = (await this.#topicDetails(stream, topic, o)).partitions.length;
      if (count === 0) throw new NotFoundError(`topic ${stream}/${topic} has no partitions`);
      if (wire.kind === 'key') {
        partition = partitionForKey(wire.key, count);
      } else {
        const key = `${stream}\u0000${topic}`;
        const next = this.#balanced.get(key) ?? 0;
        partition = next % count;
        this.#balanced.set(key, (next + 1) % count);
      }
    }
    // The send and the offset read must share a connection, back to back, and every classic
    // append of this transport to one partition takes the same connection: the server takes one
    // connection's requests in order, but interleaves connections, so an offset read behind one
    // send could otherwise also count another of our sends to that partition on another
    // connection (two keys, or a key and a partition id, that map to one partition).
    const connection = this.#connectionOf(stream, topic, partition);
    const sent = cmd.requestSend(connection, stream, topic, partitioning.partitionId(partition), messages, o);
    const topicBody = encodeTopicTarget({ stream, topic });
    // A read, so a lost connection writes it again, behind the send when that is requeued too.
    const after = connection.request(CommandCode.GetTopic, topicBody, { ...o, idempotent: true });
    after.catch(() => undefined);
    const ack = await sent;
    let payload: Uint8Array;
    try {
      payload = await after;
    } catch (cause) {
      // The send was acknowledged, so its records are stored; only where is not known. Never a
      // clean failure (a timeout or a lost read would otherwise look like one).
      throw new OutcomeUnknownError('the Iggy server acknowledged SendMessages, but the offset read behind it failed', { cause, context: { stream, topic, partition } });
    }
    // A non-empty send reply or no topic right after a successful send means the two replies
    // answered other calls (a duplicated or stray frame): the offsets cannot be trusted.
    if (ack.length !== 0) throw cmd.refuseClassicReply(connection, CommandCode.SendMessages, `${ack.length} bytes where an empty reply belongs`, undefined, true);
    let details: TopicDetails | undefined;
    try {
      details = decodeTopicDetails(payload, 'classic');
    } catch (error) {
      throw cmd.refuseClassicReply(connection, CommandCode.GetTopic, 'a reply that does not decode as its answer', error, true);
    }
    if (details === undefined) throw cmd.refuseClassicReply(connection, CommandCode.GetTopic, 'an empty reply for a topic just written to', undefined, true);
    const info = details.partitions.find((p) => p.id === partition);
    if (info === undefined) throw new NotFoundError(`partition ${partition} of ${stream}/${topic} does not exist`);
    const baseOffset = cmd.nextOffsetOf(info) - BigInt(messages.length);
    return { partition, baseOffset: baseOffset < 0n ? 0n : baseOffset };
  }

  async #poll(stream: string, topic: string, partition: number, strategy: PollingStrategy, count: number, o: CallOptions): Promise<LogRecord[]> {
    const polled = await cmd.pollMessages(this.#connection, { consumer: READER, stream, topic, partitionId: partition, strategy, count, autoCommit: false }, o);
    return cmd.toRecords(partition, polled);
  }

  /** Up to `maxCount` records of a partition from an offset. */
  async read(request: ReadRequest): Promise<readonly LogRecord[]> {
    const o = this.#begin(request);
    const { stream, topic } = this.#address(request);
    const partition = checkPartitionId(request.partition);
    const offset = checkOffset(request.offset);
    const count = checkMaxCount(request.maxCount);
    const records = await this.#poll(stream, topic, partition, { kind: 'offset', value: offset }, Math.max(count, 1), o);
    return count === 0 ? [] : records.filter((r) => r.offset >= offset).slice(0, count);
  }

  /** Up to `maxCount` records of a partition from a broker timestamp. */
  async readFromTimestamp(request: ReadFromTimestampRequest): Promise<readonly LogRecord[]> {
    const o = this.#begin(request);
    const { stream, topic } = this.#address(request);
    const partition = checkPartitionId(request.partition);
    const timestamp = checkOffset(request.timestampMicros, 'timestampMicros');
    const count = checkMaxCount(request.maxCount);
    const records = await this.#poll(stream, topic, partition, { kind: 'timestamp', value: timestamp }, Math.max(count, 1), o);
    return count === 0 ? [] : records.slice(0, count);
  }

  /**
   * Waits for a record at `offset` or later: a polling loop whose pause doubles from
   * `waitPollMs.min` to `waitPollMs.max`, so a blocked wait costs a few small requests a second.
   */
  waitFor(request: WaitRequest): Promise<boolean> {
    const waiting = this.#waitFor(request);
    // A wait that close() ends may be awaited by its caller only later: never report it unhandled.
    waiting.catch(() => undefined);
    return waiting;
  }

  async #waitFor(request: WaitRequest): Promise<boolean> {
    const o = this.#begin(request);
    const { stream, topic } = this.#address(request);
    const partition = checkPartitionId(request.partition);
    const offset = checkOffset(request.offset);
    const limit = checkTimeout(request.timeoutMs);
    // The monotonic clock: a wall clock stepped back would stretch the wait without bound.
    const deadline = performance.now() + limit;
    let pause = this.#options.waitMinMs;
    for (;;) {
      const found = await this.#poll(stream, topic, partition, { kind: 'offset', value: offset }, 1, o);
      if (found.some((r) => r.offset >= offset)) return true;
      const left = deadline - performance.now();
      if (left <= 0) return false;
      await sleepUnlessStopped(Math.min(pause, left), o.signal, this.#stop.signal);
      pause = Math.min(this.#options.waitMaxMs, pause * 2);
    }
  }

  /** A member of this transport in `group` that owns `partition`, if any. */
  async #owner(stream: string, topic: string, group: string, partition: number, o: CallOptions): Promise<IggyGroupMember | undefined> {
    for (const member of this.#members) {
      const t = member.target;
      if (t.stream === stream && t.topic === topic && t.group === group && (await member.owns(partition, o))) return member;
    }
    return undefined;
  }

  /** Stores a consumer offset (for a group, through a member of this transport that owns the partition). */
  async storeOffset(request: StoreOffsetRequest): Promise<void> {
    const o = this.#begin(request);
    const { stream, topic } = this.#address(request);
    const partition = checkPartitionId(request.partition);
    const offset = checkOffset(request.offset);
    const consumer = consumerOf(request.consumer);
    if (consumer.kind === 'group') {
      const owner = await this.#owner(stream, topic, String(consumer.id), partition, o);
      if (owner === undefined) throw this.#notOwned(String(consumer.id), partition);
      await owner.storeOffset(partition, offset, o);
      return;
    }
    await cmd.storeOffset(this.#connection, consumer, stream, topic, partition, offset, o);
  }

  #notOwned(group: string, partition: number): ConflictError {
    return new ConflictError(`no member of group ${group} joined through this transport owns partition ${partition}`, { context: { group, partition } });
  }

  /** The stored offset, `undefined` when none is stored. */
  async getOffset(request: OffsetRequest): Promise<bigint | undefined> {
    const o = this.#begin(request);
    const { stream, topic } = this.#address(request);
    const partition = checkPartitionId(request.partition);
    const consumer = consumerOf(request.consumer);
    const info = await cmd.getOffset(this.#connection, consumer, stream, topic, partition, o);
    if (info !== undefined) return info.storedOffset;
    if (consumer.kind === 'group' && (await cmd.getGroup(this.#connection, stream, topic, String(consumer.id), o)) === undefined) {
      throw new NotFoundError(`consumer group ${String(consumer.id)} does not exist`, { context: { stream, topic, group: consumer.id } });
    }
    return undefined;
  }

  /** Deletes a stored offset: `true` when one was stored. */
  async deleteOffset(request: OffsetRequest): Promise<boolean> {
    const o = this.#begin(request);
    const { stream, topic } = this.#address(request);
    const partition = checkPartitionId(request.partition);
    const consumer = consumerOf(request.consumer);
    if (consumer.kind === 'group') {
      const owner = await this.#owner(stream, topic, String(consumer.id), partition, o);
      if (owner === undefined) throw this.#notOwned(String(consumer.id), partition);
      return owner.deleteOffset(partition, o);
    }
    try {
      await cmd.deleteOffset(this.#connection, consumer, stream, topic, partition, o);
      return true;
    } catch (error) {
      if (iggyCodeOf(error) === 3021) return false;
      throw error;
    }
  }

  /** Joins (creating when missing) a consumer group as a new member with its own connection. */
  async joinGroup(request: JoinGroupRequest): Promise<GroupMember> {
    const o = this.#begin(request);
    const { stream, topic } = this.#address(request);
    const group = checkName(request.group, 'group');
    // Fail fast (and typed) on an unknown topic before opening a connection for the member.
    await this.#topicDetails(stream, topic, o);
    const connection = await IggyConnection.open(this.#options, o.signal, this.#directory);
    const member = await IggyGroupMember.join(connection, { stream, topic, group }, o, (m) => this.#members.delete(m));
    if (this.#closed) {
      await member.leave();
      throw new ClosedError('the Iggy transport is closed');
    }
    this.#members.add(member);
    return member;
  }

  /** Closes the transport: members leave, pending calls and waits reject with `ClosedError`. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#stop.abort(new ClosedError('the Iggy transport is closed'));
    await Promise.all([...this.#members].map((m) => m.leave().catch(() => undefined)));
    await Promise.all(this.#connections.map((c) => c.close()));
  }
}
