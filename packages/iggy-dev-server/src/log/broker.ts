/**
 * The broker: streams, topics, partitions, consumer groups and stored offsets of one node, with
 * Iggy's rules and error codes. It knows nothing of sockets or protocols: the command layer
 * decodes requests, calls it, and encodes what it returns. Refusals are thrown as `IggyError`
 * with the status code the real server uses.
 */

import { EXPIRY_NEVER, IggyError, SIZE_UNLIMITED, decodeOptions, encodeOptions, partitionForKey } from '@agdx/iggy-protocol';
import type { HeaderValue, Identifier, Partitioning } from '@agdx/iggy-protocol';
import type { ServerClock } from '../clock.js';
import type { MetadataSnapshot, StreamSnapshot, TopicSnapshot } from '../storage/metadata.js';
import type { Storage } from '../storage/storage.js';
import { ConsumerGroupState } from './consumer-group.js';
import type { GroupMemberState } from './consumer-group.js';
import type { BatchSlice } from './partition-log.js';
import { PartitionLog } from './partition-log.js';
import { MAX_CONSUMER_GROUPS, MAX_STREAMS, MAX_TOPICS, MAX_TOTAL_PARTITIONS, countResources } from './resource-limits.js';

/** Iggy error codes the broker raises. */
export const Status = {
  Error: 1,
  InvalidCommand: 3,
  InvalidFormat: 4,
  FeatureUnavailable: 5,
  StreamNotFound: 1009,
  StreamNameExists: 1012,
  TooManyStreams: 1020,
  TopicNotFound: 2010,
  TopicNameExists: 2013,
  TooManyPartitions: 2015,
  InvalidPartitionsCount: 2019,
  TooManyTopics: 2021,
  PartitionNotFound: 3007,
  ConsumerOffsetNotFound: 3021,
  InvalidMessagesCount: 4009,
  UnsupportedOptionKey: 4041,
  InvalidOptionValue: 4042,
  InvalidOffset: 4100,
  GroupNotFound: 5000,
  GroupNameExists: 5004,
  GroupMemberNotFound: 5006,
  GroupPartitionNotOwned: 5009,
} as const;

/** Most partitions one request may add (Iggy's `MAX_PARTITIONS_PER_REQUEST`), and this server's cap per topic. */
export const MAX_PARTITIONS = 1000;
const KNOWN_TOPIC_OPTIONS = new Set(['segment_size', 'enforce_fsync', 'messages_required_to_save', 'size_of_messages_required_to_save', 'preallocate_segments']);
const CANONICAL_TOPIC_OPTIONS = new Set(['message_expiry', 'max_topic_size', 'compression_algorithm']);

/** Who is asking: a consumer (by key) or a group member (by connection). */
export type OffsetOwner = { readonly kind: 'consumer'; readonly id: Identifier } | { readonly kind: 'group'; readonly id: Identifier };

/** A topic. */
export class TopicState {
  /** 0-based id, unique in the stream. */
  readonly id: number;
  /** Name, unique in the stream. */
  name: string;
  /** Creation time, µs. */
  readonly createdAt: bigint;
  /** Partitions by id. */
  readonly partitions: PartitionLog[] = [];
  /** µs; {@link EXPIRY_NEVER} = never. */
  messageExpiry: bigint;
  /** Bytes; {@link SIZE_UNLIMITED} = unlimited (applied at each append, see {@link TopicState.trim}). */
  maxTopicSize: bigint;
  /** Compression code (recorded, not applied). */
  compression: number;
  /** Classic replication factor (recorded). */
  replicationFactor: number;
  /** The VSR options the client set explicitly, beyond the canonical three. */
  options: Map<string, HeaderValue>;
  /** Which canonical settings the client gave explicitly (the rest are server defaults). */
  readonly explicit: Set<string> = new Set();
  /** Consumer groups by id. */
  readonly groups: Map<number, ConsumerGroupState> = new Map();
  /** Next group id. */
  nextGroupId = 0;
  /** The balanced-routing round-robin counter. */
  balanced = 0;
  /** Single-consumer offsets: partition → consumer key → offset. */
  readonly consumerOffsets: Map<number, Map<string, bigint>> = new Map();

  constructor(id: number, name: string, createdAt: bigint, settings: TopicSettingsInput) {
    this.id = id;
    this.name = name;
    this.createdAt = createdAt;
    this.messageExpiry = normalizeExpiry(settings.messageExpiry);
    this.maxTopicSize = normalizeSize(settings.maxTopicSize);
    this.compression = settings.compression ?? 1;
    this.replicationFactor = settings.replicationFactor === undefined || settings.replicationFactor === 0 ? 1 : settings.replicationFactor;
    this.options = new Map(settings.options ?? []);
    this.markExplicit(settings);
  }

