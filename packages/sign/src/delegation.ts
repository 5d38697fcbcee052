import type { AgentEnvelope } from '@agdx/wire';
import { onBehalfOf } from './envelope-port.js';
import { SignatureError } from './errors.js';
import type { KeyRegistry } from './key-registry.js';
import type { Micros } from './micros.js';
import type { ObservedHeaders } from './observed-headers.js';

/** Metadata key that names the user an agent acts for; covered by the signature. */
export const ON_BEHALF_OF = 'on_behalf_of';

/** A verified delegation: the key's principal acting for `user`. */
export interface Delegation {
  /** The principal whose enrolled key signed the envelope. */
  readonly signer: string;
  /** The `on_behalf_of` subject from the signed metadata. */
  readonly user: string;
}

/**
 * When a delegation was made: the broker timestamp of its record, and optionally the record's
 * observed headers. A key's validity window is judged only against a time, so without one a key
 * rotated out (its window ended) or not yet valid would still delegate.
 */
export interface DelegationAt {
  /** The record's broker timestamp (epoch µs): the key must be valid then. */
  readonly atMicros: Micros;
  /** The record's headers: the signature must bind their `agdx.ct` / `agdx.av` (as `verifyObservedAt`). */
  readonly observedHeaders?: ObservedHeaders | undefined;
}

/**
 * Verifies the envelope and returns the delegation when signed metadata carries an
 * `on_behalf_of` text value; undefined when there is none (or it is not text). With `at`, as
 * {@link KeyRegistry.verifyAt} (the key's window is checked at `at.atMicros`, and the bound
 * context against `at.observedHeaders` when given); without it, as {@link KeyRegistry.verify}
 * (unsigned, unknown, revoked or tampered envelopes are refused, the window is not consulted).
 */
export async function verifyDelegation(registry: KeyRegistry, envelope: AgentEnvelope, at?: DelegationAt): Promise<Delegation | undefined> {
  checkAt(at);
  const signer = at === undefined ? await registry.verify(envelope) : (await registry.verifyAt(envelope, at.atMicros, at.observedHeaders)).principal;
  return delegationOf(signer, envelope);
}

/** {@link verifyDelegation}, synchronously (see {@link KeyRegistry.verifySync}). */
export function verifyDelegationSync(registry: KeyRegistry, envelope: AgentEnvelope, at?: DelegationAt): Delegation | undefined {
  checkAt(at);
  const signer = at === undefined ? registry.verifySync(envelope) : registry.verifyAtSync(envelope, at.atMicros, at.observedHeaders).principal;
  return delegationOf(signer, envelope);
}

// A caller's `at` that is not an object would fail as a TypeError; refuse it as a signature error.
function checkAt(at: unknown): void {
  if (at !== undefined && (typeof at !== 'object' || at === null)) throw new SignatureError('delegation time must be an object with atMicros');
}

function delegationOf(signer: string, envelope: AgentEnvelope): Delegation | undefined {
  const user = onBehalfOf(envelope);
  return typeof user === 'string' ? { signer, user } : undefined;
}

/** Actions a grant covers. */
export const GrantAction = {
  /** Read access. */
  Read: 'read',
  /** Write access. */
  Write: 'write',
  /** Delete access. */
  Delete: 'delete',
  /** Administrative access. */
  Admin: 'admin',
} as const;

/** `'read' | 'write' | 'delete' | 'admin'`. */
export type GrantAction = (typeof GrantAction)[keyof typeof GrantAction];

/** Which resources a grant covers. */
export type ResourcePattern =
  /** Every resource, including an action that names none. */
  | { readonly kind: 'all' }
  /** Exactly this resource name. */
  | { readonly kind: 'literal'; readonly value: string }
  /** Every resource whose name starts with `value` (plain string prefix, no delimiter rule). */
  | { readonly kind: 'prefix'; readonly value: string };

/** One permission rule. A matching `deny` wins over any `allow`. */
export interface Grant {
  /** Feature the grant is about (0.1.1 uses kv, memory, projection, fork, graph, query, agent, workflow, authz). */
  readonly feature: string;
  /** The action covered. */
  readonly action: GrantAction;
  /** The resources covered. */
  readonly resource: ResourcePattern;
  /** Allow or deny. */
  readonly effect: 'allow' | 'deny';
}

function resourceMatches(pattern: ResourcePattern, resource: string | undefined): boolean {
  switch (pattern.kind) {
    case 'all':
      return true;
    case 'literal':
      return resource === pattern.value;
    case 'prefix':
      return resource !== undefined && resource.startsWith(pattern.value);
    default:
      return false;
  }
}

/**
 * True when the grants allow `action` on `resource` of `feature`: some matching grant allows
 * it and no matching grant denies it. No grants, no access.
 */
export function grantsAllow(
  grants: readonly Grant[],
  feature: string,
  action: GrantAction,
  resource?: string,
): boolean {
  let allowed = false;
  for (const grant of grants) {
    if (grant.feature !== feature || grant.action !== action || !resourceMatches(grant.resource, resource)) continue;
    if (grant.effect === 'deny') return false;
    if (grant.effect === 'allow') allowed = true;
  }
  return allowed;
}

/**
 * A delegated action must pass both the agent's grants and the user's grants.
 */
export function delegatedAllow(
  agentGrants: readonly Grant[],
  userGrants: readonly Grant[],
  feature: string,
  action: GrantAction,
  resource?: string,
): boolean {
  return grantsAllow(agentGrants, feature, action, resource) && grantsAllow(userGrants, feature, action, resource);
}
