/**
 * The Iggy commands the transport uses, each as one function over an {@link IggyConnection}:
 * encode the request for the connection's protocol, send it, decode the reply. Decoding
 * failures surface as typed transport errors.
 */

import {
  CommandCode,
  decodeClientDetails,
  decodeConsumerGroupAssignment,
  decodeConsumerGroupDetails,
  decodeConsumerOffsetInfo,
  decodeSendMessagesResponse,
  decodeTopicDetails,
  encodeCreateConsumerGroupRequest,
  encodeCreateStreamRequest,
  encodeCreateTopicRequest,
  encodeDeleteConsumerOffsetRequest,
  encodeGetConsumerOffsetRequest,
  encodeGroupTarget,
  encodePollMessagesRequest,
  encodeSendMessagesRequest,
  encodeStoreConsumerOffsetRequest,
  encodeTopicTarget,
  EXPIRY_NEVER,
  SIZE_UNLIMITED,
  CLASSIC_REQUEST_HEADER_SIZE,
  VSR_HEADER_SIZE,
} from '@agdx/iggy-protocol';
import type {
  Consumer,
  ConsumerGroupDetails,
  ConsumerOffsetInfo,
  OutgoingMessage,
  Partitioning,
  PartitionInfo,
  PolledMessages,
  PollingStrategy,
  SendConfirmation,
  TopicDetails,
} from '@agdx/iggy-protocol';
import type { LogRecord, TransportError } from '@agdx/transport';
import type { IggyConnection } from './connection/iggy-connection.js';
import type { RequestOptions } from './connection/call.js';
import { toTransportError } from './error-mapping.js';
import { ChecksumMismatchError, UnexpectedReplyError } from './integrity-errors.js';
import { FramePool } from './frame-pool.js';
import { OutcomeUnknownError } from './outcome-unknown.js';
import { checkedPollReply } from './poll-reply.js';
import { headersOf } from './record-headers.js';

// Ids are minted by the encoder, which writes pooled random bytes straight into each frame (no
// bigint per message): VSR always does, and classic does with `classicIds: 'random'`, because a
// classic server given id 0 mints the ids itself, one message at a time, slowly.
const SEND_OPTIONS = { classicIds: 'random' } as const;

/** Buffers of large send frames, shared by every connection of the process. */
const FRAMES = new FramePool();

/**
 * Refuses a classic reply that is not shaped like the answer to its command. Classic replies
 * carry no request id, so such a reply most likely answers another request (a duplicate or a
 * stray frame): the connection is reset before later replies are taken for the wrong calls.
 * Returns the error to throw.
 */
export function refuseClassicReply(c: IggyConnection, command: number, why: string, cause?: unknown, outcomeUnknown = false): UnexpectedReplyError {
  // Refused while answering a write that went out (an append), the write may have been applied.
  const context = outcomeUnknown ? { command, outcome: 'unknown' } : { command };
  const error = new UnexpectedReplyError(`the Iggy server answered command ${command} with ${why}`, 'reply-shape', { cause, context });
  c.discard(error);
  return error;
}

/**
 * Runs a decoder over reply bytes; a malformed reply becomes a `transport` error, on classic an
 * {@link UnexpectedReplyError} that resets the connection (see {@link refuseClassicReply}).
 */
function decoded<T>(c: IggyConnection, decode: () => T, command: number): T {
  try {
    return decode();
  } catch (error) {
    if (c.protocol === 'classic') throw refuseClassicReply(c, command, 'a reply that does not decode as its answer', error);
    throw toTransportError(error, { command });
  }
}

/** Wraps encoder failures (bad arguments the codec refused) as typed errors. */
function encoded(encode: () => Uint8Array): Uint8Array {
  try {
    return encode();
  } catch (error) {
    throw toTransportError(error);
  }
}

/** CreateStream (202). */
export async function createStream(c: IggyConnection, name: string, o: RequestOptions): Promise<void> {
  await c.request(CommandCode.CreateStream, encoded(() => encodeCreateStreamRequest({ name }, c.protocol)), o);
}

/** GetTopic (300): `undefined` when the topic does not exist. */
export async function getTopic(c: IggyConnection, stream: string, topic: string, o: RequestOptions): Promise<TopicDetails | undefined> {
  const payload = await c.request(CommandCode.GetTopic, encoded(() => encodeTopicTarget({ stream, topic })), { ...o, idempotent: true });
  return decoded(c, () => decodeTopicDetails(payload, c.protocol), CommandCode.GetTopic);
}

/**
 * CreateTopic (302); an `undefined` expiry is sent as Iggy's "never" and an `undefined` size
 * limit as "unlimited" (both u64::MAX), never as 0, which would take the server's defaults.
 */
