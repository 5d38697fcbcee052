/**
 * Dead-letter records (seed 000: "Dead-letter records on agent.dlq include the original record
 * bytes, the source position, the reason, the attempt count, and optional detail").
 */
import { MAX_PAYLOAD_BYTES, NotFoundError, type LogTransport, type RecordHeaders } from '@agdx/transport';
import {
  CAPSULE_LIMITS,
  ContentType,
  ConversationId,
  encodeAgentDeadLetter,
  encodeProvenanceHeaders,
  HeaderName,
  sortHeaders,
  uint8Header,
  type AgentDeadLetter,
  type LogPosition,
  type Provenance,
} from '@agdx/wire';
import { logPositionOf, type RecordAddress } from '../agent/log-position.js';

/** The dead-letter topic. */
export const DEAD_LETTER_TOPIC = 'agent.dlq';

/** Everything a dead letter says about its record. */
export interface DeadLetterInput {
  /** Where the record sits. */
  readonly source: RecordAddress;
  /** The record's payload, verbatim. */
  readonly payload: Uint8Array;
  /** A `DeadLetterReason` code. */
  readonly reason: number;
  /** Handler attempts made (0 when the record was refused before the handler). */
  readonly attempts: number;
  /** Why, in words. */
  readonly detail?: string | undefined;
  /** The record's provenance, when it could be read: keeps its conversation on the letter. */
  readonly provenance?: Provenance | undefined;
}

/** A dead-letter record ready to append. */
export interface DeadLetterRecord {
  /** The capsule the payload encodes. */
  readonly capsule: AgentDeadLetter;
  /** Routing key: the conversation text. */
  readonly partitionKey: string;
  /** Provenance headers of the letter. */
  readonly headers: RecordHeaders;
  /** The CBOR capsule. */
  readonly payload: Uint8Array;
}

/**
 * Builds a dead-letter record: the capsule (source position, reason, attempts, detail,
 * original payload) as a plain agent message whose provenance is the original one without its
 * deadline (a dead letter must not expire with its record), caused by `"partition:offset"`, with
 * `agdx.ct = cbor`. The conversation is kept when known, otherwise a fresh one.
 */
export function deadLetterRecord(input: DeadLetterInput): DeadLetterRecord {
  const source = logPositionOf(input.source);
  const detail = input.detail === undefined ? undefined : truncateDetail(input.detail);
  const capsule = fittingCapsule(source, input.reason, input.attempts, detail, input.payload);
  const original = input.provenance;
  const provenance: Provenance = {
    ...(original === undefined ? {} : withoutDeadline(original)),
    conversation: original?.conversation ?? ConversationId.new(),
    cause: `${input.source.partition}:${input.source.offset}`,
  };
  let headers: RecordHeaders;
  try {
    headers = encodeProvenanceHeaders(provenance);
  } catch {
    // Provenance that does not fit the header rules must not keep the letter off the queue.
    headers = encodeProvenanceHeaders({ conversation: provenance.conversation, cause: provenance.cause });
  }
  const withType = sortHeaders([...headers, [HeaderName.ContentType, uint8Header(ContentType.cbor)]]);
  return { capsule, partitionKey: provenance.conversation.toString(), headers: withType, payload: encodeAgentDeadLetter(capsule) };
}

/** Bytes a CBOR byte-string head can take (major type 2 with a 64-bit length). */
const BYTE_STRING_HEAD = 9;

/**
 * The capsule with the original payload when the encoded letter stays within the cap the
 * dead-letter decoder reads (`CAPSULE_LIMITS.deadLetter`, 16 MiB) and the log's payload cap;
 * otherwise without it, the detail saying how large it was and that it stays at its source
 * position. A letter over the cap would be refused by the log (the record then stalled its
 * partition, dead-lettered again on every read) or stored but undecodable by every reader.
 * Checked before the payload is copied into a capsule.
 */
function fittingCapsule(source: LogPosition, reason: number, attempts: number, detail: string | undefined, payload: Uint8Array): AgentDeadLetter {
  const bare: AgentDeadLetter = { source, reason, attempts, ...(detail === undefined ? {} : { detail }), payload: new Uint8Array(0) };
  const limit = Math.min(CAPSULE_LIMITS.deadLetter.maxBytes, MAX_PAYLOAD_BYTES);
  if (payload.length === 0 || encodeAgentDeadLetter(bare).length + BYTE_STRING_HEAD + payload.length <= limit) return { ...bare, payload };
  const note = `original payload of ${payload.length} bytes left out: a dead letter holds at most ${limit} bytes; read it at the source position`;
  return { ...bare, detail: detail === undefined ? note : `${detail} (${note})` };
}

const MAX_DETAIL_CHARS = 4096;

function truncateDetail(detail: string): string {
  return detail.length > MAX_DETAIL_CHARS ? `${detail.slice(0, MAX_DETAIL_CHARS)}…` : detail;
}

function withoutDeadline(provenance: Provenance): Provenance {
  const { deadlineMicros: _deadline, ...rest } = provenance;
  return rest;
}

/** Told about every dead letter after it was published (or failed to be). */
export interface DeadLetterSink {
  /**
   * Called with the decoded message when there was one, the capsule, and the publish error when
   * the append failed. Its own errors are ignored.
   */
  onDeadLetter(message: unknown, capsule: AgentDeadLetter, publishError: unknown): void | Promise<void>;
}

/** Appends dead letters to `agent.dlq` of one stream, creating the topic when it is missing. */
export class DeadLetterWriter {
  readonly #transport: LogTransport;
  readonly #stream: string;
  readonly #topic: string;
  #ready: Promise<void> | undefined;

  /** A writer for `topic` (default `agent.dlq`) on `stream`. */
  constructor(transport: LogTransport, stream: string, topic: string = DEAD_LETTER_TOPIC) {
    this.#transport = transport;
    this.#stream = stream;
    this.#topic = topic;
  }

  /** Appends the record; resolves with its partition and offset. */
  async write(record: DeadLetterRecord): Promise<RecordAddress> {
    await (this.#ready ??= this.#ensure());
    const result = await this.#transport.append({
      stream: this.#stream,
      topic: this.#topic,
      routing: { key: record.partitionKey },
      records: [{ headers: record.headers, payload: record.payload }],
    });
    return { stream: this.#stream, topic: this.#topic, partition: result.partition, offset: result.baseOffset };
  }

  async #ensure(): Promise<void> {
    try {
      await this.#transport.describeTopic({ stream: this.#stream, topic: this.#topic });
    } catch (error) {
      if (!(error instanceof NotFoundError)) {
        this.#ready = undefined;
        throw error;
      }
      await this.#transport.ensureTopic({ stream: this.#stream, topic: this.#topic }, { partitions: 1 });
    }
  }
}