  /** Records which canonical settings were given. */
  markExplicit(settings: TopicSettingsInput): void {
    if (settings.messageExpiry !== undefined) this.explicit.add('message_expiry');
    if (settings.maxTopicSize !== undefined) this.explicit.add('max_topic_size');
    if (settings.compression !== undefined) this.explicit.add('compression_algorithm');
  }

  /** Drops what expired (µs clock `now`). */
  expire(now: bigint): void {
    if (this.messageExpiry === EXPIRY_NEVER) return;
    const cutoff = now - this.messageExpiry;
    for (const p of this.partitions) p.expire(cutoff);
  }

  /**
   * Applies `max_topic_size` to a partition just appended to: as Iggy's segment cleaner, each
   * partition keeps an equal share (`max_topic_size / partitions`) and trims only itself. Iggy
   * trims on a timer; this server at the append that passed the share, so a client sees the
   * same state every time.
   */
  trim(p: PartitionLog): void {
    if (this.maxTopicSize === SIZE_UNLIMITED) return;
    p.trimToSize(this.maxTopicSize / BigInt(this.partitions.length));
  }

  /** Bytes stored. */
  get sizeBytes(): bigint {
    return this.partitions.reduce((n, p) => n + p.sizeBytes, 0n);
  }

  /** Messages stored. */
  get messagesCount(): bigint {
    return this.partitions.reduce((n, p) => n + p.messagesCount, 0n);
  }
}

/** A stream. */
export class StreamState {
  /** 0-based id. */
  readonly id: number;
  /** Name, unique on the server. */
  name: string;
  /** Creation time, µs. */
  readonly createdAt: bigint;
  /** Topics by id. */
  readonly topics: Map<number, TopicState> = new Map();

  constructor(id: number, name: string, createdAt: bigint) {
    this.id = id;
    this.name = name;
    this.createdAt = createdAt;
  }
}

/** Topic settings as the command layer hands them over. */
export interface TopicSettingsInput {
  /** µs; 0 or absent = never. */
  readonly messageExpiry?: bigint | undefined;
  /** Bytes; 0 or absent = unlimited. */
  readonly maxTopicSize?: bigint | undefined;
  /** 1 = none, 2 = gzip. */
  readonly compression?: number | undefined;
  /** Classic replication factor (0 = 1). */
  readonly replicationFactor?: number | undefined;
  /** VSR options beyond the canonical three. */
  readonly options?: ReadonlyMap<string, HeaderValue> | undefined;
}

function normalizeExpiry(v: bigint | undefined): bigint {
  return v === undefined || v === 0n ? EXPIRY_NEVER : v;
}

function normalizeSize(v: bigint | undefined): bigint {
  return v === undefined || v === 0n ? SIZE_UNLIMITED : v;
}

function consumerKey(id: Identifier): string {
  return typeof id === 'number' ? `n${id}` : `s${id}`;
}

/**
 * The id a new stream or topic gets: the lowest one not in use, as Iggy 0.9's id slab hands
 * out, so a deleted id is taken again by the next create. It depends only on the ids present,
 * so it is the same after a restart.
 */
export function lowestFreeId(used: ReadonlyMap<number, unknown>): number {
  let id = 0;
  while (used.has(id)) id++;
  return id;
}

/**
 * What a poll does that differs between the generations:
 * - `groupSelection`: who picks a group member's partition when the poll names none (classic:
 *   the server, round robin; VSR: the client, after SyncConsumerGroup);
 * - `autoCommit`: Iggy 0.8 overwrites the stored offset with the last polled one, Iggy 0.9
 *   only ever raises it (`upsert_offset_max`), so re-reading old messages never rewinds it.
 */
export interface PollRules {
  /** Who picks a group member's partition. */
  readonly groupSelection: 'server' | 'client';
  /** How auto-commit stores the last polled offset. */
  readonly autoCommit: 'overwrite' | 'raise';
}

/** The poll rules of each protocol generation. */
export const POLL_RULES: Readonly<Record<'classic' | 'vsr', PollRules>> = Object.freeze({
  classic: Object.freeze({ groupSelection: 'server', autoCommit: 'overwrite' }),
  vsr: Object.freeze({ groupSelection: 'client', autoCommit: 'raise' }),
});

