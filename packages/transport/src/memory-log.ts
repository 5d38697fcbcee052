/**
 * `MemoryLog`: the embedded implementation of {@link LogTransport}. No server, no I/O: the
 * default log for the demo, the examples and unit tests, and a faithful stand-in for Iggy's
 * semantics (0-based partitions, contiguous offsets, broker timestamps, keyed routing by XXH32,
 * round-robin balancing, consumer offsets, consumer groups, message expiry, topic size limits).
 */

import { systemLogClock, type LogClock } from './clock.js';
import {
  ClosedError,
  ConflictError,
  InvalidArgumentError,
  NotFoundError,
  TransportError,
} from './errors.js';
import { copyRecordHeaders, headerBlockBytes, type RecordHeaders } from './headers.js';
import { batchRecordBytes, checkBatchBytes, MAX_BATCH_BYTES } from './batch-limit.js';
import { EMPTY_HEADERS, isSealedHeaders } from './sealed-headers.js';
import { routingKeyHash } from './key-routing.js';
import { partitionShareBytes, RETAINED_RECORD_OVERHEAD_BYTES } from './retention.js';
import type {
  AppendRequest,
  AppendResult,
  CallOptions,
  ConsumerRef,
  GroupMember,
  GroupPollOptions,
  GroupPollResult,
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
} from './log-transport.js';
import {
  dropExpired,
  dropOversized,
  newLogState,
  newPayloadSlab,
  newPartition,
  rebalance,
  type GroupState,
  type LogState,
  type MemberState,
  type PartitionState,
  type TopicState,
} from './memory-log-state.js';
import {
  checkExpiry,
  checkMaxCount,
  checkMaxTopicBytes,
  checkName,
  checkOffset,
  checkPartitionCount,
  checkPartitionId,
  checkSignal,
  checkTimeout,
  MAX_PAYLOAD_BYTES,
} from './validation.js';
import { wakeAll, waitUntil, WaitRegistry } from './waiter.js';

/** Options for a new {@link MemoryLog}. */
export interface MemoryLogOptions {
  /** Source of broker timestamps (default {@link systemLogClock}); inject one to test expiry. */
  readonly clock?: LogClock | undefined;
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

function checkRequest(request: unknown): void {
  if (typeof request !== 'object' || request === null) throw new InvalidArgumentError('request must be an object');
}

function checkConsumer(consumer: ConsumerRef): ConsumerRef {
  if (typeof consumer !== 'object' || consumer === null || (consumer.kind !== 'consumer' && consumer.kind !== 'group')) {
    throw new InvalidArgumentError("consumer must be { kind: 'consumer' | 'group', name }");
  }
  checkName(consumer.name, consumer.kind);
  return consumer;
}

/** An offset as a number for comparisons with in-memory positions (huge values saturate). */
function position(offset: bigint): number {
  return offset > MAX_SAFE ? Number.MAX_SAFE_INTEGER : Number(offset);
}

function describe(topic: TopicState): TopicDescription {
  return {
    stream: topic.stream,
    topic: topic.name,
    partitionCount: topic.partitions.length,
    messageExpiryMicros: topic.expiry,
    maxTopicBytes: topic.maxBytes,
    partitions: topic.partitions.map((p) => ({ partition: p.id, nextOffset: BigInt(p.next) })),
    createdAtMicros: topic.createdAtMicros,
  };
}

/**
 * The embedded log. One instance is one connection; {@link MemoryLog.connect} opens another
 * connection to the same data (as a second client of one server would), which is how offsets are
 * shown to survive a reconnect and how separate agents get separate group memberships.
 *
 * Safe under concurrent use from many agents in one process: every call validates first and then
 * applies its change synchronously, so interleaved calls never see a half-written batch.
 * Returned records are shared with the log: treat them as read-only.
 */
export class MemoryLog implements LogTransport {
  #state: LogState;
  #closed = false;
  readonly #waiters = new WaitRegistry();
  readonly #members = new Set<MemoryGroupMember>();

