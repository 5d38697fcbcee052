/**
 * Finding a node to serve the connection: each pass tries the known leader, then every seed in
 * order, then the rest of the roster, follows the leader the cluster metadata names, and pauses
 * with a growing, jittered back-off between passes. A lone server is tried `maxAttempts` times;
 * a cluster, which may be electing for seconds, until `failoverTimeoutMs` has passed.
 */

import { CancelledError, ClosedError, TransportFailureError } from '@agdx/transport';
import type { TransportError } from '@agdx/transport';
import type { ClusterMetadata } from '@agdx/iggy-protocol';
import type { ClusterDirectory, Endpoint, Settlement } from '../cluster-directory.js';
import { toTransportError } from '../error-mapping.js';
import type { ResolvedIggyOptions } from '../options.js';
import { firstPassDelay, jittered, nextPassDelay } from './backoff.js';
import { isFatalLoginFailure } from './fatal-login.js';

/** Leader redirects one connect attempt follows, as the official Node SDK. */
export const MAX_LEADER_REDIRECTS = 3;

/** What a search needs from the connection it looks for a node for. */
export interface SearchHost {
  readonly options: ResolvedIggyOptions;
  /** Seeds, roster and leader, shared with the transport's other connections. */
  readonly directory: ClusterDirectory;
  /** True once the connection was closed. */
  isClosed(): boolean;
  /** One socket attempt with login (and roster read); see `attemptSocket`. */
  attempt(endpoint: Endpoint, timeoutMs: number, signal?: AbortSignal): Promise<ClusterMetadata | undefined>;
  /** Drops the current socket without treating it as a lost connection (a redirect). */
  discard(): void;
  /** The pause between passes, ended early by close(). */
  pause(ms: number): Promise<void>;
  /** Records a login failure no retry can fix; returns the error the search then throws. */
  markFatal(error: TransportError): TransportError;
}

function sameEndpoint(a: Endpoint, b: Endpoint): boolean {
  return a.port === b.port && a.host.toLowerCase() === b.host.toLowerCase();
}

/**
 * Connects and logs in, per the reconnect policy, and settles on the leader the cluster
 * metadata names. With more than one known node the whole search is also bounded by
 * `failoverTimeoutMs`, each socket attempt by what is left of it. Throws a typed error when no
 * node serves within the policy, at once on a fatal login failure, close or abort.
 */
export async function findServingNode(host: SearchHost, signal?: AbortSignal): Promise<void> {
  const { initialDelayMs, maxDelayMs, failoverTimeoutMs } = host.options;
  const directory = host.directory;
  const clustered = directory.clustered;
  // A cluster may be electing for seconds (Iggy's heartbeat timeout): there the search is
  // bounded by time, not by a count of passes that a quick "no leader yet" would use up.
  const deadline = clustered ? Date.now() + failoverTimeoutMs : Number.POSITIVE_INFINITY;
  const maxAttempts = clustered ? Number.MAX_SAFE_INTEGER : host.options.maxAttempts;
  let delay = firstPassDelay(initialDelayMs, clustered);
  let last: unknown;
  const tried = new Set<string>();
  let attempt = 1;
  for (; attempt <= maxAttempts; attempt++) {
    for (const endpoint of directory.candidates()) {
      if (host.isClosed()) throw new ClosedError('the Iggy connection is closed');
      if (signal?.aborted === true) throw new CancelledError('connecting was aborted', { cause: signal.reason });
      if (Date.now() >= deadline) break;
      tried.add(`${endpoint.host}:${endpoint.port}`);
      try {
        if (await connectAndSettle(host, endpoint, deadline, signal)) return;
        last = new TransportFailureError('the Iggy cluster named no reachable, healthy leader', { context: { endpoint } });
      } catch (error) {
        last = error;
        if (error instanceof CancelledError || error instanceof ClosedError) throw error;
        if (isFatalLoginFailure(error)) throw host.markFatal(toTransportError(error, { phase: 'login' }));
        if (directory.leader !== undefined && sameEndpoint(directory.leader, endpoint)) directory.forgetLeader();
      }
    }
    const left = deadline - Date.now();
    if (left <= 0) break;
    if (attempt < maxAttempts) {
      await host.pause(jittered(delay, left));
      delay = nextPassDelay(delay, maxDelayMs, clustered);
    }
  }
  const context = { phase: 'connect', attempts: Math.min(attempt, maxAttempts), tried: [...tried], ...(clustered ? { failoverTimeoutMs } : {}) };
  if (clustered) {
    throw new TransportFailureError(`no Iggy primary found within ${failoverTimeoutMs} ms (tried ${[...tried].join(', ')})`, { cause: last, context });
  }
  throw toTransportError(last, context);
}

/**
 * One socket attempt at `endpoint`, then the redirects the cluster metadata asks for (at
 * most {@link MAX_LEADER_REDIRECTS}, as the official Node SDK). True once connected to a node
 * that serves (the leader, or a cluster of one); false when the cluster has no leader now.
 */
async function connectAndSettle(host: SearchHost, endpoint: Endpoint, deadline: number, signal?: AbortSignal): Promise<boolean> {
  let target = endpoint;
  for (let hop = 0; hop <= MAX_LEADER_REDIRECTS; hop++) {
    const timeoutMs = Math.max(1, Math.min(host.options.connectTimeoutMs, deadline - Date.now()));
    const metadata = await host.attempt(target, timeoutMs, signal);
    const settlement: Settlement = metadata === undefined ? { kind: 'stay' } : host.directory.learn(metadata, target);
    if (settlement.kind === 'stay') return true;
    host.discard();
    if (settlement.kind === 'leaderless') return false;
    target = settlement.leader;
  }
  host.directory.forgetLeader();
  return false;
}
