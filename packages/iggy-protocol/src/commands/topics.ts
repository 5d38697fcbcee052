/**
 * Topic commands: CreateTopic (302), UpdateTopic (304), GetTopic (300), GetTopics (301), and the
 * partition commands CreatePartitions (402) / DeletePartitions (403). In VSR every topic setting
 * travels as an option; in classic as fixed fields.
 */

import { IggyCodecError, IggyInvalidError } from '../errors.js';
import { ByteReader, decodeUtf8 } from '../internal/byte-reader.js';
import { ByteWriter } from '../internal/byte-writer.js';
import { checkU32, checkU64, checkU8, wireNameBytes } from '../internal/checks.js';
import type { IggyProtocol } from '../protocol.js';
import type { OptionsBlock } from './options.js';
import { decodeOptions, encodeOptions } from './options.js';
import type { Identifier } from './primitives.js';
import { readIdentifier, writeIdentifier } from './primitives.js';
import type { HeaderValue } from './user-headers.js';
import { headerValue } from './user-headers.js';

/** Compression codes (1 = none, 2 = gzip). */
export const CompressionAlgorithm = {
  None: 1,
  Gzip: 2,
} as const;

/** A value of {@link CompressionAlgorithm}. */
export type CompressionAlgorithm = (typeof CompressionAlgorithm)[keyof typeof CompressionAlgorithm];

/** Message expiry sentinel: never expire (u64::MAX). 0 means the server default. */
export const EXPIRY_NEVER: bigint = 0xffff_ffff_ffff_ffffn;
/** Max topic size sentinel: unlimited (u64::MAX). 0 means the server default. */
export const SIZE_UNLIMITED: bigint = 0xffff_ffff_ffff_ffffn;

/** The option keys the topic settings map to in VSR. */
export const TopicOptionKey = {
  MessageExpiry: 'message_expiry',
  MaxTopicSize: 'max_topic_size',
  CompressionAlgorithm: 'compression_algorithm',
} as const;

/** Topic settings shared by create and update. */
export interface TopicSettings {
  /** Compression code (default 1 = none). VSR accepts only 1 or 2. */
  readonly compression?: number;
  /** Message expiry in µs (0 = server default, {@link EXPIRY_NEVER} = never). */
  readonly messageExpiry?: bigint;
  /** Max topic size in bytes (0 = server default, {@link SIZE_UNLIMITED} = unlimited). */
  readonly maxTopicSize?: bigint;
  /** Classic only: replication factor (0 = default). */
  readonly replicationFactor?: number;
  /** VSR only: further options (for example `segment_size`), sent after the settings above. */
  readonly options?: OptionsBlock;
}

/** CreateTopic request. */
export interface CreateTopicRequest extends TopicSettings {
  /** The stream. */
  readonly stream: Identifier;
  /** Number of partitions (the server accepts at most 1000). */
  readonly partitionsCount: number;
  /** The topic name. */
  readonly name: string;
}

/** UpdateTopic request. In VSR absent settings are left unchanged. */
export interface UpdateTopicRequest extends TopicSettings {
  /** The stream. */
  readonly stream: Identifier;
  /** The topic. */
  readonly topic: Identifier;
  /** The (new) name. */
  readonly name: string;
}

function settingsToOptions(s: TopicSettings): Uint8Array {
  const all = new Map<string, HeaderValue>();
  if (s.messageExpiry !== undefined) all.set(TopicOptionKey.MessageExpiry, headerValue.uint64(checkU64(s.messageExpiry, 'messageExpiry')));
  if (s.maxTopicSize !== undefined) all.set(TopicOptionKey.MaxTopicSize, headerValue.uint64(checkU64(s.maxTopicSize, 'maxTopicSize')));
  if (s.compression !== undefined) {
    if (s.compression !== 1 && s.compression !== 2) throw new IggyInvalidError(`compression must be 1 (none) or 2 (gzip), got ${s.compression}`, { context: { field: 'compression' } });
    all.set(TopicOptionKey.CompressionAlgorithm, headerValue.string(s.compression === 2 ? 'gzip' : 'none'));
  }
  for (const [k, v] of s.options ?? []) {
    if (all.has(k)) throw new IggyInvalidError(`option ${k} is given twice`, { context: { field: 'options', key: k } });
    all.set(k, v);
  }
  return encodeOptions(all);
}

function u64Of(v: HeaderValue): bigint | undefined {
  return v.kind === 'uint64' ? new DataView(v.value.buffer, v.value.byteOffset, 8).getBigUint64(0, true) : undefined;
}

