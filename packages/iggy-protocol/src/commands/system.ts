/** GetMe (20) and GetStats (10) replies. Ping (1) and Logout (39) have empty bodies. */

import { ByteReader } from '../internal/byte-reader.js';
import { ByteWriter, encodeUtf8 } from '../internal/byte-writer.js';
import { checkU32, checkU64, checkU8 } from '../internal/checks.js';

/** A consumer group membership of a client. */
export interface ClientGroupMembership {
  /** Stream id. */
  readonly streamId: number;
  /** Topic id. */
  readonly topicId: number;
  /** Group id. */
  readonly groupId: number;
}

/** ClientDetails (GetMe): the ClientHeader plus group memberships. */
export interface ClientDetails {
  /** The server's id of this connection. */
  readonly clientId: number;
  /** The authenticated user (0 = root). */
  readonly userId: number;
  /** 1 = TCP, 2 = QUIC, 3 = HTTP, 4 = WebSocket. */
  readonly transport: number;
  /** The peer address. */
  readonly address: string;
  /** Consumer groups joined. */
  readonly consumerGroups: readonly ClientGroupMembership[];
}

/** Encodes ClientDetails (server side). */
export function encodeClientDetails(c: ClientDetails): Uint8Array {
  const w = new ByteWriter(64);
  const address = encodeUtf8(c.address);
  w.u32(checkU32(c.clientId, 'clientId')).u32(checkU32(c.userId, 'userId')).u8(checkU8(c.transport, 'transport'));
  w.u32(address.length).bytes(address).u32(checkU32(c.consumerGroups.length, 'consumerGroups'));
  for (const g of c.consumerGroups) w.u32(checkU32(g.streamId, 'streamId')).u32(checkU32(g.topicId, 'topicId')).u32(checkU32(g.groupId, 'groupId'));
  return w.finish().slice();
}

/** Decodes ClientDetails. */
export function decodeClientDetails(payload: Uint8Array): ClientDetails {
  const r = new ByteReader(payload, 'ClientDetails');
  const clientId = r.u32('clientId');
  const userId = r.u32('userId');
  const transport = r.u8('transport');
  const address = r.longString('address');
  const count = r.u32('consumerGroupsCount');
  r.need(count * 12, 'consumerGroups');
  const consumerGroups: ClientGroupMembership[] = [];
  for (let i = 0; i < count; i++) consumerGroups.push({ streamId: r.u32('streamId'), topicId: r.u32('topicId'), groupId: r.u32('groupId') });
  r.end();
  return { clientId, userId, transport, address, consumerGroups };
}

/** Cache hit statistics of one partition (GetStats). */
export interface CacheMetric {
  /** Stream id. */
  readonly streamId: number;
  /** Topic id. */
  readonly topicId: number;
  /** Partition id. */
  readonly partitionId: number;
  /** Cache hits. */
  readonly hits: bigint;
  /** Cache misses. */
  readonly misses: bigint;
  /** Hit ratio. */
  readonly hitRatio: number;
}

/** The GetStats (10) reply. A dev server may return zeros. */
export interface ServerStats {
  /** Server process id. */
  readonly processId: number;
  /** Process CPU usage. */
  readonly cpuUsage: number;
  /** Total CPU usage. */
  readonly totalCpuUsage: number;
  /** Process memory in bytes. */
  readonly memoryUsage: bigint;
  /** Total memory in bytes. */
  readonly totalMemory: bigint;
  /** Available memory in bytes. */
  readonly availableMemory: bigint;
  /** Run time, µs. */
  readonly runTime: bigint;
  /** Start time, µs since the epoch. */
  readonly startTime: bigint;
  /** Bytes read from disk. */
  readonly readBytes: bigint;
  /** Bytes written to disk. */
  readonly writtenBytes: bigint;
  /** Bytes of stored messages. */
  readonly messagesSizeBytes: bigint;
  /** Streams. */
  readonly streamsCount: number;
  /** Topics. */
  readonly topicsCount: number;
  /** Partitions. */
  readonly partitionsCount: number;
  /** Segments. */
  readonly segmentsCount: number;
  /** Messages. */
  readonly messagesCount: bigint;
  /** Connected clients. */
  readonly clientsCount: number;
  /** Consumer groups. */
  readonly consumerGroupsCount: number;
  /** Host name. */
  readonly hostname: string;
  /** OS name. */
  readonly osName: string;
  /** OS version. */
  readonly osVersion: string;
  /** Kernel version. */
  readonly kernelVersion: string;
  /** Server version string. */
  readonly serverVersion: string;
  /** Packed server semver (0 = absent). */
  readonly serverSemver: number;
  /** Per-partition cache metrics. */
  readonly cacheMetrics: readonly CacheMetric[];
  /** Server threads. */
  readonly threadsCount: number;
  /** Free disk space in bytes. */
  readonly freeDiskSpace: bigint;
  /** Total disk space in bytes. */
  readonly totalDiskSpace: bigint;
}

