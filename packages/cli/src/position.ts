/** The one way the command line prints where a record is: `topic[partition]@offset`. */

import { BOOTSTRAP_TOPICS, nameId, ON_FIRST_USE_TOPICS } from '@agdx/agents';
import type { LogPosition } from '@agdx/wire';

/** A record's place in a stream, by topic name. */
export interface RecordPlace {
  readonly topic: string;
  readonly partition: number;
  readonly offset: bigint | number | string;
}

/** `topic[partition]@offset`, the form every agdx command prints. */
export function formatPosition(place: RecordPlace): string {
  return `${place.topic}[${place.partition}]@${place.offset}`;
}

/**
 * Prints a `LogPosition` (numeric stream and topic ids, as dead letters carry them) the same way,
 * naming the topic when its id is the id of an agent topic or one of `extraTopics`; a topic id
 * nobody here knows prints as `topic#<id>` rather than a guess.
 */
export function formatLogPosition(position: LogPosition, extraTopics: readonly string[] = []): string {
  const topic = [...BOOTSTRAP_TOPICS, ...ON_FIRST_USE_TOPICS, ...extraTopics].find((name) => nameId(name) === position.topicId);
  return formatPosition({ topic: topic ?? `topic#${position.topicId}`, partition: position.partitionId, offset: position.offset });
}