function compressionOf(v: HeaderValue): number | undefined {
  if (v.kind === 'uint8') return v.value[0] === 1 || v.value[0] === 2 ? v.value[0] : undefined;
  if (v.kind !== 'string') return undefined;
  const s = decodeUtf8(v.value, 'compression_algorithm');
  return s === 'none' ? 1 : s === 'gzip' ? 2 : undefined;
}

/** Lifts the canonical topic options into settings; other entries stay in `options`. */
function optionsToSettings(block: Uint8Array): TopicSettings {
  const rest = decodeOptions(block);
  let messageExpiry: bigint | undefined;
  let maxTopicSize: bigint | undefined;
  let compression: number | undefined;
  const e = rest.get(TopicOptionKey.MessageExpiry);
  if (e !== undefined && (messageExpiry = u64Of(e)) !== undefined) rest.delete(TopicOptionKey.MessageExpiry);
  const m = rest.get(TopicOptionKey.MaxTopicSize);
  if (m !== undefined && (maxTopicSize = u64Of(m)) !== undefined) rest.delete(TopicOptionKey.MaxTopicSize);
  const c = rest.get(TopicOptionKey.CompressionAlgorithm);
  if (c !== undefined && (compression = compressionOf(c)) !== undefined) rest.delete(TopicOptionKey.CompressionAlgorithm);
  return {
    ...(messageExpiry !== undefined ? { messageExpiry } : {}),
    ...(maxTopicSize !== undefined ? { maxTopicSize } : {}),
    ...(compression !== undefined ? { compression } : {}),
    ...(rest.size > 0 ? { options: rest } : {}),
  };
}

function writeClassicSettings(w: ByteWriter, s: TopicSettings): void {
  w.u8(checkU8(s.compression ?? 1, 'compression'));
  w.u64(checkU64(s.messageExpiry ?? 0n, 'messageExpiry'));
  w.u64(checkU64(s.maxTopicSize ?? 0n, 'maxTopicSize'));
  w.u8(checkU8(s.replicationFactor ?? 0, 'replicationFactor'));
}

function readClassicSettings(r: ByteReader): Required<Omit<TopicSettings, 'options'>> {
  return { compression: r.u8('compression'), messageExpiry: r.u64('messageExpiry'), maxTopicSize: r.u64('maxTopicSize'), replicationFactor: r.u8('replicationFactor') };
}

function writeName(w: ByteWriter, name: string): void {
  const b = wireNameBytes(name, 'name');
  w.u8(b.length).bytes(b);
}

/** The tail CreateTopic and UpdateTopic share. Classic: `[settings][name]`; VSR: `[name][options]`. */
function writeNamedSettings(w: ByteWriter, req: TopicSettings & { readonly name: string }, protocol: IggyProtocol): void {
  if (protocol === 'classic') {
    writeClassicSettings(w, req);
    writeName(w, req.name);
  } else {
    writeName(w, req.name);
    w.bytes(settingsToOptions(req));
  }
}

/** Reads the tail {@link writeNamedSettings} writes, to the end of the payload. */
function readNamedSettings(r: ByteReader, protocol: IggyProtocol): TopicSettings & { readonly name: string } {
  if (protocol === 'classic') {
    const settings = readClassicSettings(r);
    const name = r.wireName('name');
    r.end();
    return { name, ...settings };
  }
  const name = r.wireName('name');
  return { name, ...optionsToSettings(r.rest()) };
}

/**
 * Encodes CreateTopic. Classic: `[stream][partitions u32][compression u8][expiry u64][max_size u64][rf u8][name]`.
 * VSR: `[stream][partitions u32][name][options]`, with only the settings that were given.
 */
export function encodeCreateTopicRequest(req: CreateTopicRequest, protocol: IggyProtocol): Uint8Array {
  const w = new ByteWriter(64);
  writeIdentifier(w, req.stream, 'stream');
  w.u32(checkU32(req.partitionsCount, 'partitionsCount'));
  writeNamedSettings(w, req, protocol);
  return w.finish().slice();
}

/** Decodes CreateTopic (server side). */
export function decodeCreateTopicRequest(payload: Uint8Array, protocol: IggyProtocol): CreateTopicRequest {
  const r = new ByteReader(payload, 'CreateTopic');
  const stream = readIdentifier(r, 'stream');
  const partitionsCount = r.u32('partitionsCount');
  return { stream, partitionsCount, ...readNamedSettings(r, protocol) };
}

/**
 * Encodes UpdateTopic. Classic: `[stream][topic][compression][expiry][max_size][rf][name]`;
 * VSR: `[stream][topic][name][options]`.
 */