  /** Creates an empty log and returns the first connection to it. */
  constructor(options: MemoryLogOptions = {}) {
    this.#state = newLogState(options.clock ?? systemLogClock);
  }

  /** A new connection to the same log data (streams, records, offsets, groups). */
  connect(): MemoryLog {
    const connection = new MemoryLog();
    connection.#state = this.#state;
    return connection;
  }

  /** True once {@link MemoryLog.close} was called on this connection. */
  get closed(): boolean {
    return this.#closed;
  }

  #open(signal: AbortSignal | undefined): void {
    if (this.#closed) throw new ClosedError('the transport is closed');
    checkSignal(signal);
  }

  #topic(stream: string, topic: string): TopicState {
    const topics = this.#state.streams.get(stream);
    if (topics === undefined) {
      checkName(stream, 'stream');
      throw new NotFoundError(`stream ${JSON.stringify(stream)} does not exist`, { context: { stream } });
    }
    const found = topics.get(topic);
    if (found === undefined) {
      checkName(topic, 'topic');
      throw new NotFoundError(`topic ${JSON.stringify(topic)} does not exist in stream ${JSON.stringify(stream)}`, {
        context: { stream, topic },
      });
    }
    return found;
  }

  #partition(topic: TopicState, id: number): PartitionState {
    const found = typeof id === 'number' ? topic.partitions[id] : undefined;
    if (found === undefined) {
      checkPartitionId(id);
      throw new NotFoundError(`partition ${id} does not exist in topic ${JSON.stringify(topic.name)}`, {
        context: { stream: topic.stream, topic: topic.name, partition: id },
      });
    }
    return found;
  }

  #expire(topic: TopicState, partition: PartitionState): void {
    if (topic.expiry !== undefined) dropExpired(topic, partition, this.#state.clock.nowMicros());
  }

  /** Creates the stream when missing; idempotent. */
  async ensureStream(stream: string, options: CallOptions = {}): Promise<void> {
    this.#open(options.signal);
    checkName(stream, 'stream');
    if (!this.#state.streams.has(stream)) this.#state.streams.set(stream, new Map());
  }

  /**
   * Creates the topic when missing; an existing one must have the same partition count, expiry
   * and size limit.
   */
  async ensureTopic(address: TopicAddress, settings: TopicSettings, options: CallOptions = {}): Promise<TopicDescription> {
    this.#open(options.signal);
    checkRequest(address);
    checkRequest(settings);
    checkName(address.stream, 'stream');
    checkName(address.topic, 'topic');
    const partitions = checkPartitionCount(settings.partitions);
    const expiry = checkExpiry(settings.messageExpiryMicros);
    const maxBytes = checkMaxTopicBytes(settings.maxTopicBytes);
    const topics = this.#state.streams.get(address.stream);
    if (topics === undefined) this.#topic(address.stream, address.topic);
    const existing = topics?.get(address.topic);
    if (existing !== undefined) {
      if (existing.partitions.length !== partitions || existing.expiry !== expiry || existing.maxBytes !== maxBytes) {
        throw new ConflictError(`topic ${JSON.stringify(address.topic)} exists with other settings`, {
          context: {
            stream: address.stream,
            topic: address.topic,
            partitions: existing.partitions.length,
            messageExpiryMicros: existing.expiry,
            maxTopicBytes: existing.maxBytes,
          },
        });
      }
      return describe(existing);
    }
    const created: TopicState = {
      stream: address.stream,
      name: address.topic,
      partitions: Array.from({ length: partitions }, (_, id) => newPartition(id)),
      expiry,
      maxBytes,
      shareBytes: maxBytes === undefined ? 0 : partitionShareBytes(maxBytes, partitions),
      balancedCursor: 0,
      payloads: newPayloadSlab(),
      consumerOffsets: new Map(),
      groups: new Map(),
      createdAtMicros: this.#nextGeneration(),
    };
    topics?.set(address.topic, created);
    return describe(created);
  }

  // A manual clock may stand still between two creations; the generation must still change.
  #nextGeneration(): bigint {
    const now = this.#state.clock.nowMicros();
    const generation = now > this.#state.lastCreatedMicros ? now : this.#state.lastCreatedMicros + 1n;
    this.#state.lastCreatedMicros = generation;
    return generation;
  }

  /**
   * Deletes a topic with its records, stored offsets and groups (as Iggy's delete topic does).
   * Waiting polls of the topic wake up empty. A topic created again under the same name starts
   * at offset 0 with a new `createdAtMicros`.
   * @throws NotFoundError when the stream or topic does not exist.
   */
  async deleteTopic(address: TopicAddress, options: CallOptions = {}): Promise<void> {
    this.#open(options.signal);
    checkRequest(address);
    const topic = this.#topic(address.stream, address.topic);
    this.#state.streams.get(address.stream)?.delete(address.topic);
    for (const partition of topic.partitions) for (const waiter of partition.waiters) waiter.settle(false);
    for (const group of topic.groups.values()) for (const member of group.members) for (const waiter of member.waiters) waiter.settle(false);
  }

  /** The topic's partition count, per-partition next offset, expiry and size limit. */
  async describeTopic(address: TopicAddress, options: CallOptions = {}): Promise<TopicDescription> {
    this.#open(options.signal);
    checkRequest(address);
    return describe(this.#topic(address.stream, address.topic));
  }

  /**
   * Appends a batch to one partition; the batch is all-or-nothing. Every argument is checked
   * before the topic is looked up, as a network transport checks them before sending, so a bad
   * batch is `invalid` whether or not its topic exists.
   */
  async append(request: AppendRequest): Promise<AppendResult> {
    checkRequest(request);
    this.#open(request.signal);
    // Looked up now, but a missing topic (or a bad name) is reported only after every other
    // argument passed; looking up first spares the hot path the name checks.
    const found = this.#state.streams.get(request.stream)?.get(request.topic);
    const records = request.records;
    if (!Array.isArray(records) || records.length === 0) {
      throw new InvalidArgumentError('records must be a non-empty array');
    }
    // Validate and copy the headers and measure the batch before anything is stored: a header
    // map repeated across the batch (a chunk stream's) is copied and measured once.
    const inputs = new Array<Uint8Array>(records.length);
    // Made only for a batch with headers: most batches have none.
    let headers: RecordHeaders[] | undefined;
    let payloadBytes = 0;
    let batchBytes = 0;
    let headerTotal = 0;
    try {
      let lastInput: RecordHeaders | undefined;
      let lastCopy: RecordHeaders = EMPTY_HEADERS;
      let lastBytes = 0;
      for (let i = 0; i < records.length; i++) {
        const record = records[i];
        if (typeof record !== 'object' || record === null) throw new InvalidArgumentError('record must be an object');
        const payload = record.payload;
        if (!(payload instanceof Uint8Array) || payload.length === 0 || payload.length > MAX_PAYLOAD_BYTES) {
          throw new InvalidArgumentError(`payload must be a Uint8Array of 1..${MAX_PAYLOAD_BYTES} bytes`, {
            context: { index: i },
          });
        }
        const input = record.headers;
        let headerBytes = 0;
        if (input !== undefined) {
          if (input !== lastInput) {
            lastCopy = isSealedHeaders(input) ? input : copyRecordHeaders(input);
            lastInput = input;
            lastBytes = headerBlockBytes(lastCopy);
          }
          headerBytes = lastBytes;
          headerTotal += lastBytes;
          headers ??= new Array<RecordHeaders>(records.length).fill(EMPTY_HEADERS);
          headers[i] = lastCopy;
        }
        inputs[i] = payload;
        payloadBytes += payload.length;
        batchBytes += batchRecordBytes(payload.length, headerBytes);
        if (batchBytes > MAX_BATCH_BYTES) checkBatchBytes(batchBytes, i);
      }
    } catch (error) {
      if (TransportError.is(error)) throw error;
      throw new InvalidArgumentError('a record could not be read', { cause: error });
    }
    // The routing's form (and a key's hash) is checked before the lookup too.
    const routing = request.routing;
    let partitionId: number | undefined;
    let keyHash: number | undefined;
    if (routing === undefined) {
      // balanced
    } else if (typeof routing !== 'object' || routing === null) {
      throw new InvalidArgumentError('routing must be { partition }, { key } or { balanced: true }');
    } else if ('partition' in routing) partitionId = checkPartitionId(routing.partition);
    else if ('key' in routing) keyHash = routingKeyHash(routing.key);
    else if (routing.balanced !== true) {
      throw new InvalidArgumentError('routing must be { partition }, { key } or { balanced: true }');
    }

    const topic = found ?? this.#topic(request.stream, request.topic);
    const count = topic.partitions.length;
    const balanced = partitionId === undefined && keyHash === undefined;
    let partition: PartitionState;
    if (partitionId !== undefined) partition = this.#partition(topic, partitionId);
    else if (keyHash !== undefined) partition = topic.partitions[keyHash % count] as PartitionState;
    else partition = topic.partitions[topic.balancedCursor % count] as PartitionState;

    const now = this.#state.clock.nowMicros();
    if (topic.expiry !== undefined) dropExpired(topic, partition, now);
    const timestamp = now > partition.lastTimestamp ? now : partition.lastTimestamp;
    const stored = partition.records;
    const base = partition.next;
    const id = partition.id;
    // Immutable payloads are kept as they are; others are copied, into one allocation per batch,
    // so a 64-record batch costs a few allocations instead of a few hundred.
    const payloads = request.payloadsImmutable === true ? undefined : topic.payloads.take(payloadBytes);
    let at = 0;
    for (let i = 0; i < records.length; i++) {
      let payload = inputs[i] as Uint8Array;
      if (payloads !== undefined) {
        payloads.set(payload, at);
        payload = payloads.subarray(at, at + payload.length);
        at += payload.length;
      } else if (payload.constructor !== Uint8Array) {
        payload = new Uint8Array(payload.buffer, payload.byteOffset, payload.length); // a Buffer: store a plain view
      }
      stored.push({ partition: id, offset: BigInt(base + i), timestampMicros: timestamp, headers: headers === undefined ? EMPTY_HEADERS : (headers[i] as RecordHeaders), payload });
    }
    partition.next = base + records.length;
    partition.lastTimestamp = timestamp;
    if (topic.maxBytes !== undefined) {
      partition.bytes += payloadBytes + headerTotal + RETAINED_RECORD_OVERHEAD_BYTES * records.length;
      dropOversized(topic, partition);
    }
    if (balanced) topic.balancedCursor = (id + 1) % count;
    // Called with no waiters too (it returns at once): behind an `if (size > 0)` the call had no
    // type feedback when `append` was optimized, and on Node 20 the optimized code then bailed out
    // at it whenever a waiter was present, without being replaced: about 6,000 deopts in one
    // agents-roundtrip run (`node --trace-deopt`), none with the call made every time.
    wakeAll(partition.waiters);
    return { partition: id, baseOffset: BigInt(base), count: records.length };
  }

  /** Records of one partition from an offset (expired ones skipped). */
  async read(request: ReadRequest): Promise<readonly LogRecord[]> {
    checkRequest(request);
    this.#open(request.signal);
    checkPartitionId(request.partition);
    const offset = checkOffset(request.offset);
    const max = checkMaxCount(request.maxCount);
    const topic = this.#topic(request.stream, request.topic);
    const partition = this.#partition(topic, request.partition);
    this.#expire(topic, partition);
    return sliceFrom(partition, offset, max);
  }

  /** Records of one partition from the first stored at or after a broker timestamp. */
  async readFromTimestamp(request: ReadFromTimestampRequest): Promise<readonly LogRecord[]> {
    checkRequest(request);
    this.#open(request.signal);
    checkPartitionId(request.partition);
    // A u64 on the wire, so a network transport cannot send more: refused here alike.
    const at = checkOffset(request.timestampMicros, 'timestampMicros');
    const max = checkMaxCount(request.maxCount);
    const topic = this.#topic(request.stream, request.topic);
    const partition = this.#partition(topic, request.partition);
    this.#expire(topic, partition);
    const records = partition.records;
    let low = partition.start;
    let high = records.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if ((records[mid] as LogRecord).timestampMicros < at) low = mid + 1;
      else high = mid;
    }
    return max === 0 ? [] : records.slice(low, Math.min(low + max, records.length));
  }

  /** Waits, woken by appends, until the partition holds a record at `offset` or later. */
  async waitFor(request: WaitRequest): Promise<boolean> {
    checkRequest(request);
    this.#open(request.signal);
    checkPartitionId(request.partition);
    const target = position(checkOffset(request.offset));
    const timeoutMs = checkTimeout(request.timeoutMs);
    const topic = this.#topic(request.stream, request.topic);
    const partition = this.#partition(topic, request.partition);
    return waitUntil(() => partition.next > target, [partition.waiters], this.#waiters, timeoutMs, request.signal);
  }

  /** Stores a consumer offset; group offsets need a member of this connection owning the partition. */
  async storeOffset(request: StoreOffsetRequest): Promise<void> {
    checkRequest(request);
    this.#open(request.signal);
    checkPartitionId(request.partition);
    checkOffset(request.offset);
    const consumer = checkConsumer(request.consumer);
    const topic = this.#topic(request.stream, request.topic);
    const partition = this.#partition(topic, request.partition);
    const offset = checkStorableOffset(partition, request.offset);
    if (consumer.kind === 'consumer') {
      let offsets = topic.consumerOffsets.get(consumer.name);
      if (offsets === undefined) topic.consumerOffsets.set(consumer.name, (offsets = new Map()));
      offsets.set(partition.id, offset);
    } else {
      this.#ownedGroup(topic, consumer.name, partition.id).offsets.set(partition.id, offset);
    }
  }

  /** The stored offset, or `undefined`. */
  async getOffset(request: OffsetRequest): Promise<bigint | undefined> {
    checkRequest(request);
    this.#open(request.signal);
    checkPartitionId(request.partition);
    const consumer = checkConsumer(request.consumer);
    const topic = this.#topic(request.stream, request.topic);
    const partition = this.#partition(topic, request.partition);
    if (consumer.kind === 'consumer') return topic.consumerOffsets.get(consumer.name)?.get(partition.id);
    return groupOf(topic, consumer.name).offsets.get(partition.id);
  }

  /** Deletes a stored offset; `true` when one was stored. */
  async deleteOffset(request: OffsetRequest): Promise<boolean> {
    checkRequest(request);
    this.#open(request.signal);
    checkPartitionId(request.partition);
    const consumer = checkConsumer(request.consumer);
    const topic = this.#topic(request.stream, request.topic);
    const partition = this.#partition(topic, request.partition);
    if (consumer.kind === 'consumer') return topic.consumerOffsets.get(consumer.name)?.delete(partition.id) ?? false;
    return this.#ownedGroup(topic, consumer.name, partition.id).offsets.delete(partition.id);
  }

  #ownedGroup(topic: TopicState, name: string, partition: number): GroupState {
    const group = groupOf(topic, name);
    for (const member of this.#members) {
      if (member.owns(group, partition)) return group;
    }
    throw new ConflictError(`no member of group ${JSON.stringify(name)} on this connection owns partition ${partition}`, {
      context: { group: name, partition },
    });
  }

  /**
   * Joins (creating when missing) a consumer group as a new member. Assignment rule: members in
   * join order, partition `i` goes to member `i mod M`; every join and leave reassigns.
   */
  async joinGroup(request: JoinGroupRequest): Promise<GroupMember> {
    checkRequest(request);
    this.#open(request.signal);
    const name = checkName(request.group, 'group');
    const topic = this.#topic(request.stream, request.topic);
    let group = topic.groups.get(name);
    if (group === undefined) {
      group = { name, members: [], nextMemberId: 0, offsets: new Map() };
      topic.groups.set(name, group);
    }
    const state: MemberState = { id: group.nextMemberId++, partitions: [], cursor: 0, waiters: new Set() };
    group.members.push(state);
    rebalance(topic, group);
    const member: MemoryGroupMember = new MemoryGroupMember(topic, group, state, {
      open: (signal) => this.#open(signal),
      expire: (t, p) => this.#expire(t, p),
      forget: () => this.#members.delete(member),
      live: (t) => this.#state.streams.get(t.stream)?.get(t.name) === t,
      waiters: this.#waiters,
    });
    this.#members.add(member);
    return member;
  }

  /** Closes this connection: later calls and pending waits reject with `ClosedError`; its members leave. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const member of [...this.#members]) member.depart();
    const closed = new ClosedError('the transport was closed');
    this.#waiters.settleAll(closed);
  }

}

function groupOf(topic: TopicState, name: string): GroupState {
  checkName(name, 'group');
  const group = topic.groups.get(name);
  if (group === undefined) {
    throw new NotFoundError(`consumer group ${JSON.stringify(name)} does not exist`, {
      context: { stream: topic.stream, topic: topic.name, group: name },
    });
  }
  return group;
}

function checkStorableOffset(partition: PartitionState, offset: bigint): bigint {
  checkOffset(offset);
  if (offset >= BigInt(partition.next)) {
    throw new InvalidArgumentError(`offset ${offset} is past the last record of partition ${partition.id}`, {
      context: { partition: partition.id, offset: String(offset), nextOffset: String(partition.next) },
    });
  }
  return offset;
}

function sliceFrom(partition: PartitionState, offset: bigint, max: number): LogRecord[] {
  if (max === 0 || offset >= BigInt(partition.next)) return [];
  let index = Number(offset) - partition.base;
  if (index < partition.start) index = partition.start;
  return partition.records.slice(index, Math.min(index + max, partition.records.length));
}

/** What a member needs from the connection that created it. */
interface ConnectionHooks {
  /** Throws when the connection is closed or the signal fired. */
  readonly open: (signal: AbortSignal | undefined) => void;
  /** Applies expiry to a partition before reading it. */
  readonly expire: (topic: TopicState, partition: PartitionState) => void;
  /** Removes the member from the connection's set. */
  readonly forget: () => void;
  /** False once the topic was deleted (even if one of the same name was created since). */
  readonly live: (topic: TopicState) => boolean;
  /** The connection's pending waits, rejected when it closes. */
  readonly waiters: WaitRegistry;
}