function committed(rule: PollRules['autoCommit'], stored: bigint | undefined, last: bigint): bigint {
  return rule === 'raise' && stored !== undefined && stored > last ? stored : last;
}

function fail(code: number, message?: string): never {
  throw new IggyError(code, message);
}

/** What a poll returns. */
export interface PollOutcome {
  /** The partition read (or the re-sync sentinel). */
  readonly partitionId: number;
  /** The partition's highest offset (0 when empty). */
  readonly currentOffset: bigint;
  /** The messages, as runs of stored batches. */
  readonly slices: readonly BatchSlice[];
}

/** What a poll asks for, after decoding. */
export interface PollInput {
  /** The consumer or group. */
  readonly consumer: OffsetOwner;
  /** The stream. */
  readonly stream: Identifier;
  /** The topic. */
  readonly topic: Identifier;
  /** The partition, when named. */
  readonly partitionId?: number | undefined;
  /** Where to start. */
  readonly strategy: { readonly kind: 'offset' | 'timestamp'; readonly value: bigint } | { readonly kind: 'first' | 'last' | 'next' };
  /** Most messages. */
  readonly count: number;
  /** Store the last returned offset. */
  readonly autoCommit: boolean;
}

/** Options of a {@link Broker}. */
export interface BrokerOptions {
  /** Where state is kept. */
  readonly storage: Storage;
  /** The broker clock. */
  readonly clock: ServerClock;
  /** A cooperative hand-over is forced after this long (ms). */
  readonly rebalancingTimeoutMs: number;
  /** A poll reply stops adding messages past this many bytes (at least one is returned). */
  readonly maxPollBytes: number;
}

/** The state of one node. */
export class Broker {
  /** Streams by id. */
  readonly streams: Map<number, StreamState> = new Map();
  readonly #storage: Storage;
  readonly #clock: ServerClock;
  readonly #timeoutMs: number;
  readonly #maxPollBytes: number;

  constructor(options: BrokerOptions) {
    this.#storage = options.storage;
    this.#clock = options.clock;
    this.#timeoutMs = options.rebalancingTimeoutMs;
    this.#maxPollBytes = options.maxPollBytes;
    const saved = this.#storage.loadMetadata();
    if (saved !== undefined) this.#restore(saved);
  }

  /** Microseconds now. */
  now(): bigint {
    return this.#clock.now();
  }

  // ---- lookups

  /** The stream, or undefined. */
  findStream(id: Identifier): StreamState | undefined {
    if (typeof id === 'number') return this.streams.get(id);
    for (const s of this.streams.values()) if (s.name === id) return s;
    return undefined;
  }

  /** The stream, or status 1009. */
  stream(id: Identifier): StreamState {
    return this.findStream(id) ?? fail(Status.StreamNotFound);
  }

  /** The topic, or undefined. */
  findTopic(stream: StreamState, id: Identifier): TopicState | undefined {
    if (typeof id === 'number') return stream.topics.get(id);
    for (const t of stream.topics.values()) if (t.name === id) return t;
    return undefined;
  }

  /** Stream and topic, or 1009 / 2010. */
  topic(streamId: Identifier, topicId: Identifier): TopicState {
    return this.findTopic(this.stream(streamId), topicId) ?? fail(Status.TopicNotFound);
  }

  /** The partition, or 3007. */
  partition(topic: TopicState, id: number): PartitionLog {
    return topic.partitions[id] ?? fail(Status.PartitionNotFound);
  }

  /** The group, or undefined. */
  findGroup(topic: TopicState, id: Identifier): ConsumerGroupState | undefined {
    if (typeof id === 'number') return topic.groups.get(id);
    for (const g of topic.groups.values()) if (g.name === id) return g;
    return undefined;
  }

  /** The group, or 5000. */
  group(topic: TopicState, id: Identifier): ConsumerGroupState {
    return this.findGroup(topic, id) ?? fail(Status.GroupNotFound);
  }

  // ---- streams

  /** Creates a stream (1012 when the name exists). */
  createStream(name: string): StreamState {
    if (this.findStream(name) !== undefined) fail(Status.StreamNameExists);
    if (this.streams.size >= MAX_STREAMS) fail(Status.TooManyStreams, `a server holds at most ${MAX_STREAMS} streams`);
    const s = new StreamState(lowestFreeId(this.streams), name, this.now());
    this.streams.set(s.id, s);
    this.#persist();
    return s;
  }

  /** Renames a stream. */
  updateStream(id: Identifier, name: string): void {
    const s = this.stream(id);
    const other = this.findStream(name);
    if (other !== undefined && other !== s) fail(Status.StreamNameExists);
    s.name = name;
    this.#persist();
  }