export function encodeUpdateTopicRequest(req: UpdateTopicRequest, protocol: IggyProtocol): Uint8Array {
  const w = new ByteWriter(64);
  writeIdentifier(w, req.stream, 'stream');
  writeIdentifier(w, req.topic, 'topic');
  writeNamedSettings(w, req, protocol);
  return w.finish().slice();
}

/** Decodes UpdateTopic (server side). */
export function decodeUpdateTopicRequest(payload: Uint8Array, protocol: IggyProtocol): UpdateTopicRequest {
  const r = new ByteReader(payload, 'UpdateTopic');
  const stream = readIdentifier(r, 'stream');
  const topic = readIdentifier(r, 'topic');
  return { stream, topic, ...readNamedSettings(r, protocol) };
}

/** A partition as the server describes it (40 bytes). */
export interface PartitionInfo {
  /** 0-based id. */
  readonly id: number;
  /** Creation time, µs. */
  readonly createdAt: bigint;
  /** Segment count. */
  readonly segmentsCount: number;
  /** Highest offset (0 when empty). */
  readonly currentOffset: bigint;
  /** Bytes stored. */
  readonly sizeBytes: bigint;
  /** Messages stored. */
  readonly messagesCount: bigint;
}

/** A topic header (GetTopics element, GetStream topic list). */
export interface TopicInfo {
  /** 0-based id. */
  readonly id: number;
  /** Creation time, µs. */
  readonly createdAt: bigint;
  /** Number of partitions. */
  readonly partitionsCount: number;
  /** Message expiry in µs (0 = default, u64::MAX = never). */
  readonly messageExpiry: bigint;
  /** Compression code. */
  readonly compression: number;
  /** Max size in bytes (0 = default, u64::MAX = unlimited). */
  readonly maxTopicSize: bigint;
  /** Classic only: the replication factor. */
  readonly replicationFactor?: number;
  /** Bytes stored. */
  readonly sizeBytes: bigint;
  /** Messages stored. */
  readonly messagesCount: bigint;
  /** The name. */
  readonly name: string;
  /** VSR only: the options the client sent explicitly (re-send only these). */
  readonly options?: OptionsBlock;
  /** VSR only: the defaults the server filled in. */
  readonly derivedOptions?: OptionsBlock;
}

/** A topic with its partitions (GetTopic, CreateTopic reply). */
export interface TopicDetails extends TopicInfo {
  /** The partitions, in id order. */
  readonly partitions: readonly PartitionInfo[];
}

const EMPTY: OptionsBlock = new Map();

/** Writes a TopicHeader in the layout of the protocol. */
export function writeTopicHeader(w: ByteWriter, t: TopicInfo, protocol: IggyProtocol): void {
  w.u32(checkU32(t.id, 'id')).u64(checkU64(t.createdAt, 'createdAt')).u32(checkU32(t.partitionsCount, 'partitionsCount'));
  w.u64(checkU64(t.messageExpiry, 'messageExpiry')).u8(checkU8(t.compression, 'compression')).u64(checkU64(t.maxTopicSize, 'maxTopicSize'));
  if (protocol === 'classic') w.u8(checkU8(t.replicationFactor ?? 0, 'replicationFactor'));
  w.u64(checkU64(t.sizeBytes, 'sizeBytes')).u64(checkU64(t.messagesCount, 'messagesCount'));
  writeName(w, t.name);
  if (protocol === 'vsr') {
    const o = encodeOptions(t.options ?? EMPTY);
    const d = encodeOptions(t.derivedOptions ?? EMPTY);
    w.u32(o.length).bytes(o).u32(d.length).bytes(d);
  }
}

/** Reads a TopicHeader in the layout of the protocol. */
export function readTopicHeader(r: ByteReader, protocol: IggyProtocol): TopicInfo {
  const id = r.u32('id');
  const createdAt = r.u64('createdAt');
  const partitionsCount = r.u32('partitionsCount');
  const messageExpiry = r.u64('messageExpiry');
  const compression = r.u8('compression');
  const maxTopicSize = r.u64('maxTopicSize');
  const replicationFactor = protocol === 'classic' ? r.u8('replicationFactor') : undefined;
  const sizeBytes = r.u64('sizeBytes');
  const messagesCount = r.u64('messagesCount');
  const name = r.wireName('name');
  const base = { id, createdAt, partitionsCount, messageExpiry, compression, maxTopicSize, sizeBytes, messagesCount, name };
  if (protocol === 'classic') return { ...base, replicationFactor: replicationFactor as number };
  const options = decodeOptions(r.bytesView(r.u32('options length'), 'options'));
  const derivedOptions = decodeOptions(r.bytesView(r.u32('derived options length'), 'derived options'));
  return { ...base, options, derivedOptions };
}

