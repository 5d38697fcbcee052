/**
 * The form of an Agent Card that A2A verifiers can check. A2A SDKs canonicalize a card before
 * checking its signature: they read it through the v1.0 schema, which leaves out members that
 * hold nothing (an empty description, an empty tag list) and members v1.0 does not define
 * (`capabilities.stateTransitionHistory`, from A2A 0.3), then apply JCS. Our canonical JSON keeps
 * every member as given, so the card is signed and served in that reduced form: both
 * canonicalizations then give the same bytes and one signature satisfies both verifiers.
 */

import type { A2aAgentCard } from './card.js';

/** Members of a card's `capabilities` that A2A v1.0 no longer defines. */
const RETIRED_CAPABILITIES: readonly string[] = ['stateTransitionHistory'];

function isEmpty(value: unknown): boolean {
  if (value === null || value === undefined || value === '') return true;
  if (Array.isArray(value)) return value.length === 0;
  return typeof value === 'object' && Object.keys(value).length === 0;
}

/** `value` with its empty members left out, depth first (a member emptied by that goes too). */
function withoutEmpty(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutEmpty).filter((item) => !isEmpty(item));
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(value)) {
    const reduced = withoutEmpty(member);
    if (!isEmpty(reduced)) out[key] = reduced;
  }
  return out;
}

/**
 * The card as it is signed and served: empty members (`""`, `[]`, `{}`, `null`) left out at every
 * depth, and the capabilities A2A v1.0 retired removed. Everything else, `false` flags included,
 * is kept as given.
 */
export function a2aSignableCard(card: A2aAgentCard): A2aAgentCard {
  const capabilities: Record<string, unknown> = { ...card.capabilities };
  for (const name of RETIRED_CAPABILITIES) delete capabilities[name];
  return withoutEmpty({ ...card, capabilities }) as A2aAgentCard;
}
