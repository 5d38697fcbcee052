/**
 * Shared setup of the conformance suite: a dev server per storage kind, logged-in raw clients
 * of either generation, fresh names, and the small request helpers the cases repeat. The
 * cases themselves are written from the Apache Iggy sources (0.8.0 for classic, the 0.9 line
 * for VSR); each cites the rule it checks.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import {
  CommandCode,
  decodePollMessagesResponse,
  decodeTopicDetails,
  encodeCreateStreamRequest,
  encodeCreateTopicRequest,
  encodePollMessagesRequest,
  encodeSendMessagesRequest,
  encodeTopicTarget,
  initChecksums,
  partitioning,
} from '@agdx/iggy-protocol';
import type { IggyProtocol, Identifier, PolledMessages, PollingStrategy, TopicDetails } from '@agdx/iggy-protocol';
import { startDevServer } from '@agdx/iggy-dev-server';
import type { DevServer, DevServerOptions } from '@agdx/iggy-dev-server';
import { RawClient } from '../helpers/raw-client.js';

export { PROTOCOLS, RawClient } from '../helpers/raw-client.js';

/** Where a conformance server keeps its state. */
export type StorageKind = 'memory' | 'disk';

/** Both storage kinds, for `describe.each`. */
export const STORAGES: readonly StorageKind[] = ['memory', 'disk'];

/** A dev server for one suite, restartable on the same folder when on disk. */
export class ConformanceServer {
  readonly storage: StorageKind;
  readonly #options: DevServerOptions;
  readonly #dir: string | undefined;
  #server: DevServer | undefined;
  readonly #clients: RawClient[] = [];

  constructor(storage: StorageKind, options: DevServerOptions = {}) {
    this.storage = storage;
    this.#dir = storage === 'disk' ? mkdtempSync(join(tmpdir(), 'agdx-conformance-')) : undefined;
    this.#options = { ...options, ...(this.#dir === undefined ? {} : { data: this.#dir, fsync: 'never' as const }) };
  }

  /** Starts (or restarts) the server. */
  async start(): Promise<void> {
    this.#server = await startDevServer({ port: 0, ...this.#options });
  }

  /** The running server. */
  get server(): DevServer {
    if (this.#server === undefined) throw new Error('server not started');
    return this.#server;
  }

  /** A logged-in client of `protocol`, closed by {@link stop}. */
  async client(protocol: IggyProtocol): Promise<RawClient> {
    const c = await RawClient.connect(this.server.port, protocol);
    const r = await c.login();
    if (!r.ok) throw r.error;
    this.#clients.push(c);
    return c;
  }

  /** Closes the clients and the server, keeping the data folder. */
  async stop(): Promise<void> {
    for (const c of this.#clients.splice(0)) c.close();
    await this.#server?.close();
    this.#server = undefined;
  }

  /** Stops and removes the data folder. */
  async dispose(): Promise<void> {
    await this.stop();
    if (this.#dir !== undefined) rmSync(this.#dir, { recursive: true, force: true });
  }
}

/**
 * A server for the enclosing suite (or `describe` block): checksums initialised and the server
 * started before its cases, disposed after them.
 */
export function suiteServer(storage: StorageKind, options: DevServerOptions = {}): ConformanceServer {
  const node = new ConformanceServer(storage, options);
  beforeAll(async () => {
    await initChecksums();
    await node.start();
  });
  afterAll(() => node.dispose());
  return node;
}

let counter = 0;

/** A name no other case uses. */
export function fresh(prefix: string): string {
  return `${prefix}-${process.pid}-${++counter}`;
}

const enc = new TextEncoder();
const dec = new TextDecoder();

/** Creates a stream and a topic with `partitions` partitions; returns their names. */
export async function createTopic(c: RawClient, partitions: number): Promise<{ stream: string; topic: string }> {
  const stream = fresh(`s-${c.protocol}`);
  await c.ok(CommandCode.CreateStream, encodeCreateStreamRequest({ name: stream }, c.protocol));
  await c.ok(CommandCode.CreateTopic, encodeCreateTopicRequest({ stream, name: 't', partitionsCount: partitions }, c.protocol));
  return { stream, topic: 't' };
}

/** Sends text payloads to one partition. */
export async function send(c: RawClient, stream: Identifier, topic: Identifier, partition: number, texts: readonly string[]): Promise<void> {
  await c.ok(CommandCode.SendMessages, encodeSendMessagesRequest({ stream, topic, partitioning: partitioning.partitionId(partition), messages: texts.map((t) => ({ payload: enc.encode(t) })) }, c.protocol));
}

/** Polls one partition as consumer `consumer` (a single consumer unless `group`). */
export async function poll(
  c: RawClient,
  target: { readonly stream: Identifier; readonly topic: Identifier; readonly partitionId?: number },
  strategy: PollingStrategy,
  options: { readonly count?: number; readonly autoCommit?: boolean; readonly consumer?: { readonly kind: 'consumer' | 'group'; readonly id: Identifier } } = {},
): Promise<PolledMessages> {
  const body = encodePollMessagesRequest({
    consumer: options.consumer ?? { kind: 'consumer', id: 1 },
    stream: target.stream,
    topic: target.topic,
    ...(target.partitionId === undefined ? {} : { partitionId: target.partitionId }),
    strategy,
    count: options.count ?? 100,
    autoCommit: options.autoCommit ?? false,
  });
  return decodePollMessagesResponse(await c.ok(CommandCode.PollMessages, body), c.protocol, { verifyChecksums: true });
}

/** Payloads as text. */
export function texts(r: PolledMessages): string[] {
  return r.messages.map((m) => dec.decode(m.payload));
}

/** GetTopic, failing when the topic is unknown. */
export async function topicDetails(c: RawClient, stream: Identifier, topic: Identifier): Promise<TopicDetails> {
  const t = decodeTopicDetails(await c.ok(CommandCode.GetTopic, encodeTopicTarget({ stream, topic })), c.protocol);
  if (t === undefined) throw new Error(`topic ${String(topic)} of ${String(stream)} not found`);
  return t;
}

/** `body` with `extra` bytes appended, as a newer SDK might send it. */
export function withTrailing(body: Uint8Array, extra: readonly number[] = [3, 0, 0, 0]): Uint8Array {
  return Uint8Array.from([...body, ...extra]);
}
