import { SESSIONS_TOPIC, type AgdxClient } from '@agdx/agents';
import { AgdxError } from '@agdx/wire';
import { MissingTopicError, StaleSessionError } from '../errors.js';

/**
 * Remembers the session lane the factory first saw (stream and the partition count of
 * `agent.sessions`) and refuses a lane write when it changed. A plain log reports no creation
 * time, so a recreated topic with the same partition count is not detected.
 */
export class LaneGuard {
  readonly #client: AgdxClient;
  #seen: { readonly stream: string; readonly partitions: number } | undefined;

  /** True once a lane write saw the lane. */
  get seen(): boolean {
    return this.#seen !== undefined;
  }

  /** A guard for one factory. */
  constructor(client: AgdxClient) {
    this.#client = client;
  }

  /**
   * Compares what the lane looks like now with what the factory first saw. Pins it on the first
   * observation of an existing lane.
   * @throws StaleSessionError when the lane is gone or its partition count changed.
   */
  observe(stream: string, partitions: number | undefined): void {
    const seen = this.#seen;
    if (partitions === undefined) {
      if (seen !== undefined) throw new StaleSessionError(`${SESSIONS_TOPIC} on stream ${JSON.stringify(stream)} is gone`, { context: { stream } });
      return;
    }
    if (seen === undefined) {
      this.#seen = { stream, partitions };
      return;
    }
    if (seen.stream !== stream || seen.partitions !== partitions) {
      throw new StaleSessionError(
        `${SESSIONS_TOPIC} on stream ${JSON.stringify(stream)} has ${partitions} partitions, the factory saw ${seen.partitions} on ${JSON.stringify(seen.stream)}`,
        { context: { stream, partitions, seen: seen.partitions } },
      );
    }
  }

  /**
   * Checks the lane before a write.
   * @throws MissingTopicError when `agent.sessions` does not exist; StaleSessionError when it changed.
   */
  async check(stream: string, signal?: AbortSignal): Promise<void> {
    let partitions: number | undefined;
    try {
      partitions = (await this.#client.transport.describeTopic({ stream, topic: SESSIONS_TOPIC }, { signal })).partitionCount;
    } catch (error) {
      if (!AgdxError.is(error, 'not-found')) throw error;
      this.observe(stream, undefined);
      throw new MissingTopicError(`topic ${SESSIONS_TOPIC} does not exist on stream ${JSON.stringify(stream)}; run bootstrap(partitions) first`, {
        cause: error,
        context: { stream, topic: SESSIONS_TOPIC },
      });
    }
    this.observe(stream, partitions);
  }
}
