/**
 * GetClusterMetadata (code 12): the request body is empty in both generations; the reply is the
 * roster `[name_len u32][name][nodes_count u32]` followed by one
 * `[name_len u32][name][ip_len u32][ip][tcp u16][quic u16][http u16][websocket u16][role u8][status u8]`
 * per node, all little-endian. The layout is the same in Iggy 0.8 (classic) and the 0.9 line
 * (VSR); see `core/binary_protocol/src/responses/system/get_cluster_metadata.rs`.
 */

import { IggyCodecError, IggyInvalidError } from '../errors.js';
import { ByteReader } from '../internal/byte-reader.js';
import { ByteWriter, encodeUtf8 } from '../internal/byte-writer.js';
import { checkU32, checkU8 } from '../internal/checks.js';

/** A node's role as Iggy numbers it (`ClusterNodeRole`, `#[repr(u8)]`). */
export const ClusterNodeRole = {
  /** The primary: it takes every write. */
  Leader: 0,
  /** A backup. */
  Follower: 1,
} as const;

/** A node's health as Iggy numbers it (`ClusterNodeStatus`; Iggy refuses its `Unknown` = 5 on the wire). */
export const ClusterNodeStatus = {
  Healthy: 0,
  Starting: 1,
  Stopping: 2,
  Unreachable: 3,
  Maintenance: 4,
} as const;

/** One of {@link ClusterNodeRole}'s names. */
export type ClusterNodeRoleName = keyof typeof ClusterNodeRole;
/** One of {@link ClusterNodeStatus}'s names. */
export type ClusterNodeStatusName = keyof typeof ClusterNodeStatus;

/** The client ports a node serves; 0 means the transport is off on that node. */
export interface ClusterNodeEndpoints {
  readonly tcp: number;
  readonly quic: number;
  readonly http: number;
  readonly websocket: number;
}

/** One node of the roster. */
export interface ClusterNode {
  /** The node's configured name. */
  readonly name: string;
  /** The address clients should dial (an IP or a host name, as the server advertises it). */
  readonly ip: string;
  /** Client ports. */
  readonly endpoints: ClusterNodeEndpoints;
  /** `Leader` (the primary) or `Follower`. */
  readonly role: ClusterNodeRoleName;
  /** Health as the answering node sees it. */
  readonly status: ClusterNodeStatusName;
}

/** The GetClusterMetadata reply. */
export interface ClusterMetadata {
  /** The cluster's name (`single-node` for a server without clustering). */
  readonly name: string;
  /** Every node of the roster, in roster order. */
  readonly nodes: readonly ClusterNode[];
}

/** The smallest encoded node: two empty strings, four ports, role and status. */
const NODE_MIN_SIZE = 4 + 4 + 8 + 1 + 1;

const ROLE_NAMES = new Map<number, ClusterNodeRoleName>(Object.entries(ClusterNodeRole).map(([k, v]) => [v, k as ClusterNodeRoleName]));
const STATUS_NAMES = new Map<number, ClusterNodeStatusName>(Object.entries(ClusterNodeStatus).map(([k, v]) => [v, k as ClusterNodeStatusName]));

function checkPort(port: number, field: string): number {
  if (!Number.isInteger(port) || port < 0 || port > 0xffff) throw new IggyInvalidError(`${field} must be a u16, got ${String(port)}`, { context: { field } });
  return port;
}

function writeU16(w: ByteWriter, v: number): void {
  w.u8(v & 0xff).u8(v >>> 8);
}

function readU16(r: ByteReader, field: string): number {
  r.need(2, field);
  return r.u8(field) | (r.u8(field) << 8);
}

function writeLongText(w: ByteWriter, text: string, field: string): void {
  if (typeof text !== 'string') throw new IggyInvalidError(`${field} must be a string`, { context: { field } });
  const b = encodeUtf8(text);
  w.u32(checkU32(b.length, field)).bytes(b);
}

/** Encodes the GetClusterMetadata request body: always empty. */
export function encodeGetClusterMetadataRequest(): Uint8Array {
  return new Uint8Array(0);
}

/** Encodes a GetClusterMetadata reply (server side). */
export function encodeClusterMetadata(metadata: ClusterMetadata): Uint8Array {
  const w = new ByteWriter(64 + metadata.nodes.length * 48);
  writeLongText(w, metadata.name, 'name');
  w.u32(checkU32(metadata.nodes.length, 'nodes'));
  for (const node of metadata.nodes) {
    writeLongText(w, node.name, 'node.name');
    writeLongText(w, node.ip, 'node.ip');
    const e = node.endpoints;
    for (const [field, port] of [['tcp', e.tcp], ['quic', e.quic], ['http', e.http], ['websocket', e.websocket]] as const) writeU16(w, checkPort(port, `endpoints.${field}`));
    const role = ClusterNodeRole[node.role];
    const status = ClusterNodeStatus[node.status];
    if (role === undefined) throw new IggyInvalidError(`role must be Leader or Follower, got ${String(node.role)}`, { context: { field: 'role' } });
    if (status === undefined) throw new IggyInvalidError(`status ${String(node.status)} is not one Iggy sends`, { context: { field: 'status' } });
    w.u8(checkU8(role, 'role')).u8(checkU8(status, 'status'));
  }
  return w.finish().slice();
}

function readNode(r: ByteReader): ClusterNode {
  const name = r.longString('node.name');
  const ip = r.longString('node.ip');
  const endpoints = { tcp: readU16(r, 'endpoints.tcp'), quic: readU16(r, 'endpoints.quic'), http: readU16(r, 'endpoints.http'), websocket: readU16(r, 'endpoints.websocket') };
  const roleByte = r.u8('role');
  const role = ROLE_NAMES.get(roleByte);
  if (role === undefined) throw r.fail(`unknown node role ${roleByte}`, 'role');
  const statusByte = r.u8('status');
  const status = STATUS_NAMES.get(statusByte);
  if (status === undefined) throw r.fail(`unknown node status ${statusByte}`, 'status');
  return { name, ip, endpoints, role, status };
}

/**
 * Decodes a GetClusterMetadata reply. Bytes after the last node are ignored, as Iggy's own
 * decoder (`decode_from`) does; a node count the remaining bytes cannot hold is refused before
 * anything is allocated. Unknown roles and statuses are refused (`IggyCodecError`), as Iggy's
 * SDKs refuse them.
 */
export function decodeClusterMetadata(payload: Uint8Array): ClusterMetadata {
  const r = new ByteReader(payload, 'ClusterMetadata');
  const name = r.longString('name');
  const count = r.u32('nodesCount');
  if (count > Math.floor(r.remaining / NODE_MIN_SIZE)) {
    throw new IggyCodecError(`ClusterMetadata: ${count} nodes cannot fit in ${r.remaining} bytes`, { context: { field: 'nodesCount', count, remaining: r.remaining } });
  }
  const nodes: ClusterNode[] = [];
  for (let i = 0; i < count; i++) nodes.push(readNode(r));
  return { name, nodes };
}
