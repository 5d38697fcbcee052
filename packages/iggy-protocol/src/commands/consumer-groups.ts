/**
 * Consumer group commands: CreateConsumerGroup (602), GetConsumerGroup (600),
 * GetConsumerGroups (601), SyncConsumerGroup (606, VSR). Delete/Join/Leave/Get/Sync requests use
 * the group target codec (`encodeGroupTarget`).
 */

import { IggyCodecError } from '../errors.js';
import { ByteReader } from '../internal/byte-reader.js';
import { ByteWriter } from '../internal/byte-writer.js';
import { checkU32, checkU64, wireNameBytes } from '../internal/checks.js';
import type { Identifier } from './primitives.js';
import { readIdentifier, writeIdentifier } from './primitives.js';

/** CreateConsumerGroup request: `[stream][topic][name WireName]`. */
export interface CreateConsumerGroupRequest {
  /** The stream. */
  readonly stream: Identifier;
  /** The topic. */
  readonly topic: Identifier;
  /** The group name. */
  readonly name: string;
}

/** Encodes CreateConsumerGroup. */
export function encodeCreateConsumerGroupRequest(req: CreateConsumerGroupRequest): Uint8Array {
  const w = new ByteWriter(48);
  writeIdentifier(w, req.stream, 'stream');
  writeIdentifier(w, req.topic, 'topic');
  const name = wireNameBytes(req.name, 'name');
  w.u8(name.length).bytes(name);
  return w.finish().slice();
}

/** Decodes CreateConsumerGroup (server side). */
export function decodeCreateConsumerGroupRequest(payload: Uint8Array): CreateConsumerGroupRequest {
  const r = new ByteReader(payload, 'CreateConsumerGroup');
  const stream = readIdentifier(r, 'stream');
  const topic = readIdentifier(r, 'topic');
  const name = r.wireName('name');
  r.end();
  return { stream, topic, name };
}

/** A consumer group as the server describes it (ConsumerGroupResponse). */
export interface ConsumerGroupInfo {
  /** 0-based id. */
  readonly id: number;
  /** Partitions of the topic. */
  readonly partitionsCount: number;
  /** Members. */
  readonly membersCount: number;
  /** The name. */
  readonly name: string;
}

/** A member and the partitions assigned to it. */
export interface ConsumerGroupMember {
  /** Member id. */
  readonly id: number;
  /** Assigned partition ids. */
  readonly partitions: readonly number[];
}

/** A group with its members (GetConsumerGroup). */
export interface ConsumerGroupDetails extends ConsumerGroupInfo {
  /** The members in the server's order. */
  readonly members: readonly ConsumerGroupMember[];
}

function writeGroupInfo(w: ByteWriter, g: ConsumerGroupInfo): void {
  const name = wireNameBytes(g.name, 'name');
  w.u32(checkU32(g.id, 'id')).u32(checkU32(g.partitionsCount, 'partitionsCount')).u32(checkU32(g.membersCount, 'membersCount'));
  w.u8(name.length).bytes(name);
}

function readGroupInfo(r: ByteReader): ConsumerGroupInfo {
  return { id: r.u32('id'), partitionsCount: r.u32('partitionsCount'), membersCount: r.u32('membersCount'), name: r.wireName('name') };
}

/** Encodes a ConsumerGroupResponse (CreateConsumerGroup reply). */
export function encodeConsumerGroupInfo(g: ConsumerGroupInfo): Uint8Array {
  const w = new ByteWriter(32);
  writeGroupInfo(w, g);
  return w.finish().slice();
}

/** Decodes a ConsumerGroupResponse. */
export function decodeConsumerGroupInfo(payload: Uint8Array): ConsumerGroupInfo {
  const r = new ByteReader(payload, 'ConsumerGroupResponse');
  const g = readGroupInfo(r);
  r.end();
  return g;
}

/** Encodes a GetConsumerGroup reply; `undefined` → empty (not found). */
export function encodeConsumerGroupDetails(g: ConsumerGroupDetails | undefined): Uint8Array {
  if (g === undefined) return new Uint8Array(0);
  const w = new ByteWriter(64);
  writeGroupInfo(w, { ...g, membersCount: g.members.length });
  for (const m of g.members) {
    w.u32(checkU32(m.id, 'member.id')).u32(checkU32(m.partitions.length, 'member.partitionsCount'));
    for (const p of m.partitions) w.u32(checkU32(p, 'member.partition'));
  }
  return w.finish().slice();
}

/** Decodes a GetConsumerGroup reply; an empty payload means "not found". */
export function decodeConsumerGroupDetails(payload: Uint8Array): ConsumerGroupDetails | undefined {
  if (payload.length === 0) return undefined;
  const r = new ByteReader(payload, 'GetConsumerGroup');
  const info = readGroupInfo(r);
  r.need(info.membersCount * 8, 'members');
  const members: ConsumerGroupMember[] = [];
  for (let i = 0; i < info.membersCount; i++) {
    const id = r.u32('member.id');
    const n = r.u32('member.partitionsCount');
    r.need(n * 4, 'member.partitions');
    const partitions: number[] = [];
    for (let j = 0; j < n; j++) partitions.push(r.u32('member.partition'));
    members.push({ id, partitions });
  }
  r.end();
  return { ...info, members };
}

/** Encodes a GetConsumerGroups reply: ConsumerGroupResponses back to back. */
export function encodeConsumerGroupList(groups: readonly ConsumerGroupInfo[]): Uint8Array {
  const w = new ByteWriter(64);
  for (const g of groups) writeGroupInfo(w, g);
  return w.finish().slice();
}

/** Decodes a GetConsumerGroups reply. */
export function decodeConsumerGroupList(payload: Uint8Array): ConsumerGroupInfo[] {
  const r = new ByteReader(payload, 'GetConsumerGroups');
  const out: ConsumerGroupInfo[] = [];
  while (r.remaining > 0) out.push(readGroupInfo(r));
  return out;
}

/** SyncConsumerGroup reply (VSR): the membership generation and this member's partitions. */
export interface ConsumerGroupAssignment {
  /** Increases on every membership change. */
  readonly generation: bigint;
  /** Partition ids to poll, explicitly and round-robin. */
  readonly partitions: readonly number[];
}

/** Encodes `[generation u64][count u32][partition_id u32]×count`. */
export function encodeConsumerGroupAssignment(a: ConsumerGroupAssignment): Uint8Array {
  const w = new ByteWriter(16 + a.partitions.length * 4);
  w.u64(checkU64(a.generation, 'generation')).u32(checkU32(a.partitions.length, 'count'));
  for (const p of a.partitions) w.u32(checkU32(p, 'partition'));
  return w.finish().slice();
}

/** Decodes a SyncConsumerGroup reply. */
export function decodeConsumerGroupAssignment(payload: Uint8Array): ConsumerGroupAssignment {
  const r = new ByteReader(payload, 'SyncConsumerGroup');
  const generation = r.u64('generation');
  const count = r.u32('count');
  if (count * 4 !== r.remaining) throw new IggyCodecError(`SyncConsumerGroup: count ${count} does not match ${r.remaining} bytes`, { context: { count } });
  const partitions: number[] = [];
  for (let i = 0; i < count; i++) partitions.push(r.u32('partition'));
  return { generation, partitions };
}