function writePartition(w: ByteWriter, p: PartitionInfo): void {
  w.u32(checkU32(p.id, 'partition.id')).u64(checkU64(p.createdAt, 'partition.createdAt')).u32(checkU32(p.segmentsCount, 'partition.segmentsCount'));
  w.u64(checkU64(p.currentOffset, 'partition.currentOffset')).u64(checkU64(p.sizeBytes, 'partition.sizeBytes')).u64(checkU64(p.messagesCount, 'partition.messagesCount'));
}

/** Encodes a GetTopic / CreateTopic reply: header then partitions; `undefined` → empty (not found). */
export function encodeTopicDetails(t: TopicDetails | undefined, protocol: IggyProtocol): Uint8Array {
  if (t === undefined) return new Uint8Array(0);
  const w = new ByteWriter(128 + t.partitions.length * 40);
  writeTopicHeader(w, { ...t, partitionsCount: t.partitions.length }, protocol);
  for (const p of t.partitions) writePartition(w, p);
  return w.finish().slice();
}

/** Decodes a GetTopic / CreateTopic reply; an empty payload means "not found" and gives `undefined`. */
export function decodeTopicDetails(payload: Uint8Array, protocol: IggyProtocol): TopicDetails | undefined {
  if (payload.length === 0) return undefined;
  const r = new ByteReader(payload, 'GetTopic');
  const header = readTopicHeader(r, protocol);
  r.need(header.partitionsCount * 40, 'partitions');
  const partitions: PartitionInfo[] = [];
  for (let i = 0; i < header.partitionsCount; i++) {
    partitions.push({
      id: r.u32('partition.id'),
      createdAt: r.u64('partition.createdAt'),
      segmentsCount: r.u32('partition.segmentsCount'),
      currentOffset: r.u64('partition.currentOffset'),
      sizeBytes: r.u64('partition.sizeBytes'),
      messagesCount: r.u64('partition.messagesCount'),
    });
  }
  r.end();
  return { ...header, partitions };
}

/** Encodes a GetTopics reply: classic = headers back to back; VSR = `[count u32]` then headers. */
export function encodeTopicList(topics: readonly TopicInfo[], protocol: IggyProtocol): Uint8Array {
  const w = new ByteWriter(128);
  if (protocol === 'vsr') w.u32(checkU32(topics.length, 'count'));
  for (const t of topics) writeTopicHeader(w, t, protocol);
  return w.finish().slice();
}

/** Decodes a GetTopics reply. */
export function decodeTopicList(payload: Uint8Array, protocol: IggyProtocol): TopicInfo[] {
  const r = new ByteReader(payload, 'GetTopics');
  const out: TopicInfo[] = [];
  if (protocol === 'classic') {
    while (r.remaining > 0) out.push(readTopicHeader(r, protocol));
    return out;
  }
  const count = r.u32('count');
  // Each header is at least 58 bytes, so the count is bounded by the bytes present.
  if (count > r.remaining / 58) throw new IggyCodecError(`GetTopics: count ${count} exceeds the bytes present`, { context: { count } });
  for (let i = 0; i < count; i++) out.push(readTopicHeader(r, protocol));
  r.end();
  return out;
}

/** CreatePartitions / DeletePartitions request (both `[stream][topic][partitions_count u32]`). */
export interface PartitionsRequest {
  /** The stream. */
  readonly stream: Identifier;
  /** The topic. */
  readonly topic: Identifier;
  /** How many partitions to add (1..1000) or remove from the end. */
  readonly partitionsCount: number;
}

/** Encodes CreatePartitions (402) or DeletePartitions (403). */
export function encodePartitionsRequest(req: PartitionsRequest): Uint8Array {
  const w = new ByteWriter(32);
  writeIdentifier(w, req.stream, 'stream');
  writeIdentifier(w, req.topic, 'topic');
  w.u32(checkU32(req.partitionsCount, 'partitionsCount'));
  return w.finish().slice();
}

/** Decodes CreatePartitions or DeletePartitions (server side). */
export function decodePartitionsRequest(payload: Uint8Array): PartitionsRequest {
  const r = new ByteReader(payload, 'partitions request');
  const stream = readIdentifier(r, 'stream');
  const topic = readIdentifier(r, 'topic');
  const partitionsCount = r.u32('partitionsCount');
  r.end();
  return { stream, topic, partitionsCount };
}
