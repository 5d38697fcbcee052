import type { AgentKind } from '@agdx/wire';

/** What a send is about to publish, as an {@link ActionGovernor} sees it. */
export interface GovernedAction {
  /** The envelope kind, or `send` for a chunk. */
  readonly kind: Exclude<AgentKind, 'chunk'> | 'send';
  /** Stream the record goes to. */
  readonly stream: string;
  /** Topic the record goes to (before any layout redirect). */
  readonly topic: string;
  /** Authoring agent. */
  readonly source: string;
  /** Addressee, when targeted. */
  readonly target: string | undefined;
  /** Conversation (Crockford text). */
  readonly conversation: string;
  /** Correlation (Crockford text), when set. */
  readonly correlation: string | undefined;
  /** Operation, when set. */
  readonly operation: string | undefined;
  /** Tool, when set. */
  readonly tool: string | undefined;
  /** Metadata `on_behalf_of`, when a string. */
  readonly onBehalfOf: string | undefined;
  /** Metadata `purpose`, when a string. */
  readonly purpose: string | undefined;
  /** Metadata `data_classification`, when a string. */
  readonly dataClassification: string | undefined;
  /** The body about to be sent. */
  readonly payload: Uint8Array;
  /** Whether the send will be signed. */
  readonly signed: boolean;
}

/** A governor's answer: publish as is, refuse, or publish with another body. */
export type GovernorVerdict =
  | { readonly kind: 'allow' }
  | { readonly kind: 'deny'; readonly reason?: string | undefined }
  | { readonly kind: 'rewrite'; readonly body: Uint8Array };

/**
 * A policy hook checked before every send (builders, chunk writers, `publish`). A deny becomes
 * a `PolicyBlockedError` and nothing is published; a rewrite replaces the body before signing.
 */
export interface ActionGovernor {
  /** Judges one action. */
  check(action: GovernedAction): GovernorVerdict | Promise<GovernorVerdict>;
}