  /** Deletes a stream and its data. */
  deleteStream(id: Identifier): void {
    const s = this.stream(id);
    this.streams.delete(s.id);
    this.#persist();
    this.#storage.dropStream(s.id);
  }

  /** Deletes every message of a stream. */
  purgeStream(id: Identifier): void {
    for (const t of this.stream(id).topics.values()) this.#purgeTopic(t);
    this.#persist();
  }

  // ---- topics

  /** Creates a topic. */
  createTopic(streamId: Identifier, name: string, partitions: number, settings: TopicSettingsInput): TopicState {
    // The per-request bound and the settings are checked before the target is resolved, as in
    // both Iggy generations: 0.8 refuses a bad compression code while decoding the body, and
    // 0.9 parses the options block before consensus (dispatch.rs), long before the stream is
    // looked up. So bad settings on a missing stream answer with the settings' code.
    if (partitions > MAX_PARTITIONS) fail(Status.TooManyPartitions);
    this.#checkSettings(settings);
    const s = this.stream(streamId);
    if (this.findTopic(s, name) !== undefined) fail(Status.TopicNameExists);
    const counts = countResources(this.streams.values());
    if (counts.topics >= MAX_TOPICS) fail(Status.TooManyTopics, `a server holds at most ${MAX_TOPICS} topics`);
    this.#checkPartitionRoom(counts.partitions, partitions);
    const t = new TopicState(lowestFreeId(s.topics), name, this.now(), settings);
    this.#addPartitions(s, t, partitions);
    s.topics.set(t.id, t);
    this.#persist();
    return t;
  }

