/**
 * `MemoryLog`: the embedded implementation of {@link LogTransport}. No server, no I/O: the
 * default log for the demo, the examples and unit tests, and a faithful stand-in for Iggy's
 * semantics (0-based partitions, contiguous offsets, broker timestamps, keyed routing by XXH32,
 * round-robin balancing, consumer offsets, consumer groups, message expiry).
 */

import { systemLogClock, type LogClock } from './clock.js';
import {
  ClosedError,
  ConflictError,
  InvalidArgumentError,
  NotFoundError,
  TransportError,
} from './errors.js';
import { copyRecordHeaders, type RecordHeaders } from './headers.js';
import { EMPTY_HEADERS, isSealedHeaders } from './sealed-headers.js';
import { keyBytes, partitionForKey, partitionForKeySync, partitionForStringKeySync } from './key-routing.js';
import type {
  AppendRecord,
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
  newLogState,
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

  /** Creates the topic when missing; an existing one must have the same partition count and expiry. */
  async ensureTopic(address: TopicAddress, settings: TopicSettings, options: CallOptions = {}): Promise<TopicDescription> {
    this.#open(options.signal);
    checkRequest(address);
    checkRequest(settings);
    const topics = this.#state.streams.get(address.stream);
    if (topics === undefined) this.#topic(address.stream, address.topic);
    checkName(address.topic, 'topic');
    const partitions = checkPartitionCount(settings.partitions);
    const expiry = checkExpiry(settings.messageExpiryMicros);
    const existing = topics?.get(address.topic);
    if (existing !== undefined) {
      if (existing.partitions.length !== partitions || existing.expiry !== expiry) {
        throw new ConflictError(`topic ${JSON.stringify(address.topic)} exists with other settings`, {
          context: {
            stream: address.stream,
            topic: address.topic,
            partitions: existing.partitions.length,
            messageExpiryMicros: existing.expiry,
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
      balancedCursor: 0,
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

  /** The topic's partition count, per-partition next offset and expiry. */
  async describeTopic(address: TopicAddress, options: CallOptions = {}): Promise<TopicDescription> {
    this.#open(options.signal);
    checkRequest(address);
    return describe(this.#topic(address.stream, address.topic));
  }

  /** Appends a batch to one partition; the batch is all-or-nothing. */
  async append(request: AppendRequest): Promise<AppendResult> {
    checkRequest(request);
    this.#open(request.signal);
    const topic = this.#topic(request.stream, request.topic);
    const records = request.records;
    if (!Array.isArray(records) || records.length === 0) {
      throw new InvalidArgumentError('records must be a non-empty array');
    }
    const routing = request.routing;
    const count = topic.partitions.length;
    let partition: PartitionState;
    let balanced = false;
    if (routing === undefined) {
      balanced = true;
      partition = topic.partitions[topic.balancedCursor % count] as PartitionState;
    } else if (typeof routing !== 'object' || routing === null) {
      throw new InvalidArgumentError('routing must be { partition }, { key } or { balanced: true }');
    } else if ('partition' in routing) {
      partition = this.#partition(topic, routing.partition);
    } else if ('key' in routing) {
      const key = routing.key;
      let id = typeof key === 'string' ? partitionForStringKeySync(key, count) : undefined;
      const bytes = id === undefined ? keyBytes(key) : undefined;
      if (bytes !== undefined) id = partitionForKeySync(bytes, count);
      if (id === undefined) {
        id = await partitionForKey(bytes ?? keyBytes(key), count);
        this.#open(request.signal);
      }
      partition = topic.partitions[id] as PartitionState;
    } else if (routing.balanced === true) {
      balanced = true;
      partition = topic.partitions[topic.balancedCursor % count] as PartitionState;
    } else {
      throw new InvalidArgumentError('routing must be { partition }, { key } or { balanced: true }');
    }

    const now = this.#state.clock.nowMicros();
    if (topic.expiry !== undefined) dropExpired(topic, partition, now);
    const timestamp = now > partition.lastTimestamp ? now : partition.lastTimestamp;
    const stored = partition.records;
    const before = stored.length;
    const base = partition.next;
    const id = partition.id;
    try {
      // Validate everything first, then copy: one allocation holds every payload of the batch
      // and a header map repeated across the batch (a chunk stream's) is copied once, so a
      // 64-record batch costs a few allocations instead of a few hundred.
      let payloadBytes = 0;
      const inputs = new Array<Uint8Array>(records.length);
      for (let i = 0; i < records.length; i++) {
        const record = records[i];
        if (typeof record !== 'object' || record === null) throw new InvalidArgumentError('record must be an object');
        const payload = record.payload;
        if (!(payload instanceof Uint8Array) || payload.length === 0 || payload.length > MAX_PAYLOAD_BYTES) {
          throw new InvalidArgumentError(`payload must be a Uint8Array of 1..${MAX_PAYLOAD_BYTES} bytes`, {
            context: { index: i },
          });
        }
        inputs[i] = payload;
        payloadBytes += payload.length;
      }
      // Immutable payloads are kept as they are; others are copied, into one allocation per batch.
      const keep = request.payloadsImmutable === true;
      const payloads = keep ? undefined : this.#state.payloads.take(payloadBytes);
      let at = 0;
      let lastInput: RecordHeaders | undefined;
      let lastCopy: RecordHeaders = EMPTY_HEADERS;
      for (let i = 0; i < records.length; i++) {
        const input = (records[i] as AppendRecord).headers;
        let headers: RecordHeaders;
        if (input === undefined) headers = EMPTY_HEADERS;
        else if (input === lastInput) headers = lastCopy;
        else if (isSealedHeaders(input)) headers = input;
        else {
          headers = lastCopy = copyRecordHeaders(input);
          lastInput = input;
        }
        let payload = inputs[i] as Uint8Array;
        if (payloads !== undefined) {
          payloads.set(payload, at);
          payload = payloads.subarray(at, at + payload.length);
          at += payload.length;
        } else if (payload.constructor !== Uint8Array) {
          payload = new Uint8Array(payload.buffer, payload.byteOffset, payload.length); // a Buffer: store a plain view
        }
        stored.push({ partition: id, offset: BigInt(base + i), timestampMicros: timestamp, headers, payload });
      }
    } catch (error) {
      stored.length = before;
      if (TransportError.is(error)) throw error;
      throw new InvalidArgumentError('a record could not be read', { cause: error });
    }
    partition.next = base + records.length;
    partition.lastTimestamp = timestamp;
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
    const topic = this.#topic(request.stream, request.topic);
    const partition = this.#partition(topic, request.partition);
    const offset = checkOffset(request.offset);
    const max = checkMaxCount(request.maxCount);
    this.#expire(topic, partition);
    return sliceFrom(partition, offset, max);
  }

  /** Records of one partition from the first stored at or after a broker timestamp. */
  async readFromTimestamp(request: ReadFromTimestampRequest): Promise<readonly LogRecord[]> {
    checkRequest(request);
    this.#open(request.signal);
    const topic = this.#topic(request.stream, request.topic);
    const partition = this.#partition(topic, request.partition);
    const at = request.timestampMicros;
    if (typeof at !== 'bigint' || at < 0n) throw new InvalidArgumentError('timestampMicros must be a non-negative bigint');
    const max = checkMaxCount(request.maxCount);
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
    const topic = this.#topic(request.stream, request.topic);
    const partition = this.#partition(topic, request.partition);
    const target = position(checkOffset(request.offset));
    const timeoutMs = checkTimeout(request.timeoutMs);
    return waitUntil(() => partition.next > target, [partition.waiters], this.#waiters, timeoutMs, request.signal);
  }

  /** Stores a consumer offset; group offsets need a member of this connection owning the partition. */
  async storeOffset(request: StoreOffsetRequest): Promise<void> {
    checkRequest(request);
    this.#open(request.signal);
    const topic = this.#topic(request.stream, request.topic);
    const partition = this.#partition(topic, request.partition);
    const consumer = checkConsumer(request.consumer);
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
    const topic = this.#topic(request.stream, request.topic);
    const partition = this.#partition(topic, request.partition);
    const consumer = checkConsumer(request.consumer);
    if (consumer.kind === 'consumer') return topic.consumerOffsets.get(consumer.name)?.get(partition.id);
    return groupOf(topic, consumer.name).offsets.get(partition.id);
  }

  /** Deletes a stored offset; `true` when one was stored. */
  async deleteOffset(request: OffsetRequest): Promise<boolean> {
    checkRequest(request);
    this.#open(request.signal);
    const topic = this.#topic(request.stream, request.topic);
    const partition = this.#partition(topic, request.partition);
    const consumer = checkConsumer(request.consumer);
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
    const topic = this.#topic(request.stream, request.topic);
    const name = checkName(request.group, 'group');
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
    const state = this.#topic.partitions[partition];
    if (state === undefined) throw new NotFoundError(`partition ${partition} does not exist`, { context: { partition } });
    if (!this.#state.partitions.includes(partition)) {
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

  async leave(options: CallOptions = {}): Promise<void> {
    if (this.#left) return;
    checkSignal(options.signal);
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
