import { NotFoundError, partitionForKey, type LogRecord, type LogTransport, type RecordHeaders } from '@agdx/transport';
import { InvalidError, readStringHeader, stringHeader } from '@agdx/wire';
import type { ProcessedKeyStore } from './processed-key-store.js';
import { checkSigning, signedKeyRecord, verifiedKey, type CheckedSigning, type ProcessedKeySigning } from './signed-processed-key.js';

/** The topic {@link LogProcessedKeyStore} uses unless told otherwise. */
export const PROCESSED_KEYS_TOPIC = 'agent.processed_keys';

/** The header naming the store namespace a processed-key record belongs to. */
export const PROCESSED_KEY_NAMESPACE_HEADER = 'agdx.dedup.ns';

/** Where a {@link LogProcessedKeyStore} keeps its records. */
export interface LogProcessedKeyStoreOptions {
  /** The stream (usually the client's default stream). */
  readonly stream: string;
  /** The topic (default {@link PROCESSED_KEYS_TOPIC}); created with one partition when missing. */
  readonly topic?: string | undefined;
  /**
   * Which keys this store sees: records of other namespaces on the same topic are ignored.
   * Usually the agent id, so every agent of a consumer group shares one history.
   */
  readonly namespace: string;
  /** Bounds the startup fold. */
  readonly signal?: AbortSignal | undefined;
  /**
   * Signs every key this store records and counts only keys signed by a key enrolled for
   * `signing.agent` (checked with `signing.verifier` at the broker time). Use it when the agent
   * has a verifier: otherwise anyone who can append to the topic can mark a guessable
   * idempotency key processed, and the agent commits that signed command without handling it.
   * Unsigned keys already on the topic then no longer count.
   */
  readonly signing?: ProcessedKeySigning | undefined;
}

const encoder = new TextEncoder();
// ignoreBOM: a key that starts with U+FEFF is another key than the one without it.
const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const FOLD_BATCH = 10_000;

/**
 * A durable processed-key store backed by the log: each processed key is one appended record
 * (keyed by namespace, so a namespace's history lives on one partition), and {@link open} folds
 * that partition to rebuild the set. It survives restarts and is shared by every process that
 * opens the same namespace; the topic's retention bounds how long a key is remembered.
 */
export class LogProcessedKeyStore implements ProcessedKeyStore {
  readonly #transport: LogTransport;
  readonly #stream: string;
  readonly #topic: string;
  readonly #namespace: string;
  readonly #partition: number;
  readonly #keys: Set<string>;
  readonly #signing: CheckedSigning | undefined;
  #next: bigint;

  private constructor(transport: LogTransport, stream: string, topic: string, namespace: string, partition: number, keys: Set<string>, next: bigint, signing: CheckedSigning | undefined) {
    this.#signing = signing;
    this.#transport = transport;
    this.#stream = stream;
    this.#topic = topic;
    this.#namespace = namespace;
    this.#partition = partition;
    this.#keys = keys;
    this.#next = next;
  }

  /**
   * Opens the store: creates the topic when missing and folds the namespace's records.
   * @throws InvalidError for an empty namespace or a malformed `signing`; transport errors from the log.
   */
  static async open(transport: LogTransport, options: LogProcessedKeyStoreOptions): Promise<LogProcessedKeyStore> {
    const { stream, namespace, signal } = options;
    const topic = options.topic ?? PROCESSED_KEYS_TOPIC;
    if (typeof namespace !== 'string' || namespace.length === 0) {
      throw new InvalidError('a processed-key store needs a non-empty namespace', { context: { field: 'namespace' } });
    }
    const signing = options.signing === undefined ? undefined : checkSigning(options.signing);
    let description;
    try {
      description = await transport.describeTopic({ stream, topic }, { signal });
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
      description = await transport.ensureTopic({ stream, topic }, { partitions: 1 }, { signal });
    }
    const partition = await partitionForKey(namespace, description.partitionCount);
    const keys = new Set<string>();
    let next = 0n;
    for (;;) {
      const records = await transport.read({ stream, topic, partition, offset: next, maxCount: FOLD_BATCH, signal });
      for (const record of records) {
        next = record.offset + 1n;
        const key = await keyOf(record, namespace, signing);
        if (key !== undefined) keys.add(key);
      }
      if (records.length < FOLD_BATCH) break;
    }
    return new LogProcessedKeyStore(transport, stream, topic, namespace, partition, keys, next, signing);
  }

  /** Number of keys known. */
  get size(): number {
    return this.#keys.size;
  }

  /** True when `key` was processed (by this process or one whose record the fold saw). */
  has(key: string): boolean {
    return this.#keys.has(key);
  }

  /** Appends the key and resolves once the log accepted it. */
  async add(key: string): Promise<void> {
    if (this.#keys.has(key)) return;
    const headers: RecordHeaders = new Map([[PROCESSED_KEY_NAMESPACE_HEADER, stringHeader(this.#namespace)]]);
    const record = this.#signing === undefined ? { headers, payload: encoder.encode(key) } : await signedKeyRecord(this.#signing, key, headers);
    await this.#transport.append({
      stream: this.#stream,
      topic: this.#topic,
      routing: { partition: this.#partition },
      records: [record],
    });
    this.#keys.add(key);
  }

  /** Reads records other processes appended since the fold (cheap when there are none). */
  async refresh(signal?: AbortSignal): Promise<void> {
    for (;;) {
      const records = await this.#transport.read({
        stream: this.#stream,
        topic: this.#topic,
        partition: this.#partition,
        offset: this.#next,
        maxCount: FOLD_BATCH,
        signal,
      });
      for (const record of records) {
        this.#next = record.offset + 1n;
        const key = await keyOf(record, this.#namespace, this.#signing);
        if (key !== undefined) this.#keys.add(key);
      }
      if (records.length < FOLD_BATCH) return;
    }
  }
}

/** The key a record of `namespace` names: its payload, or with `signing` its verified signed body. */
async function keyOf(record: LogRecord, namespace: string, signing: CheckedSigning | undefined): Promise<string | undefined> {
  const header = record.headers.get(PROCESSED_KEY_NAMESPACE_HEADER);
  if (header === undefined) return undefined;
  try {
    if (readStringHeader(header, PROCESSED_KEY_NAMESPACE_HEADER) !== namespace) return undefined;
    return signing === undefined ? decoder.decode(record.payload) : await verifiedKey(signing, record);
  } catch {
    // A foreign or corrupt record on the topic is not a processed key; the fold skips it.
    return undefined;
  }
}