export async function createTopic(
  c: IggyConnection,
  stream: string,
  topic: string,
  partitions: number,
  expiry: bigint | undefined,
  maxTopicBytes: bigint | undefined,
  o: RequestOptions,
): Promise<TopicDetails | undefined> {
  const body = encoded(() =>
    encodeCreateTopicRequest(
      { stream, name: topic, partitionsCount: partitions, messageExpiry: expiry ?? EXPIRY_NEVER, maxTopicSize: maxTopicBytes ?? SIZE_UNLIMITED },
      c.protocol,
    ),
  );
  const payload = await c.request(CommandCode.CreateTopic, body, o);
  if (payload.length === 0) return undefined;
  return decoded(c, () => decodeTopicDetails(payload, c.protocol), CommandCode.CreateTopic);
}

/** The offset the next record of a partition gets (the server reports the highest offset). */
export function nextOffsetOf(p: PartitionInfo): bigint {
  return p.currentOffset === 0n && p.messagesCount === 0n ? 0n : p.currentOffset + 1n;
}

/** A topic's expiry in the transport's terms: 0 (server default) and u64::MAX mean never. */
export function expiryOf(t: TopicDetails): bigint | undefined {
  return t.messageExpiry === 0n || t.messageExpiry === EXPIRY_NEVER ? undefined : t.messageExpiry;
}

/** A topic's size limit in the transport's terms: 0 (server default) and u64::MAX mean unlimited. */
export function maxTopicBytesOf(t: TopicDetails): bigint | undefined {
  return t.maxTopicSize === 0n || t.maxTopicSize === SIZE_UNLIMITED ? undefined : t.maxTopicSize;
}

/** SendMessages (101): VSR answers with confirmations, classic with nothing. */
export async function sendMessages(
  c: IggyConnection,
  stream: string,
  topic: string,
  partitioning: Partitioning,
  messages: readonly OutgoingMessage[],
  o: RequestOptions,
): Promise<SendConfirmation[]> {
  const payload = await requestSend(c, stream, topic, partitioning, messages, o);
  if (c.protocol === 'vsr') {
    try {
      return decodeSendMessagesResponse(payload);
    } catch (cause) {
      // The server accepted the send and then said where it landed in bytes that do not decode.
      throw new OutcomeUnknownError('the Iggy server acknowledged SendMessages with a confirmation that does not decode', { cause, context: { command: CommandCode.SendMessages } });
    }
  }
  // Classic answers SendMessages with an empty payload; anything else answered another call.
  if (payload.length !== 0) throw refuseClassicReply(c, CommandCode.SendMessages, `${payload.length} bytes where an empty reply belongs`, undefined, true);
  return [];
}

/**
 * Encodes a SendMessages request and queues it on `c` before returning (so a request the caller
 * queues next goes out behind it on the same connection), resolving with the raw reply payload.
 * The body is encoded behind room for the frame header (VSR 256 bytes, classic 8) into a pooled
 * buffer (see frame-pool.ts), so the frame is built around it without a copy; the buffer goes
 * back to the pool once the server answered.
 */
export function requestSend(
  c: IggyConnection,
  stream: string,
  topic: string,
  partitioning: Partitioning,
  messages: readonly OutgoingMessage[],
  o: RequestOptions,
): Promise<Uint8Array> {
  let buffer: Uint8Array | undefined;
  const allocate = (bytes: number): Uint8Array => (buffer = FRAMES.take(bytes));
  const headroom = c.protocol === 'vsr' ? VSR_HEADER_SIZE : CLASSIC_REQUEST_HEADER_SIZE;
  let body: Uint8Array;
  try {
    body = encoded(() => encodeSendMessagesRequest({ stream, topic, partitioning, messages }, c.protocol, { ...SEND_OPTIONS, headroom, allocate }));
  } catch (error) {
    // Nothing reached the connection, so it will never release the request: say it is done.
    o.onRelease?.();
    throw error;
  }
  const sent = c.request(CommandCode.SendMessages, body, { ...o, headerInPlace: true });
  // Answered: the whole frame reached the server, so its buffer may serve the next send. A call
  // that failed keeps it (its bytes may still sit in the socket's queue).
  return sent.then((payload) => {
    if (buffer !== undefined) FRAMES.give(buffer);
    return payload;
  });
}

/**
 * PollMessages (100). The reply's checksums are verified and it must answer this poll (see
 * `poll-reply.ts`). A reply that answers another poll resets the connection; a poll that
 * changes nothing on the server is then sent once more over the fresh connection.
 */