function writeLong(w: ByteWriter, s: string): void {
  const b = encodeUtf8(s);
  w.u32(b.length).bytes(b);
}

/** Encodes the GetStats reply (server side). */
export function encodeServerStats(s: ServerStats): Uint8Array {
  const w = new ByteWriter(256);
  w.u32(checkU32(s.processId, 'processId')).f32(s.cpuUsage).f32(s.totalCpuUsage);
  w.u64(checkU64(s.memoryUsage, 'memoryUsage')).u64(checkU64(s.totalMemory, 'totalMemory')).u64(checkU64(s.availableMemory, 'availableMemory'));
  w.u64(checkU64(s.runTime, 'runTime')).u64(checkU64(s.startTime, 'startTime')).u64(checkU64(s.readBytes, 'readBytes'));
  w.u64(checkU64(s.writtenBytes, 'writtenBytes')).u64(checkU64(s.messagesSizeBytes, 'messagesSizeBytes'));
  w.u32(checkU32(s.streamsCount, 'streamsCount')).u32(checkU32(s.topicsCount, 'topicsCount')).u32(checkU32(s.partitionsCount, 'partitionsCount'));
  w.u32(checkU32(s.segmentsCount, 'segmentsCount')).u64(checkU64(s.messagesCount, 'messagesCount'));
  w.u32(checkU32(s.clientsCount, 'clientsCount')).u32(checkU32(s.consumerGroupsCount, 'consumerGroupsCount'));
  for (const text of [s.hostname, s.osName, s.osVersion, s.kernelVersion, s.serverVersion]) writeLong(w, text);
  w.u32(checkU32(s.serverSemver, 'serverSemver')).u32(checkU32(s.cacheMetrics.length, 'cacheMetrics'));
  for (const c of s.cacheMetrics) {
    w.u32(checkU32(c.streamId, 'streamId')).u32(checkU32(c.topicId, 'topicId')).u32(checkU32(c.partitionId, 'partitionId'));
    w.u64(checkU64(c.hits, 'hits')).u64(checkU64(c.misses, 'misses')).f32(c.hitRatio);
  }
  w.u32(checkU32(s.threadsCount, 'threadsCount')).u64(checkU64(s.freeDiskSpace, 'freeDiskSpace')).u64(checkU64(s.totalDiskSpace, 'totalDiskSpace'));
  return w.finish().slice();
}

/** Decodes the GetStats reply. */
export function decodeServerStats(payload: Uint8Array): ServerStats {
  const r = new ByteReader(payload, 'GetStats');
  const head = {
    processId: r.u32('processId'),
    cpuUsage: r.f32('cpuUsage'),
    totalCpuUsage: r.f32('totalCpuUsage'),
    memoryUsage: r.u64('memoryUsage'),
    totalMemory: r.u64('totalMemory'),
    availableMemory: r.u64('availableMemory'),
    runTime: r.u64('runTime'),
    startTime: r.u64('startTime'),
    readBytes: r.u64('readBytes'),
    writtenBytes: r.u64('writtenBytes'),
    messagesSizeBytes: r.u64('messagesSizeBytes'),
    streamsCount: r.u32('streamsCount'),
    topicsCount: r.u32('topicsCount'),
    partitionsCount: r.u32('partitionsCount'),
    segmentsCount: r.u32('segmentsCount'),
    messagesCount: r.u64('messagesCount'),
    clientsCount: r.u32('clientsCount'),
    consumerGroupsCount: r.u32('consumerGroupsCount'),
    hostname: r.longString('hostname'),
    osName: r.longString('osName'),
    osVersion: r.longString('osVersion'),
    kernelVersion: r.longString('kernelVersion'),
    serverVersion: r.longString('serverVersion'),
    serverSemver: r.u32('serverSemver'),
  };
  const count = r.u32('cacheMetricsCount');
  r.need(count * 32, 'cacheMetrics');
  const cacheMetrics: CacheMetric[] = [];
  for (let i = 0; i < count; i++) {
    cacheMetrics.push({ streamId: r.u32('streamId'), topicId: r.u32('topicId'), partitionId: r.u32('partitionId'), hits: r.u64('hits'), misses: r.u64('misses'), hitRatio: r.f32('hitRatio') });
  }
  const tail = { threadsCount: r.u32('threadsCount'), freeDiskSpace: r.u64('freeDiskSpace'), totalDiskSpace: r.u64('totalDiskSpace') };
  r.end();
  return { ...head, cacheMetrics, ...tail };
}
