/**
 * Runs one command for a logged-in connection: decodes the request with the iggy-protocol
 * codecs (the layout of the connection's generation), calls the broker, and encodes the reply
 * payload. Refusals are thrown as `IggyError`; the connection layer turns them into a classic
 * status, a VSR status or a VSR result code, as the real server does.
 */

import {
  CommandCode,
  IggyError,
  MAX_PAYLOAD_SIZE,
  MAX_USER_HEADERS_SIZE,
  RESYNC_REQUIRED_PARTITION,
  encodeClientDetails,
  encodeClusterMetadata,
  encodeConsumerGroupAssignment,
  encodeConsumerGroupDetails,
  encodeConsumerGroupInfo,
  encodeConsumerGroupList,
  encodeConsumerOffsetInfo,
  encodeEmptyPollResponse,
  encodeSendMessagesResponse,
  encodeServerStats,
  encodeStreamDetails,
  encodeStreamInfo,
  encodeStreamList,
  encodeTopicDetails,
  encodeTopicList,
  headerValue,
  packProtocolVersion,
} from '@agdx/iggy-protocol';
import type { ClusterMetadata, Consumer, HeaderValue, IggyProtocol, StreamInfo, TopicDetails, TopicInfo } from '@agdx/iggy-protocol';
import { authorizeCommand } from '../auth/authorize.js';
import { USER_COMMAND_CODES, executeUserCommand } from '../auth/user-commands.js';
import type { UserDirectory } from '../auth/user-directory.js';
import type { Broker, PollOutcome, StreamState, TopicState } from '../log/broker.js';
import { MAX_PARTITIONS, POLL_RULES, Status } from '../log/broker.js';
import type { ConnectedClient } from './client-commands.js';
import { describeOptions, getClient, getClients } from './client-commands.js';
import {
  decodeCreateConsumerGroupRequest,
  decodeCreateStreamRequest,
  decodeCreateTopicRequest,
  decodeDeleteConsumerOffsetRequest,
  decodeDeleteSegmentsRequest,
  decodeDescribeOptionsRequest,
  decodeFlushUnsavedBufferRequest,
  decodeGetConsumerOffsetRequest,
  decodeGroupTarget,
  decodePartitionsRequest,
  decodePollMessagesRequest,
  decodeSendMessagesRequest,
  decodeStoreConsumerOffsetRequest,
  decodeStreamTarget,
  decodeTopicTarget,
  decodeUpdateStreamRequest,
  decodeUpdateTopicRequest,
} from './request-decoders.js';
import type { ConsumerGroupState } from '../log/consumer-group.js';
import { encodeClassicPoll } from '../log/classic-poll.js';
import { liftTextOptions } from './topic-options.js';
import { batchFromClassic, recordSliceLength, writeRecordSlice } from '../log/stored-batch.js';

/** What the command layer needs to know about the connection. */
export interface CommandConnection {
  /** The server's id of the connection (also its consumer-group member id). */
  readonly clientId: number;
  /** The logged-in user. */
  readonly userId: number;
  /** The peer address. */
  readonly address: string;
  /** The protocol generation. */
  readonly protocol: IggyProtocol;
}

/** Server-wide facts for GetStats. */
export interface CommandServer {
  /** The broker. */
  readonly broker: Broker;
  /** Users, permissions and personal access tokens. */
  readonly users: UserDirectory;
  /** Start time, µs. */
  readonly startedAt: bigint;
  /** Connected clients. */
  clientsCount(): number;
  /** Every open connection (GetClient, GetClients). */
  connectedClients(): Iterable<ConnectedClient>;
  /** The size at which a segment file is sealed (DescribeOptions reports it). */
  readonly segmentBytes: number;
  /** The roster this node reports (GetClusterMetadata). */
  clusterMetadata(): ClusterMetadata;
}

/** The server version string the dev server reports. */
export const SERVER_VERSION = '0.9.0-agdx-dev';

const EMPTY = new Uint8Array(0);