/** A group member of a {@link MemoryLog} connection. */
class MemoryGroupMember implements GroupMember {
  readonly group: string;
  readonly memberId: string;
  readonly #topic: TopicState;
  readonly #group: GroupState;
  readonly #state: MemberState;
  readonly #hooks: ConnectionHooks;
  #left = false;

  constructor(topic: TopicState, group: GroupState, state: MemberState, hooks: ConnectionHooks) {
    this.#topic = topic;
    this.#group = group;
    this.#state = state;
    this.#hooks = hooks;
    this.group = group.name;
    this.memberId = String(state.id);
  }

  #open(signal: AbortSignal | undefined): void {
    this.#hooks.open(signal);
    if (this.#left) throw new ClosedError(`member ${this.memberId} has left group ${JSON.stringify(this.group)}`);
    // The member holds the topic it joined; once that is deleted, polls and commits into it
    // would answer from (and store into) a topic no one else can see. Iggy answers not-found.
    if (!this.#hooks.live(this.#topic)) {
      const topic = this.#topic;
      throw new NotFoundError(`topic ${JSON.stringify(topic.name)} of group ${JSON.stringify(this.group)} was deleted`, {
        context: { stream: topic.stream, topic: topic.name, group: this.group },
      });
    }
  }

  owns(group: GroupState, partition: number): boolean {
    return !this.#left && this.#group === group && this.#state.partitions.includes(partition);
  }

