/** What a signing key may speak for: an agent, or an operator (control and quarantine records). */
export const KeyKind = {
  /** An agent's own key. */
  Agent: 'agent',
  /** An operator key: required for registry quarantine and control records. */
  Operator: 'operator',
} as const;

/** `'agent'` or `'operator'`. */
export type KeyKind = (typeof KeyKind)[keyof typeof KeyKind];

/** True for a known key kind. */
export function isKeyKind(value: unknown): value is KeyKind {
  return value === KeyKind.Agent || value === KeyKind.Operator;
}