function streamInfo(s: StreamState): StreamInfo {
  let size = 0n;
  let messages = 0n;
  for (const t of s.topics.values()) {
    size += t.sizeBytes;
    messages += t.messagesCount;
  }
  return { id: s.id, createdAt: s.createdAt, topicsCount: s.topics.size, sizeBytes: size, messagesCount: messages, name: s.name };
}

function topicInfo(t: TopicState): TopicInfo {
  return {
    id: t.id,
    createdAt: t.createdAt,
    partitionsCount: t.partitions.length,
    messageExpiry: t.messageExpiry,
    compression: t.compression,
    maxTopicSize: t.maxTopicSize,
    replicationFactor: t.replicationFactor,
    sizeBytes: t.sizeBytes,
    messagesCount: t.messagesCount,
    name: t.name,
    ...canonicalOptions(t),
  };
}

/** VSR topic options: what the client set (re-sendable) and the defaults the server filled in. */
function canonicalOptions(t: TopicState): { options: Map<string, HeaderValue>; derivedOptions: Map<string, HeaderValue> } {
  const options = new Map(t.options);
  const derivedOptions = new Map<string, HeaderValue>();
  const canonical: Array<[string, HeaderValue]> = [
    ['message_expiry', headerValue.uint64(t.messageExpiry)],
    ['max_topic_size', headerValue.uint64(t.maxTopicSize)],
    ['compression_algorithm', headerValue.string(t.compression === 2 ? 'gzip' : 'none')],
  ];
  for (const [key, value] of canonical) (t.explicit.has(key) ? options : derivedOptions).set(key, value);
  return { options, derivedOptions };
}

function topicDetails(t: TopicState): TopicDetails {
  return {
    ...topicInfo(t),
    partitions: t.partitions.map((p) => ({
      id: p.id,
      createdAt: p.createdAt,
      segmentsCount: p.segmentsCount,
      currentOffset: p.currentOffset,
      sizeBytes: p.sizeBytes,
      messagesCount: p.messagesCount,
    })),
  };
}

function groupDetails(broker: Broker, g: ConsumerGroupState, partitions: number): Uint8Array {
  broker.settleGroup(g);
  return encodeConsumerGroupDetails({
    id: g.id,
    name: g.name,
    partitionsCount: partitions,
    membersCount: g.members.length,
    members: g.members.map((m) => ({ id: m.clientId, partitions: [...m.partitions] })),
  });
}

function owner(c: Consumer): { readonly kind: 'consumer' | 'group'; readonly id: number | string } {
  return { kind: c.kind, id: c.id };
}

/** Encodes a VSR poll reply from stored runs (the prefix, then the records). */
function vsrPollReply(outcome: PollOutcome): Uint8Array {
  const slices = outcome.slices;
  let size = 16;
  let count = 0;
  for (const s of slices) {
    size += recordSliceLength(s.batch, s.from, s.to);
    count += s.to - s.from;
  }
  // One buffer for the reply: each record, whole or sliced, is written straight into it.
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  view.setUint32(0, outcome.partitionId, true);
  view.setBigUint64(4, outcome.currentOffset, true);
  view.setUint32(12, count, true);
  let pos = 16;
  for (const s of slices) {
    pos += writeRecordSlice(s.batch, s.from, s.to, out, pos);
  }
  return out;
}

