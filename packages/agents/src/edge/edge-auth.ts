/** Claims an HTTP layer decoded from a bearer token (the SDK never parses tokens). */
export interface EdgeClaims {
  /** The token's audiences. */
  readonly audience: readonly string[];
  /** The token's granted scopes. */
  readonly scopes: readonly string[];
}

/** Why an edge request was refused: the wrong audience (401) or a missing scope (403 step-up). */
export type EdgeDenial =
  | { readonly kind: 'wrongAudience'; readonly expected: string }
  | { readonly kind: 'stepUp'; readonly requiredScope: string };

/** The error code a denial maps to (the reference's dictionary form). */
export type EdgeDenialCode = { readonly kind: 'known'; readonly name: 'Unauthenticated' | 'StepUpRequired' };

/**
 * Checks decoded claims at the edge: the audience first, then the scope, both by exact string
 * match. `undefined` means allowed.
 */
export function authorizeEdge(claims: EdgeClaims, expectedAudience: string, requiredScope: string): EdgeDenial | undefined {
  if (!claims.audience.includes(expectedAudience)) return { kind: 'wrongAudience', expected: expectedAudience };
  if (!claims.scopes.includes(requiredScope)) return { kind: 'stepUp', requiredScope };
  return undefined;
}

/**
 * The `WWW-Authenticate` challenge for a denial: `Bearer scope="<scope>"` for a step-up; none for
 * a wrong audience, which is a hard reject.
 */
export function edgeDenialChallenge(denial: EdgeDenial): string | undefined {
  return denial.kind === 'stepUp' ? `Bearer scope="${denial.requiredScope}"` : undefined;
}

/** The error code of a denial: `Unauthenticated` for the wrong audience, `StepUpRequired` otherwise. */
export function edgeDenialCode(denial: EdgeDenial): EdgeDenialCode {
  return { kind: 'known', name: denial.kind === 'wrongAudience' ? 'Unauthenticated' : 'StepUpRequired' };
}

/** The HTTP status of a denial: 401 for the wrong audience, 403 for a step-up. */
export function edgeDenialStatus(denial: EdgeDenial): 401 | 403 {
  return denial.kind === 'wrongAudience' ? 401 : 403;
}
