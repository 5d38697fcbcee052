/** Small request helpers over {@link RawClient} shared by several test files. */

import {
  CommandCode,
  decodePollMessagesResponse,
  encodeCreateStreamRequest,
  encodeCreateTopicRequest,
  encodePollMessagesRequest,
  encodeSendMessagesRequest,
  partitioning,
} from '@agdx/iggy-protocol';
import type { HeaderValue, PolledMessages } from '@agdx/iggy-protocol';
import type { RawClient } from './raw-client.js';

const enc = new TextEncoder();

/** Creates a stream and a topic. */
export async function createTopic(c: RawClient, stream: string, topic: string, partitions: number): Promise<void> {
  await c.ok(CommandCode.CreateStream, encodeCreateStreamRequest({ name: stream }, c.protocol));
  await c.ok(CommandCode.CreateTopic, encodeCreateTopicRequest({ stream, name: topic, partitionsCount: partitions }, c.protocol));
}

/** Sends text payloads to one partition. */
export async function sendTexts(c: RawClient, stream: string, topic: string, partition: number, texts: readonly string[], headers?: ReadonlyMap<string, HeaderValue>): Promise<void> {
  const messages = texts.map((t) => ({ payload: enc.encode(t), ...(headers === undefined ? {} : { headers }) }));
  await c.ok(CommandCode.SendMessages, encodeSendMessagesRequest({ stream, topic, partitioning: partitioning.partitionId(partition), messages }, c.protocol));
}

/** Polls one partition from an offset. */
export async function pollFrom(c: RawClient, stream: string, topic: string, partition: number, offset: bigint, count = 1000): Promise<PolledMessages> {
  const body = encodePollMessagesRequest({ consumer: { kind: 'consumer', id: 1 }, stream, topic, partitionId: partition, strategy: { kind: 'offset', value: offset }, count, autoCommit: false });
  return decodePollMessagesResponse(await c.ok(CommandCode.PollMessages, body), c.protocol, { verifyChecksums: true });
}

/** Payloads as text. */
export function textsOf(r: PolledMessages): string[] {
  const dec = new TextDecoder();
  return r.messages.map((m) => dec.decode(m.payload));
}