export async function pollMessages(
  c: IggyConnection,
  request: {
    readonly consumer: Consumer;
    readonly stream: string;
    readonly topic: string;
    readonly partitionId: number | undefined;
    readonly strategy: PollingStrategy;
    readonly count: number;
    readonly autoCommit: boolean;
  },
  o: RequestOptions,
): Promise<PolledMessages> {
  const { partitionId, ...rest } = request;
  const body = encoded(() => encodePollMessagesRequest(partitionId === undefined ? rest : { ...rest, partitionId }));
  // A poll that auto-commits changes state on the server: never replay it.
  const idempotent = !request.autoCommit;
  for (let attempt = 1; ; attempt++) {
    const payload = await c.request(CommandCode.PollMessages, body, { ...o, idempotent });
    try {
      return checkedPollReply(payload, c.protocol, request, CommandCode.PollMessages);
    } catch (error) {
      // Replies and requests are out of step (or, on classic, may be): later replies on this
      // connection cannot be trusted either.
      const outOfStep = error instanceof UnexpectedReplyError || (c.protocol === 'classic' && !(error instanceof ChecksumMismatchError));
      if (outOfStep) c.discard(error as TransportError);
      if (!(error instanceof UnexpectedReplyError) || !idempotent || attempt >= 2) throw error;
    }
  }
}

/** Converts polled messages to transport records. */
export function toRecords(partition: number, polled: PolledMessages): LogRecord[] {
  try {
    return polled.messages.map((m) => ({
      partition,
      offset: m.offset,
      timestampMicros: m.timestamp,
      headers: headersOf(m.rawHeaders),
      payload: m.payload,
    }));
  } catch (error) {
    throw toTransportError(error, { command: CommandCode.PollMessages });
  }
}

/** StoreConsumerOffset (121). */
export async function storeOffset(c: IggyConnection, consumer: Consumer, stream: string, topic: string, partitionId: number, offset: bigint, o: RequestOptions): Promise<void> {
  const body = encoded(() => encodeStoreConsumerOffsetRequest({ consumer, stream, topic, partitionId, offset }, c.protocol));
  await c.request(CommandCode.StoreConsumerOffset, body, o);
}

/** GetConsumerOffset (120): `undefined` when nothing is stored. */
export async function getOffset(c: IggyConnection, consumer: Consumer, stream: string, topic: string, partitionId: number, o: RequestOptions): Promise<ConsumerOffsetInfo | undefined> {
  const payload = await c.request(CommandCode.GetConsumerOffset, encoded(() => encodeGetConsumerOffsetRequest({ consumer, stream, topic, partitionId })), { ...o, idempotent: true });
  return decoded(c, () => decodeConsumerOffsetInfo(payload), CommandCode.GetConsumerOffset);
}

/** DeleteConsumerOffset (122). */
export async function deleteOffset(c: IggyConnection, consumer: Consumer, stream: string, topic: string, partitionId: number, o: RequestOptions): Promise<void> {
  const body = encoded(() => encodeDeleteConsumerOffsetRequest({ consumer, stream, topic, partitionId }, c.protocol));
  await c.request(CommandCode.DeleteConsumerOffset, body, o);
}

/** CreateConsumerGroup (602). */
export async function createGroup(c: IggyConnection, stream: string, topic: string, name: string, o: RequestOptions): Promise<void> {
  await c.request(CommandCode.CreateConsumerGroup, encoded(() => encodeCreateConsumerGroupRequest({ stream, topic, name })), o);
}

/** GetConsumerGroup (600): `undefined` when the group does not exist. */
export async function getGroup(c: IggyConnection, stream: string, topic: string, group: string, o: RequestOptions): Promise<ConsumerGroupDetails | undefined> {
  const payload = await c.request(CommandCode.GetConsumerGroup, encoded(() => encodeGroupTarget({ stream, topic, group })), { ...o, idempotent: true });
  return decoded(c, () => decodeConsumerGroupDetails(payload), CommandCode.GetConsumerGroup);
}

/** The body of Join / Leave / Sync consumer group (all `[stream][topic][group]`). */
export function groupTargetBody(stream: string, topic: string, group: string): Uint8Array {
  return encoded(() => encodeGroupTarget({ stream, topic, group }));
}

/** SyncConsumerGroup (606, VSR only): the partitions the server assigned to this client. */
export async function syncGroup(c: IggyConnection, stream: string, topic: string, group: string, o: RequestOptions): Promise<readonly number[]> {
  const payload = await c.request(CommandCode.SyncConsumerGroup, groupTargetBody(stream, topic, group), { ...o, idempotent: true });
  return decoded(c, () => decodeConsumerGroupAssignment(payload), CommandCode.SyncConsumerGroup).partitions;
}

/** GetMe (20): this connection's server-side client id. */
export async function getMyClientId(c: IggyConnection, o: RequestOptions): Promise<number> {
  const payload = await c.request(CommandCode.GetMe, new Uint8Array(0), { ...o, idempotent: true });
  return decoded(c, () => decodeClientDetails(payload), CommandCode.GetMe).clientId;
}
