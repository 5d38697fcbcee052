/** Stream commands: CreateStream (202), UpdateStream (204), GetStream (200), GetStreams (201). */

import { ByteReader } from '../internal/byte-reader.js';
import { ByteWriter } from '../internal/byte-writer.js';
import { checkU32, checkU64, wireNameBytes } from '../internal/checks.js';
import type { IggyProtocol } from '../protocol.js';
import type { OptionsBlock } from './options.js';
import { decodeOptions, encodeOptions } from './options.js';
import type { Identifier } from './primitives.js';
import { readIdentifier, writeIdentifier } from './primitives.js';
import type { TopicInfo } from './topics.js';
import { readTopicHeader, writeTopicHeader } from './topics.js';

const EMPTY: OptionsBlock = new Map();

/** CreateStream request. `options` travel only in VSR (the catalog is empty today). */
export interface CreateStreamRequest {
  /** The stream name. */
  readonly name: string;
  /** VSR options block. */
  readonly options?: OptionsBlock;
}

/** Encodes CreateStream: `[name]` (classic) or `[name][options to end]` (VSR). */
export function encodeCreateStreamRequest(req: CreateStreamRequest, protocol: IggyProtocol): Uint8Array {
  const w = new ByteWriter(32);
  const name = wireNameBytes(req.name, 'name');
  w.u8(name.length).bytes(name);
  if (protocol === 'vsr') w.bytes(encodeOptions(req.options ?? EMPTY));
  return w.finish().slice();
}

/** Decodes CreateStream (server side). */
export function decodeCreateStreamRequest(payload: Uint8Array, protocol: IggyProtocol): CreateStreamRequest {
  const r = new ByteReader(payload, 'CreateStream');
  const name = r.wireName('name');
  if (protocol === 'vsr') return { name, options: decodeOptions(r.rest()) };
  r.end();
  return { name };
}

/** UpdateStream request. Absent VSR option keys are left unchanged. */
export interface UpdateStreamRequest {
  /** The stream to update. */
  readonly stream: Identifier;
  /** The new name. */
  readonly name: string;
  /** VSR options block. */
  readonly options?: OptionsBlock;
}

/** Encodes UpdateStream: `[stream][name]` then, in VSR, options to the end. */
export function encodeUpdateStreamRequest(req: UpdateStreamRequest, protocol: IggyProtocol): Uint8Array {
  const w = new ByteWriter(32);
  writeIdentifier(w, req.stream, 'stream');
  const name = wireNameBytes(req.name, 'name');
  w.u8(name.length).bytes(name);
  if (protocol === 'vsr') w.bytes(encodeOptions(req.options ?? EMPTY));
  return w.finish().slice();
}

/** Decodes UpdateStream (server side). */
export function decodeUpdateStreamRequest(payload: Uint8Array, protocol: IggyProtocol): UpdateStreamRequest {
  const r = new ByteReader(payload, 'UpdateStream');
  const stream = readIdentifier(r, 'stream');
  const name = r.wireName('name');
  if (protocol === 'vsr') return { stream, name, options: decodeOptions(r.rest()) };
  r.end();
  return { stream, name };
}

/** A stream as the server describes it (StreamResponse). */
export interface StreamInfo {
  /** 0-based id. */
  readonly id: number;
  /** Creation time, µs since the epoch. */
  readonly createdAt: bigint;
  /** Number of topics. */
  readonly topicsCount: number;
  /** Bytes stored. */
  readonly sizeBytes: bigint;
  /** Messages stored. */
  readonly messagesCount: bigint;
  /** The name. */
  readonly name: string;
  /** VSR only: the stream's options. */
  readonly options?: OptionsBlock;
}

/** A stream with its topics (GetStream). */
export interface StreamDetails extends StreamInfo {
  /** Topic headers (no partitions). */
  readonly topics: readonly TopicInfo[];
}

function writeStreamInfo(w: ByteWriter, s: StreamInfo, protocol: IggyProtocol): void {
  const name = wireNameBytes(s.name, 'name');
  w.u32(checkU32(s.id, 'id')).u64(checkU64(s.createdAt, 'createdAt')).u32(checkU32(s.topicsCount, 'topicsCount'));
  w.u64(checkU64(s.sizeBytes, 'sizeBytes')).u64(checkU64(s.messagesCount, 'messagesCount')).u8(name.length).bytes(name);
  if (protocol === 'vsr') {
    const o = encodeOptions(s.options ?? EMPTY);
    w.u32(o.length).bytes(o);
  }
}

function readStreamInfo(r: ByteReader, protocol: IggyProtocol): StreamInfo {
  const id = r.u32('id');
  const createdAt = r.u64('createdAt');
  const topicsCount = r.u32('topicsCount');
  const sizeBytes = r.u64('sizeBytes');
  const messagesCount = r.u64('messagesCount');
  const name = r.wireName('name');
  if (protocol === 'classic') return { id, createdAt, topicsCount, sizeBytes, messagesCount, name };
  const len = r.u32('options length');
  const options = decodeOptions(r.bytesView(len, 'options'));
  return { id, createdAt, topicsCount, sizeBytes, messagesCount, name, options };
}

/** Encodes a StreamResponse (CreateStream reply). */
export function encodeStreamInfo(s: StreamInfo, protocol: IggyProtocol): Uint8Array {
  const w = new ByteWriter(64);
  writeStreamInfo(w, s, protocol);
  return w.finish().slice();
}

/** Decodes a StreamResponse (CreateStream reply). */
export function decodeStreamInfo(payload: Uint8Array, protocol: IggyProtocol): StreamInfo {
  const r = new ByteReader(payload, 'StreamResponse');
  const s = readStreamInfo(r, protocol);
  r.end();
  return s;
}

/** Encodes a GetStream reply: StreamResponse then its topic headers; `undefined` → empty (not found). */
export function encodeStreamDetails(s: StreamDetails | undefined, protocol: IggyProtocol): Uint8Array {
  if (s === undefined) return new Uint8Array(0);
  const w = new ByteWriter(128);
  writeStreamInfo(w, { ...s, topicsCount: s.topics.length }, protocol);
  for (const t of s.topics) writeTopicHeader(w, t, protocol);
  return w.finish().slice();
}

/** Decodes a GetStream reply; an empty payload means "not found" and gives `undefined`. */
export function decodeStreamDetails(payload: Uint8Array, protocol: IggyProtocol): StreamDetails | undefined {
  if (payload.length === 0) return undefined;
  const r = new ByteReader(payload, 'GetStream');
  const info = readStreamInfo(r, protocol);
  const topics: TopicInfo[] = [];
  for (let i = 0; i < info.topicsCount; i++) {
    r.need(1, 'topic');
    topics.push(readTopicHeader(r, protocol));
  }
  r.end();
  return { ...info, topics };
}

/** Encodes a GetStreams reply: StreamResponses back to back. */
export function encodeStreamList(streams: readonly StreamInfo[], protocol: IggyProtocol): Uint8Array {
  const w = new ByteWriter(128);
  for (const s of streams) writeStreamInfo(w, s, protocol);
  return w.finish().slice();
}

/** Decodes a GetStreams reply, reading StreamResponses until the payload ends. */
export function decodeStreamList(payload: Uint8Array, protocol: IggyProtocol): StreamInfo[] {
  const r = new ByteReader(payload, 'GetStreams');
  const out: StreamInfo[] = [];
  while (r.remaining > 0) out.push(readStreamInfo(r, protocol));
  return out;
}
