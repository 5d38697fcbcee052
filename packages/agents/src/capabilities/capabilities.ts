/** Query consistency levels a deployment can announce. */
export type QueryConsistency = 'eventual' | 'readYourWrites' | 'strong';

/**
 * What a deployment serves. A plain log serves streaming and the agent services built on it;
 * every managed feature is off and is never guessed from versions or failed requests.
 */
export interface Capabilities {
  /** True only when a managed plane announced itself. */
  readonly managed: boolean;
  /** Managed query. */
  readonly query: { readonly available: boolean; readonly consistency: QueryConsistency; readonly keyword: boolean };
  /** Managed key-value. */
  readonly kv: { readonly available: boolean; readonly cas: boolean; readonly casFenced: boolean };
  /** Managed graph. */
  readonly graph: boolean;
  /** Managed forks. */
  readonly forks: boolean;
  /** Managed A2A gateway. */
  readonly a2aGateway: boolean;
  /** Retired; never set. */
  readonly agentWorkflow: boolean;
  /** Change watch. */
  readonly watch: boolean;
  /** Managed authorization. */
  readonly authz: boolean;
  /** Managed session reads; only ever true when a server announces them. */
  readonly sessions: boolean;
  /** Durable dedup / processed-key storage served by the deployment. */
  readonly durableDedup: boolean;
  /** Every managed name scoped to one stream. */
  readonly streamTenancy: boolean;
  /** Announced backends (none on a plain log). */
  readonly backends: readonly string[];
}

/** What a plain log serves: every managed feature off. */
export const PLAIN_LOG_CAPABILITIES: Capabilities = Object.freeze({
  managed: false,
  query: Object.freeze({ available: false, consistency: 'eventual' as QueryConsistency, keyword: false }),
  kv: Object.freeze({ available: false, cas: false, casFenced: false }),
  graph: false,
  forks: false,
  a2aGateway: false,
  agentWorkflow: false,
  watch: false,
  authz: false,
  sessions: false,
  durableDedup: false,
  streamTenancy: false,
  backends: Object.freeze([]) as readonly string[],
});
