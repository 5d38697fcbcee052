import { InvalidError } from '@agdx/wire';
import { AgdxError } from '@agdx/wire';
import type { LogTransport, TopicDescription } from '@agdx/transport';
import { parseExactJson } from './exact-json.js';

const U32_MAX = 0xffff_ffffn;
const U64_MAX = (1n << 64n) - 1n;
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const PARTITION_KEY = /^(0|[1-9][0-9]{0,9})$/;
const DECIMAL = /^(0|[1-9][0-9]{0,19})$/;

type RawJson = (text: string) => unknown;
const rawJSON: RawJson | undefined = (JSON as unknown as { rawJSON?: RawJson }).rawJSON;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Uint8Array);
}

function readOffset(value: unknown, topic: string, partition: string): bigint {
  let offset: bigint | undefined;
  if (typeof value === 'bigint') offset = value;
  else if (typeof value === 'number' && Number.isSafeInteger(value)) offset = BigInt(value);
  else if (typeof value === 'string' && DECIMAL.test(value)) offset = BigInt(value);
  if (offset === undefined || offset < 0n || offset > U64_MAX) {
    throw new InvalidError(`checkpoint offset of topic ${JSON.stringify(topic)} partition ${partition} is not a u64`, {
      context: { topic, partition },
    });
  }
  return offset;
}

/**
 * Where a session's topics end: for each partition of each topic, the next offset it will write.
 * A client-side bookmark, never a log record; it covers whole partitions, not one conversation.
 * Its JSON form, shared with the Rust and Python SDKs, is
 * `{"per_topic": {"<topic>": {"<partition>": <offset>}}}` with exact integers.
 */
export class Checkpoint {
  readonly #perTopic: ReadonlyMap<string, ReadonlyMap<number, bigint>>;

  /** A checkpoint over the given offsets (copied). */
  constructor(perTopic: ReadonlyMap<string, ReadonlyMap<number, bigint>> = new Map()) {
    const copy = new Map<string, ReadonlyMap<number, bigint>>();
    for (const [topic, partitions] of perTopic) copy.set(topic, new Map(partitions));
    this.#perTopic = copy;
  }

  /**
   * Records the current tail of every partition of `topics` on `stream`. A topic that does not
   * exist is left out, so later reads of it start from offset 0.
   */
  static async capture(transport: LogTransport, stream: string, topics: readonly string[], signal?: AbortSignal): Promise<Checkpoint> {
    const perTopic = new Map<string, Map<number, bigint>>();
    for (const topic of topics) {
      const tails = await topicTails(transport, stream, topic, signal);
      if (tails !== undefined) perTopic.set(topic, tails);
    }
    return new Checkpoint(perTopic);
  }

  /** The offsets of one topic, keyed by partition, or undefined when the topic is not covered. */
  topicOffsets(topic: string): Map<number, bigint> | undefined {
    const offsets = this.#perTopic.get(topic);
    return offsets === undefined ? undefined : new Map(offsets);
  }

  /** The topics covered, in insertion order. */
  topics(): string[] {
    return [...this.#perTopic.keys()];
  }

  /** True when no topic is covered. */
  isEmpty(): boolean {
    return this.#perTopic.size === 0;
  }

  /**
   * The JSON form, used by `JSON.stringify`. Offsets are numbers; an offset above 2^53 − 1 is
   * written exactly with `JSON.rawJSON` where the runtime has it, else as a decimal string (which
   * {@link Checkpoint.fromJSON} accepts, as older upstream versions wrote). Use
   * {@link Checkpoint.toJSONText} for exact numbers on every runtime.
   */
  toJSON(): { per_topic: Record<string, Record<string, unknown>> } {
    const perTopic: Record<string, Record<string, unknown>> = {};
    for (const [topic, partitions] of this.#perTopic) {
      const out: Record<string, unknown> = {};
      for (const [partition, offset] of [...partitions].sort((a, b) => a[0] - b[0])) {
        out[String(partition)] = offset <= MAX_SAFE ? Number(offset) : rawJSON !== undefined ? rawJSON(offset.toString()) : offset.toString();
      }
      perTopic[topic] = out;
    }
    return { per_topic: perTopic };
  }

  /** The JSON text with every offset as an exact JSON integer, on any runtime. */
  toJSONText(): string {
    const topics: string[] = [];
    for (const [topic, partitions] of this.#perTopic) {
      const entries = [...partitions].sort((a, b) => a[0] - b[0]).map(([p, o]) => `${JSON.stringify(String(p))}:${o.toString()}`);
      topics.push(`${JSON.stringify(topic)}:{${entries.join(',')}}`);
    }
    return `{"per_topic":{${topics.join(',')}}}`;
  }

  /**
   * Reads a checkpoint from its JSON text (integers parsed exactly, never through a JS number)
   * or from an already parsed value (offsets as safe integers, bigints or decimal strings).
   * @throws InvalidError `a checkpoint must be JSON`, `a checkpoint must be a JSON object`,
   * `... is not a u32` (partition), `... is not a u64` (offset).
   */
  static fromJSON(value: unknown): Checkpoint {
    const parsed: unknown = typeof value === 'string' ? parseExactJson(value) : value;
    if (!isPlainObject(parsed)) throw new InvalidError('a checkpoint must be a JSON object');
    const perTopicValue = parsed['per_topic'];
    if (!isPlainObject(perTopicValue)) throw new InvalidError('a checkpoint must be a JSON object with a per_topic object');
    const perTopic = new Map<string, Map<number, bigint>>();
    for (const topic of Object.keys(perTopicValue)) {
      const partitions = perTopicValue[topic];
      if (!isPlainObject(partitions)) {
        throw new InvalidError(`checkpoint topic ${JSON.stringify(topic)} must be a JSON object`, { context: { topic } });
      }
      const offsets = new Map<number, bigint>();
      for (const key of Object.keys(partitions)) {
        if (!PARTITION_KEY.test(key) || BigInt(key) > U32_MAX) {
          throw new InvalidError(`checkpoint partition ${JSON.stringify(key)} of topic ${JSON.stringify(topic)} is not a u32`, {
            context: { topic, partition: key },
          });
        }
        offsets.set(Number(key), readOffset(partitions[key], topic, key));
      }
      perTopic.set(topic, offsets);
    }
    return new Checkpoint(perTopic);
  }
}

/** A topic's description; undefined when the topic (or its stream) does not exist. */
export async function describeIfExists(transport: LogTransport, stream: string, topic: string, signal?: AbortSignal): Promise<TopicDescription | undefined> {
  try {
    return await transport.describeTopic({ stream, topic }, { signal });
  } catch (error) {
    if (AgdxError.is(error, 'not-found')) return undefined;
    throw error;
  }
}

/** Next offset of each partition of a topic; undefined when the topic does not exist. */
export async function topicTails(transport: LogTransport, stream: string, topic: string, signal?: AbortSignal): Promise<Map<number, bigint> | undefined> {
  const description = await describeIfExists(transport, stream, topic, signal);
  if (description === undefined) return undefined;
  const tails = new Map<number, bigint>();
  for (const p of description.partitions) tails.set(p.partition, p.nextOffset);
  return tails;
}

/** `Checkpoint.capture` under the name of the upstream helper. */
export function contextCheckpoint(transport: LogTransport, stream: string, topics: readonly string[]): Promise<Checkpoint> {
  return Checkpoint.capture(transport, stream, topics);
}