  /** 2015 when `adding` more partitions would pass the server's total. */
  #checkPartitionRoom(held: number, adding: number): void {
    if (held + adding > MAX_TOTAL_PARTITIONS) fail(Status.TooManyPartitions, `a server holds at most ${MAX_TOTAL_PARTITIONS} partitions`);
  }

  /**
   * Opens `count` partitions at the end of a topic, all or none: when storage fails part way
   * (a folder it cannot make, no file descriptor left) the ones opened are closed and deleted
   * again and the client gets status 1, so no topic is left with half its partitions.
   */
  #addPartitions(s: StreamState, t: TopicState, count: number): void {
    const first = t.partitions.length;
    try {
      for (let i = 0; i < count; i++) t.partitions.push(this.#newPartition(s, t, first + i));
    } catch (cause) {
      // The opened ones and the one that failed part way.
      const made = t.partitions.splice(first).length;
      for (let id = first; id <= first + made; id++) this.#dropQuietly(s.id, t.id, id);
      if (cause instanceof IggyError) throw cause;
      throw new IggyError(Status.Error, `cannot create partitions of topic ${t.id} in stream ${s.id}`, { cause });
    }
  }

  #dropQuietly(streamId: number, topicId: number, partitionId: number): void {
    try {
      this.#storage.dropPartition(streamId, topicId, partitionId);
    } catch {
      // What cannot be removed now is dropped again before the id is next used (`#newPartition`).
    }
  }

  /** A compression code outside Iggy's two, then the options block (see `#checkOptions`). */
  #checkSettings(settings: TopicSettingsInput): void {
    if (settings.compression !== undefined && settings.compression !== 1 && settings.compression !== 2) fail(Status.InvalidCommand);
    this.#checkOptions(settings.options);
  }

  #checkOptions(options: ReadonlyMap<string, HeaderValue> | undefined): void {
    for (const key of options?.keys() ?? []) {
      if (CANONICAL_TOPIC_OPTIONS.has(key)) fail(Status.InvalidOptionValue);
      if (!KNOWN_TOPIC_OPTIONS.has(key)) fail(Status.UnsupportedOptionKey);
    }
  }

  #newPartition(s: StreamState, t: TopicState, id: number): PartitionLog {
    this.#storage.dropPartition(s.id, t.id, id);
    const opened = this.#storage.openPartition(s.id, t.id, id);
    return new PartitionLog(id, this.now(), opened.writer);
  }

  /** Updates a topic; absent VSR settings are left unchanged. */
  updateTopic(streamId: Identifier, topicId: Identifier, name: string, settings: TopicSettingsInput, partial: boolean): void {
    // Iggy 0.9 admits only the updatable keys on an update, before parsing any value: the
    // partition knobs (segment size, fsync, flush thresholds, preallocation) are create-only,
    // because they describe how the partitions' storage was laid down.
    if (partial) for (const key of settings.options?.keys() ?? []) if (!CANONICAL_TOPIC_OPTIONS.has(key)) fail(Status.UnsupportedOptionKey);
    // Settings before the lookup, as in createTopic.
    this.#checkSettings(settings);
    const s = this.stream(streamId);
    const t = this.findTopic(s, topicId) ?? fail(Status.TopicNotFound);
    const other = this.findTopic(s, name);
    if (other !== undefined && other !== t) fail(Status.TopicNameExists);
    t.name = name;
    if (!partial || settings.messageExpiry !== undefined) t.messageExpiry = normalizeExpiry(settings.messageExpiry);
    if (!partial || settings.maxTopicSize !== undefined) t.maxTopicSize = normalizeSize(settings.maxTopicSize);
    if (!partial || settings.compression !== undefined) t.compression = settings.compression ?? 1;
    if (!partial && settings.replicationFactor !== undefined) t.replicationFactor = settings.replicationFactor === 0 ? 1 : settings.replicationFactor;
    if (settings.options !== undefined) for (const [k, v] of settings.options) t.options.set(k, v);
    t.markExplicit(settings);
    this.#persist();
  }

  /** Deletes a topic and its data. */
  deleteTopic(streamId: Identifier, topicId: Identifier): void {
    const s = this.stream(streamId);
    const t = this.findTopic(s, topicId) ?? fail(Status.TopicNotFound);
    s.topics.delete(t.id);
    this.#persist();
    this.#storage.dropTopic(s.id, t.id);
  }

  /** Deletes every message of a topic (offsets restart at 0; stored offsets are dropped). */
  purgeTopic(streamId: Identifier, topicId: Identifier): void {
    this.#purgeTopic(this.topic(streamId, topicId));
    this.#persist();
  }

  #purgeTopic(t: TopicState): void {
    for (const p of t.partitions) p.purge();
    t.consumerOffsets.clear();
    for (const g of t.groups.values()) {
      g.offsets.clear();
      g.delivered.clear();
    }
  }

  /**
   * Adds partitions at the end (1..1000 a request) and rebalances every group. A count outside
   * 1..1000 is TooManyPartitions before the target is resolved, as Iggy 0.8's handler and 0.9's
   * pre-consensus `validate_partitions_change_count` check it. The topic's total is capped at
   * 1000 too, a bound of this server (Iggy has no such cap).
   */
  createPartitions(streamId: Identifier, topicId: Identifier, count: number): void {
    if (count < 1 || count > MAX_PARTITIONS) fail(Status.TooManyPartitions);
    const s = this.stream(streamId);
    const t = this.findTopic(s, topicId) ?? fail(Status.TopicNotFound);
    if (t.partitions.length + count > MAX_PARTITIONS) fail(Status.TooManyPartitions);
    this.#checkPartitionRoom(countResources(this.streams.values()).partitions, count);
    this.#addPartitions(s, t, count);
    for (const g of t.groups.values()) g.resize(t.partitions.length);
    this.#persist();
  }

  /**
   * Removes partitions from the end and rebalances every group. A count of 0 is
   * TooManyPartitions before the target is resolved, as in both Iggy generations (Iggy 0.9 also
   * refuses a count above 1000 that way: `commands.ts` checks it for VSR); more than the topic
   * has is InvalidPartitionsCount.
   */
  deletePartitions(streamId: Identifier, topicId: Identifier, count: number): void {
    if (count < 1) fail(Status.TooManyPartitions);
    const s = this.stream(streamId);
    const t = this.findTopic(s, topicId) ?? fail(Status.TopicNotFound);
    if (count > t.partitions.length) fail(Status.InvalidPartitionsCount);
    const removed = t.partitions.splice(t.partitions.length - count, count);
    for (const p of removed) {
      t.consumerOffsets.delete(p.id);
      this.#storage.dropPartition(s.id, t.id, p.id);
    }
    for (const g of t.groups.values()) g.resize(t.partitions.length);
    this.#persist();
  }

  /**
   * Deletes the oldest `count` sealed segments of a partition (DeleteSegments). Unknown targets
   * raise 1009 / 2010 / 3007; a partition with nothing sealed (always so in memory) is left as
   * it is and the call succeeds, as Iggy 0.9 commits a no-op truncate.
   */
  deleteSegments(streamId: Identifier, topicId: Identifier, partitionId: number, count: number): void {
    const p = this.partition(this.topic(streamId, topicId), partitionId);
    p.deleteSegments(count);
  }

  // ---- messages

  /**
   * Appends a producer batch (unstamped canonical batch bytes the broker may keep) to the
   * partition `partitioning` picks. Unknown targets raise 1009 / 2010 / 3007.
   */
  append(streamId: Identifier, topicId: Identifier, partitioning: Partitioning, batch: Uint8Array, count: number): { stream: StreamState; topic: TopicState; partition: number; baseOffset: bigint } {
    const s = this.stream(streamId);
    const t = this.findTopic(s, topicId) ?? fail(Status.TopicNotFound);
    const n = t.partitions.length;
    if (n === 0) fail(Status.PartitionNotFound);
    let id: number;
    if (partitioning.kind === 'partition') id = partitioning.partitionId;
    else if (partitioning.kind === 'key') id = partitionForKey(partitioning.key, n);
    else {
      id = t.balanced % n;
      t.balanced = (t.balanced + 1) % n;
    }
    const p = this.partition(t, id);
    const now = this.now();
    t.expire(now);
    const stored = p.append(batch, count, now);
    t.trim(p);
    return { stream: s, topic: t, partition: id, baseOffset: stored.baseOffset };
  }

  /** A single-consumer or group poll of an explicit partition, with the strategy and auto-commit rules. */
  poll(input: PollInput, clientId: number, rules: PollRules): PollOutcome {
    const groupSelection = rules.groupSelection;
    const t = this.topic(input.stream, input.topic);
    const now = this.now();
    t.expire(now);
    if (input.consumer.kind === 'consumer') {
      const p = this.partition(t, input.partitionId ?? 0);
      const slices = this.#read(p, input, this.#consumerOffset(t, p.id, input.consumer.id));
      if (input.autoCommit && slices.length > 0) {
        const stored = this.#consumerOffset(t, p.id, input.consumer.id);
        this.#storeConsumer(t, p.id, input.consumer.id, committed(rules.autoCommit, stored, lastOffset(slices)));
      }
      return { partitionId: p.id, currentOffset: p.currentOffset, slices };
    }
    const g = this.group(t, input.consumer.id);
    const member = g.member(clientId) ?? fail(Status.GroupMemberNotFound);
    g.settle(Number(now / 1000n));
    let pid = input.partitionId;
    if (pid === undefined) {
      const candidates = g.pollable(member);
      if (groupSelection === 'client' || candidates.length === 0) return { partitionId: 0, currentOffset: 0n, slices: [] };
      pid = candidates[member.cursor % candidates.length] as number;
      member.cursor++;
    } else if (!member.partitions.includes(pid)) {
      return { partitionId: groupSelection === 'client' ? 0xffff_ffff : pid, currentOffset: 0n, slices: [] };
    } else if (groupSelection === 'client' && !g.pollable(member).includes(pid)) {
      return { partitionId: 0xffff_ffff, currentOffset: 0n, slices: [] };
    }
    const p = this.partition(t, pid);
    const slices = this.#read(p, input, g.offsets.get(pid));
    if (slices.length > 0) {
      const last = lastOffset(slices);
      g.delivered.set(pid, last);
      if (input.autoCommit) {
        g.offsets.set(pid, committed(rules.autoCommit, g.offsets.get(pid), last));
        g.settle(Number(now / 1000n));
        this.#persist();
      }
    }
    return { partitionId: pid, currentOffset: p.currentOffset, slices };
  }

  #read(p: PartitionLog, input: PollInput, stored: bigint | undefined): BatchSlice[] {
    if (input.count === 0) return [];
    let start: bigint;
    switch (input.strategy.kind) {
      case 'offset':
        start = input.strategy.value;
        break;
      case 'timestamp': {
        const at = p.offsetAtTimestamp(input.strategy.value);
        if (at === undefined) return [];
        start = at;
        break;
      }
      case 'first':
        start = p.firstOffset;
        break;
      case 'last': {
        const from = p.nextOffset - BigInt(input.count);
        start = from < p.firstOffset ? p.firstOffset : from;
        break;
      }
      case 'next':
        start = stored === undefined ? p.firstOffset : stored + 1n;
        break;
    }
    return p.read(start, input.count, this.#maxPollBytes);
  }

  // ---- offsets

  #consumerOffset(t: TopicState, partition: number, id: Identifier): bigint | undefined {
    return t.consumerOffsets.get(partition)?.get(consumerKey(id));
  }

  #storeConsumer(t: TopicState, partition: number, id: Identifier, offset: bigint): void {
    let m = t.consumerOffsets.get(partition);
    if (m === undefined) t.consumerOffsets.set(partition, (m = new Map()));
    m.set(consumerKey(id), offset);
    this.#persist();
  }

  #ownedGroupPartition(t: TopicState, owner: OffsetOwner, partition: number, clientId: number): ConsumerGroupState {
    const g = this.group(t, owner.id);
    const member = g.member(clientId) ?? fail(Status.GroupMemberNotFound);
    if (!member.partitions.includes(partition)) fail(Status.GroupPartitionNotOwned);
    return g;
  }

  /** Stores a consumer or group offset (4100 above the current offset or into an empty partition). */
  storeOffset(owner: OffsetOwner, streamId: Identifier, topicId: Identifier, partitionId: number, offset: bigint, clientId: number): void {
    const t = this.topic(streamId, topicId);
    const p = this.partition(t, partitionId);
    if (owner.kind === 'group') {
      const g = this.#ownedGroupPartition(t, owner, p.id, clientId);
      if (!p.everWritten || offset > p.currentOffset) fail(Status.InvalidOffset);
      g.offsets.set(p.id, offset);
      g.settle(this.#clock.elapsedMs());
      this.#persist();
      return;
    }
    if (!p.everWritten || offset > p.currentOffset) fail(Status.InvalidOffset);
    this.#storeConsumer(t, p.id, owner.id, offset);
  }

  /** The stored offset and the partition's current offset, or undefined when nothing is stored. */
  getOffset(owner: OffsetOwner, streamId: Identifier, topicId: Identifier, partitionId: number): { partitionId: number; currentOffset: bigint; storedOffset: bigint } | undefined {
    const t = this.topic(streamId, topicId);
    const p = this.partition(t, partitionId);
    const stored = owner.kind === 'group' ? this.group(t, owner.id).offsets.get(p.id) : this.#consumerOffset(t, p.id, owner.id);
    return stored === undefined ? undefined : { partitionId: p.id, currentOffset: p.currentOffset, storedOffset: stored };
  }

  /** Deletes a stored offset (3021 when none is stored). */
  deleteOffset(owner: OffsetOwner, streamId: Identifier, topicId: Identifier, partitionId: number, clientId: number): void {
    const t = this.topic(streamId, topicId);
    const p = this.partition(t, partitionId);
    if (owner.kind === 'group') {
      const g = this.#ownedGroupPartition(t, owner, p.id, clientId);
      if (!g.offsets.delete(p.id)) fail(Status.ConsumerOffsetNotFound);
    } else if (t.consumerOffsets.get(p.id)?.delete(consumerKey(owner.id)) !== true) {
      fail(Status.ConsumerOffsetNotFound);
    }
    this.#persist();
  }

  // ---- consumer groups

  /** Creates a group (5004 when the name exists). */
  createGroup(streamId: Identifier, topicId: Identifier, name: string): { topic: TopicState; group: ConsumerGroupState } {
    const t = this.topic(streamId, topicId);
    if (this.findGroup(t, name) !== undefined) fail(Status.GroupNameExists);
    if (countResources(this.streams.values()).groups >= MAX_CONSUMER_GROUPS) fail(Status.Error, `a server holds at most ${MAX_CONSUMER_GROUPS} consumer groups`);
    const g = new ConsumerGroupState(t.nextGroupId++, name, t.partitions.length, this.#timeoutMs);
    t.groups.set(g.id, g);
    this.#persist();
    return { topic: t, group: g };
  }

  /** Deletes a group. */
  deleteGroup(streamId: Identifier, topicId: Identifier, groupId: Identifier): void {
    const t = this.topic(streamId, topicId);
    const g = this.group(t, groupId);
    t.groups.delete(g.id);
    this.#persist();
  }

  /** Joins a group (idempotent). */
  joinGroup(streamId: Identifier, topicId: Identifier, groupId: Identifier, clientId: number): void {
    const t = this.topic(streamId, topicId);
    this.group(t, groupId).join(clientId, this.#clock.elapsedMs());
  }

  /** Leaves a group (5006 when not a member). */
  leaveGroup(streamId: Identifier, topicId: Identifier, groupId: Identifier, clientId: number): void {
    const t = this.topic(streamId, topicId);
    if (!this.group(t, groupId).leave(clientId)) fail(Status.GroupMemberNotFound);
  }

  /** The member's assignment (VSR SyncConsumerGroup): generation and pollable partitions. */
  syncGroup(streamId: Identifier, topicId: Identifier, groupId: Identifier, clientId: number): { generation: bigint; partitions: number[] } {
    const t = this.topic(streamId, topicId);
    const g = this.group(t, groupId);
    g.settle(this.#clock.elapsedMs());
    const member: GroupMemberState = g.member(clientId) ?? fail(Status.GroupMemberNotFound);
    return { generation: g.generation, partitions: g.pollable(member) };
  }

  /** Settles pending hand-overs (before describing a group). */
  settleGroup(g: ConsumerGroupState): void {
    g.settle(this.#clock.elapsedMs());
  }

  /** Every (stream, topic, group) a connection is a member of. */
  membershipsOf(clientId: number): Array<{ streamId: number; topicId: number; groupId: number }> {
    const out: Array<{ streamId: number; topicId: number; groupId: number }> = [];
    for (const s of this.streams.values()) {
      for (const t of s.topics.values()) {
        for (const g of t.groups.values()) if (g.member(clientId) !== undefined) out.push({ streamId: s.id, topicId: t.id, groupId: g.id });
      }
    }
    return out;
  }

  /** A connection went away (or logged out): it leaves every group. */
  disconnect(clientId: number): void {
    for (const s of this.streams.values()) for (const t of s.topics.values()) for (const g of t.groups.values()) g.leave(clientId);
  }

  // ---- persistence

  #persist(): void {
    if (this.#storage.kind === 'memory') return;
    this.#storage.saveMetadata(this.snapshot());
  }

  /** The metadata as persisted. */
  snapshot(): MetadataSnapshot {
    const streams: StreamSnapshot[] = [...this.streams.values()].map((s) => ({
      id: s.id,
      name: s.name,
      createdAt: s.createdAt.toString(),
      nextTopicId: lowestFreeId(s.topics),
      topics: [...s.topics.values()].map(
        (t): TopicSnapshot => ({
          id: t.id,
          name: t.name,
          createdAt: t.createdAt.toString(),
          partitions: t.partitions.map((p) => p.createdAt.toString()),
          messageExpiry: t.messageExpiry.toString(),
          maxTopicSize: t.maxTopicSize.toString(),
          compression: t.compression,
          replicationFactor: t.replicationFactor,
          options: Buffer.from(encodeOptions(t.options)).toString('base64'),
          explicit: [...t.explicit],
          nextGroupId: t.nextGroupId,
          groups: [...t.groups.values()].map((g) => ({ id: g.id, name: g.name, offsets: [...g.offsets].map(([p, o]) => [p, o.toString()] as const) })),
          consumerOffsets: [...t.consumerOffsets].flatMap(([p, m]) => [...m].map(([k, o]) => [p, k, o.toString()] as const)),
        }),
      ),
    }));
    return { version: 1, nextStreamId: lowestFreeId(this.streams), streams };
  }

  #restore(saved: MetadataSnapshot): void {
    for (const ss of saved.streams) {
      const s = new StreamState(ss.id, ss.name, BigInt(ss.createdAt));
      this.streams.set(s.id, s);
      for (const ts of ss.topics) {
        const t = new TopicState(ts.id, ts.name, BigInt(ts.createdAt), {
          messageExpiry: BigInt(ts.messageExpiry),
          maxTopicSize: BigInt(ts.maxTopicSize),
          compression: ts.compression,
          replicationFactor: ts.replicationFactor,
          options: decodeOptions(Buffer.from(ts.options, 'base64')),
        });
        t.nextGroupId = ts.nextGroupId;
        t.explicit.clear();
        for (const k of ts.explicit ?? []) t.explicit.add(k);
        s.topics.set(t.id, t);
        ts.partitions.forEach((createdAt, id) => {
          const opened = this.#storage.openPartition(s.id, t.id, id);
          t.partitions.push(new PartitionLog(id, BigInt(createdAt), opened.writer, opened.batches, opened.startOffset));
        });
        for (const gs of ts.groups) {
          const g = new ConsumerGroupState(gs.id, gs.name, t.partitions.length, this.#timeoutMs);
          for (const [p, o] of gs.offsets) g.offsets.set(p, BigInt(o));
          t.groups.set(g.id, g);
        }
        for (const [p, k, o] of ts.consumerOffsets) {
          let m = t.consumerOffsets.get(p);
          if (m === undefined) t.consumerOffsets.set(p, (m = new Map()));
          m.set(k, BigInt(o));
        }
      }
    }
  }
}

function lastOffset(slices: readonly BatchSlice[]): bigint {
  const last = slices[slices.length - 1] as BatchSlice;
  return last.batch.baseOffset + BigInt(last.to - 1);
}
