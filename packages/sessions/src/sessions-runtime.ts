import { NoStreamError, type ActionGovernor, type AgdxClient, type HeartbeatRegistry } from '@agdx/agents';
import type { SkippedRecordHandler } from '@agdx/wire';
import type { SessionConfig } from './session-config.js';
import type { LaneGuard } from './lifecycle/lane-guard.js';

/** What every session of one factory shares. */
export interface SessionsRuntime {
  readonly client: AgdxClient;
  readonly config: SessionConfig;
  readonly governor: ActionGovernor | undefined;
  readonly heartbeats: HeartbeatRegistry | undefined;
  readonly lane: LaneGuard;
  /** Receives records the reads skipped (undecodable records, unreadable heartbeat, state or end bodies). */
  readonly onError: SkippedRecordHandler | undefined;
  /** The stream every session topic lives on. @throws NoStreamError when neither the layout nor the client names one. */
  stream(): string;
}

/** The stream of a layout on a client. */
export function resolveStream(client: AgdxClient, config: SessionConfig): string {
  const stream = config.streamName ?? client.defaultStream;
  if (stream === undefined) throw new NoStreamError('sessions need a stream: set SessionConfig.stream(..) or the client default stream');
  return stream;
}