  async assignment(options: CallOptions = {}): Promise<readonly number[]> {
    this.#open(options.signal);
    return [...this.#state.partitions];
  }

  async poll(options: GroupPollOptions = {}): Promise<GroupPollResult> {
    this.#open(options.signal);
    const max = checkMaxCount(options.maxCount);
    const owned = this.#state.partitions;
    for (let k = 0; k < owned.length && max > 0; k++) {
      const index = (this.#state.cursor + k) % owned.length;
      const partition = this.#topic.partitions[owned[index] as number] as PartitionState;
      this.#hooks.expire(this.#topic, partition);
      const stored = this.#group.offsets.get(partition.id);
      const records = sliceFrom(partition, stored === undefined ? 0n : stored + 1n, max);
      if (records.length > 0) {
        this.#state.cursor = (index + 1) % owned.length;
        if (options.autoCommit === true) this.#group.offsets.set(partition.id, (records[records.length - 1] as LogRecord).offset);
        return { partition: partition.id, records };
      }
    }
    return { partition: undefined, records: [] };
  }

  async commit(partition: number, offset: bigint, options: CallOptions = {}): Promise<void> {
    this.#open(options.signal);
    checkPartitionId(partition);
    checkOffset(offset);
    // A partition the topic lacks is one the member does not own: a conflict, as Iggy answers.
    const state = this.#topic.partitions[partition];
    if (state === undefined || !this.#state.partitions.includes(partition)) {
      throw new ConflictError(`member ${this.memberId} does not own partition ${partition}`, {
        context: { group: this.group, partition },
      });
    }
    this.#group.offsets.set(partition, checkStorableOffset(state, offset));
  }

  async waitFor(timeoutMs: number, options: CallOptions = {}): Promise<boolean> {
    this.#open(options.signal);
    const timeout = checkTimeout(timeoutMs);
    const partitions = this.#state.partitions.map((id) => this.#topic.partitions[id] as PartitionState);
    const ready = (): boolean => {
      for (const partition of partitions) {
        const stored = this.#group.offsets.get(partition.id);
        if (partition.next > (stored === undefined ? 0 : position(stored) + 1)) return true;
      }
      return false;
    };
    const sets = [this.#state.waiters, ...partitions.map((p) => p.waiters)];
    return waitUntil(ready, sets, this.#hooks.waiters, timeout, options.signal);
  }

  /**
   * Leaves at once, whatever the signal says: leaving is the clean-up a caller runs when its work
   * was aborted (often with that same signal), and a member that stayed would hold its partitions
   * from the rest of the group for good. Over Iggy a leave likewise always ends the membership.
   */
  async leave(_options: CallOptions = {}): Promise<void> {
    this.depart();
  }

  /** Leaves without checks (also used when the connection closes). */
  depart(): void {
    if (this.#left) return;
    this.#left = true;
    this.#hooks.forget();
    this.#group.members = this.#group.members.filter((m) => m !== this.#state);
    rebalance(this.#topic, this.#group);
    this.#state.partitions = [];
    const left = new ClosedError(`member ${this.memberId} left group ${JSON.stringify(this.group)}`);
    for (const waiter of [...this.#state.waiters]) waiter.settle(left);
  }
}