/** Runs a command and returns the reply payload (throws `IggyError` or a codec error). */
export function executeCommand(server: CommandServer, conn: CommandConnection, code: number, payload: Uint8Array): Uint8Array {
  const broker = server.broker;
  const protocol = conn.protocol;
  authorizeCommand(server.users, broker, conn.userId, code, payload);
  if (USER_COMMAND_CODES.has(code)) return executeUserCommand(server.users, conn.userId, protocol, code, payload);
  switch (code) {
    case CommandCode.Ping:
      return EMPTY;
    case CommandCode.GetStats: {
      let topics = 0;
      let partitions = 0;
      let segments = 0;
      let groups = 0;
      let messages = 0n;
      let size = 0n;
      for (const s of broker.streams.values()) {
        for (const t of s.topics.values()) {
          topics++;
          partitions += t.partitions.length;
          for (const p of t.partitions) segments += p.segmentsCount;
          groups += t.groups.size;
          messages += t.messagesCount;
          size += t.sizeBytes;
        }
      }
      const now = broker.now();
      return encodeServerStats({
        processId: process.pid,
        cpuUsage: 0,
        totalCpuUsage: 0,
        memoryUsage: BigInt(process.memoryUsage().rss),
        totalMemory: 0n,
        availableMemory: 0n,
        runTime: now - server.startedAt,
        startTime: server.startedAt,
        readBytes: 0n,
        writtenBytes: 0n,
        messagesSizeBytes: size,
        streamsCount: broker.streams.size,
        topicsCount: topics,
        partitionsCount: partitions,
        segmentsCount: segments,
        messagesCount: messages,
        clientsCount: server.clientsCount(),
        consumerGroupsCount: groups,
        hostname: 'localhost',
        osName: process.platform,
        osVersion: '',
        kernelVersion: '',
        serverVersion: SERVER_VERSION,
        serverSemver: packProtocolVersion(0, 9, 0),
        cacheMetrics: [],
        threadsCount: 1,
        freeDiskSpace: 0n,
        totalDiskSpace: 0n,
      });
    }
    case CommandCode.GetClient:
      return getClient(broker, server.connectedClients(), payload, protocol);
    case CommandCode.GetClients:
      return getClients(broker, server.connectedClients());
    case CommandCode.DescribeOptions:
      // Iggy 0.8 has no such command: classic answers InvalidCommand, as for any unknown code.
      if (protocol === 'classic') throw new IggyError(Status.InvalidCommand);
      return describeOptions(decodeDescribeOptionsRequest(payload).scope, server.segmentBytes);
    case CommandCode.GetClusterMetadata:
      return encodeClusterMetadata(server.clusterMetadata());
    case CommandCode.GetMe:
      return encodeClientDetails({ clientId: conn.clientId, userId: conn.userId, transport: 1, address: conn.address, consumerGroups: broker.membershipsOf(conn.clientId) });

    // streams
    case CommandCode.GetStream: {
      const s = broker.findStream(decodeStreamTarget(payload).stream);
      return encodeStreamDetails(s === undefined ? undefined : { ...streamInfo(s), topics: [...s.topics.values()].map(topicInfo) }, protocol);
    }
    case CommandCode.GetStreams:
      return encodeStreamList([...broker.streams.values()].map(streamInfo), protocol);
    case CommandCode.CreateStream: {
      const req = decodeCreateStreamRequest(payload, protocol);
      if (req.options !== undefined && req.options.size > 0) throw new IggyError(Status.UnsupportedOptionKey);
      return encodeStreamInfo(streamInfo(broker.createStream(req.name)), protocol);
    }
    case CommandCode.UpdateStream: {
      const req = decodeUpdateStreamRequest(payload, protocol);
      if (req.options !== undefined && req.options.size > 0) throw new IggyError(Status.UnsupportedOptionKey);
      broker.updateStream(req.stream, req.name);
      return EMPTY;
    }
    case CommandCode.DeleteStream:
      broker.deleteStream(decodeStreamTarget(payload).stream);
      return EMPTY;
    case CommandCode.PurgeStream:
      broker.purgeStream(decodeStreamTarget(payload).stream);
      return EMPTY;

    // topics
    case CommandCode.GetTopic: {
      const target = decodeTopicTarget(payload);
      const s = broker.findStream(target.stream);
      const t = s === undefined ? undefined : broker.findTopic(s, target.topic);
      if (t !== undefined) t.expire(broker.now());
      return encodeTopicDetails(t === undefined ? undefined : topicDetails(t), protocol);
    }
    case CommandCode.GetTopics:
      return encodeTopicList([...broker.stream(decodeStreamTarget(payload).stream).topics.values()].map(topicInfo), protocol);
    case CommandCode.CreateTopic: {
      const req = decodeCreateTopicRequest(payload, protocol);
      const t = broker.createTopic(req.stream, req.name, req.partitionsCount, { ...req, ...liftTextOptions(req.options) });
      return encodeTopicDetails(topicDetails(t), protocol);
    }
    case CommandCode.UpdateTopic: {
      const req = decodeUpdateTopicRequest(payload, protocol);
      broker.updateTopic(req.stream, req.topic, req.name, { ...req, ...liftTextOptions(req.options) }, protocol === 'vsr');
      return EMPTY;
    }
    case CommandCode.DeleteTopic: {
      const t = decodeTopicTarget(payload);
      broker.deleteTopic(t.stream, t.topic);
      return EMPTY;
    }
    case CommandCode.PurgeTopic: {
      const t = decodeTopicTarget(payload);
      broker.purgeTopic(t.stream, t.topic);
      return EMPTY;
    }
    case CommandCode.CreatePartitions: {
      const req = decodePartitionsRequest(payload);
      broker.createPartitions(req.stream, req.topic, req.partitionsCount);
      return EMPTY;
    }
    case CommandCode.DeletePartitions: {
      const req = decodePartitionsRequest(payload);
      // Iggy 0.9 bounds a delete like a create before consensus (`validate_partitions_change_count`);
      // 0.8 only refuses 0 and leaves a larger count to the topic's own size (2019).
      if (protocol === 'vsr' && req.partitionsCount > MAX_PARTITIONS) throw new IggyError(Status.TooManyPartitions);
      broker.deletePartitions(req.stream, req.topic, req.partitionsCount);
      return EMPTY;
    }

    case CommandCode.DeleteSegments: {
      const req = decodeDeleteSegmentsRequest(payload);
      broker.deleteSegments(req.stream, req.topic, req.partitionId, req.segmentsCount);
      return EMPTY;
    }

    // messages
    case CommandCode.SendMessages: {
      const req = decodeSendMessagesRequest(payload, protocol, { verifyChecksums: protocol === 'vsr' });
      if (protocol === 'vsr') {
        const batch = req.batch;
        if (batch === undefined) throw new IggyError(Status.InvalidFormat);
        // The request frame is the splitter's private copy and is dropped after this command, so
        // its batch is handed over: the partition copies it into its record slabs (or keeps a
        // very large one in place) and the frame's memory is reused for the next request.
        const r = broker.append(req.stream, req.topic, req.partitioning, batch.bytes, batch.header.messageCount);
        return encodeSendMessagesResponse([{ streamId: r.stream.id, topicId: r.topic.id, partitionId: r.partition, baseOffset: r.baseOffset }]);
      }
      for (const m of req.messages) {
        if (m.payload.length > MAX_PAYLOAD_SIZE) throw new IggyError(4022);
        if (m.rawHeaders.length > MAX_USER_HEADERS_SIZE) throw new IggyError(4017);
      }
      broker.append(req.stream, req.topic, req.partitioning, batchFromClassic(req.messages), req.messages.length);
      return EMPTY;
    }
    case CommandCode.FlushUnsavedBuffer: {
      // Iggy 0.9 answers FeatureUnavailable; 0.8 flushes. Every acknowledged append is already
      // written here, so after checking the target there is nothing left to flush.
      if (protocol === 'vsr') throw new IggyError(Status.FeatureUnavailable);
      const req = decodeFlushUnsavedBufferRequest(payload);
      broker.partition(broker.topic(req.stream, req.topic), req.partitionId);
      return EMPTY;
    }
    case CommandCode.PollMessages: {
      let req;
      try {
        req = decodePollMessagesRequest(payload);
      } catch (e) {
        // Iggy 0.9 answers an undecodable poll with an empty poll of partition 0.
        if (protocol === 'vsr') return encodeEmptyPollResponse(0, 0n);
        throw e;
      }
      const input = { ...req, consumer: owner(req.consumer) };
      let outcome: PollOutcome;
      try {
        outcome = broker.poll(input, conn.clientId, POLL_RULES[protocol]);
      } catch (e) {
        // The VSR group fence runs first: an unknown target or non-member gets the re-sync sentinel.
        if (protocol === 'vsr' && req.consumer.kind === 'group' && e instanceof IggyError) return encodeEmptyPollResponse(RESYNC_REQUIRED_PARTITION, 0n);
        throw e;
      }
      return protocol === 'vsr' ? vsrPollReply(outcome) : encodeClassicPoll(outcome.partitionId, outcome.currentOffset, outcome.slices);
    }

    // offsets
    case CommandCode.GetConsumerOffset: {
      const req = decodeGetConsumerOffsetRequest(payload);
      return encodeConsumerOffsetInfo(broker.getOffset(owner(req.consumer), req.stream, req.topic, req.partitionId ?? 0));
    }
    case CommandCode.StoreConsumerOffset: {
      const req = decodeStoreConsumerOffsetRequest(payload, protocol);
      const partition = req.partitionId ?? defaultPartition(broker, conn, protocol, req);
      broker.storeOffset(owner(req.consumer), req.stream, req.topic, partition, req.offset, conn.clientId);
      return EMPTY;
    }
    case CommandCode.DeleteConsumerOffset: {
      const req = decodeDeleteConsumerOffsetRequest(payload, protocol);
      const partition = req.partitionId ?? defaultPartition(broker, conn, protocol, req);
      broker.deleteOffset(owner(req.consumer), req.stream, req.topic, partition, conn.clientId);
      return EMPTY;
    }

    // consumer groups
    case CommandCode.GetConsumerGroup: {
      const target = decodeGroupTarget(payload);
      const t = broker.topic(target.stream, target.topic);
      const g = broker.findGroup(t, target.group);
      return g === undefined ? EMPTY : groupDetails(broker, g, t.partitions.length);
    }
    case CommandCode.GetConsumerGroups: {
      const target = decodeTopicTarget(payload);
      const t = broker.topic(target.stream, target.topic);
      return encodeConsumerGroupList([...t.groups.values()].map((g) => ({ id: g.id, name: g.name, partitionsCount: t.partitions.length, membersCount: g.members.length })));
    }
    case CommandCode.CreateConsumerGroup: {
      const req = decodeCreateConsumerGroupRequest(payload);
      const { topic, group } = broker.createGroup(req.stream, req.topic, req.name);
      return encodeConsumerGroupInfo({ id: group.id, name: group.name, partitionsCount: topic.partitions.length, membersCount: 0 });
    }
    case CommandCode.DeleteConsumerGroup: {
      const g = decodeGroupTarget(payload);
      broker.deleteGroup(g.stream, g.topic, g.group);
      return EMPTY;
    }
    case CommandCode.JoinConsumerGroup: {
      const g = decodeGroupTarget(payload);
      broker.joinGroup(g.stream, g.topic, g.group, conn.clientId);
      return EMPTY;
    }
    case CommandCode.LeaveConsumerGroup: {
      const g = decodeGroupTarget(payload);
      broker.leaveGroup(g.stream, g.topic, g.group, conn.clientId);
      return EMPTY;
    }
    case CommandCode.SyncConsumerGroup: {
      const g = decodeGroupTarget(payload);
      return encodeConsumerGroupAssignment(broker.syncGroup(g.stream, g.topic, g.group, conn.clientId));
    }
    default:
      throw new IggyError(Status.FeatureUnavailable);
  }
}

/**
 * The partition of a store or delete that named none: VSR refuses (the routing fails, status
 * 20 after mapping); classic uses partition 0 for a consumer and the member's current
 * round-robin partition for a group, as Iggy 0.8 does.
 */
function defaultPartition(broker: Broker, conn: CommandConnection, protocol: IggyProtocol, req: { readonly consumer: Consumer; readonly stream: number | string; readonly topic: number | string }): number {
  if (protocol === 'vsr') throw new IggyError(Status.PartitionNotFound);
  if (req.consumer.kind === 'consumer') return 0;
  const t = broker.topic(req.stream, req.topic);
  const g = broker.group(t, req.consumer.id);
  const m = g.member(conn.clientId);
  if (m === undefined) throw new IggyError(Status.GroupMemberNotFound);
  const pollable = g.pollable(m);
  return pollable.length === 0 ? 0 : (pollable[m.cursor % pollable.length] as number);
}
