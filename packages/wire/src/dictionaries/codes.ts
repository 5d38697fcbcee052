/** Error codes of an AgentErrorBody (u8; unknown codes pass through). */
export const AgentErrorCode: {
  readonly InvalidRequest: 1;
  readonly Unauthorized: 2;
  readonly Unsupported: 3;
  readonly DeadlineExceeded: 4;
  readonly Cancelled: 5;
  readonly ToolFailure: 6;
  readonly Internal: 7;
} = {
  InvalidRequest: 1,
  Unauthorized: 2,
  Unsupported: 3,
  DeadlineExceeded: 4,
  Cancelled: 5,
  ToolFailure: 6,
  Internal: 7,
};
/** An AgentErrorBody code. */
export type AgentErrorCode = (typeof AgentErrorCode)[keyof typeof AgentErrorCode];

/** Why a record was dead-lettered (u8; unknown codes pass through). */
export const DeadLetterReason: {
  readonly RetryExhausted: 1;
  readonly Rejected: 2;
  readonly DecodeFailed: 3;
  readonly DeadlineExceeded: 4;
  readonly SourceMismatch: 5;
} = {
  RetryExhausted: 1,
  Rejected: 2,
  DecodeFailed: 3,
  DeadlineExceeded: 4,
  // Not in 0.1.1: a verified record whose `source` is not the agent its signing key is enrolled for.
  SourceMismatch: 5,
};
/** A dead-letter reason code. */
export type DeadLetterReason = (typeof DeadLetterReason)[keyof typeof DeadLetterReason];

/** Capability health (u8; unknown codes pass through). */
export const Health: { readonly Healthy: 1; readonly Degraded: 2; readonly Unavailable: 3 } = {
  Healthy: 1,
  Degraded: 2,
  Unavailable: 3,
};
/** A health code. */
export type Health = (typeof Health)[keyof typeof Health];

/** Signature schemes (u8). Unknown schemes pass validation; only scheme 1 lengths are checked. */
export const SignatureScheme: { readonly Ed25519: 1 } = { Ed25519: 1 };
/** A signature scheme code. */
export type SignatureScheme = (typeof SignatureScheme)[keyof typeof SignatureScheme];
