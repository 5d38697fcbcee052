import type { AgentEnvelope, AgentId } from '@agdx/wire';
import type { AppendRecord } from '@agdx/transport';
import type { ClientCore } from '../client/client-core.js';
import type { MessagePosition } from '../message/agent-message.js';

/** One append a send builder or chunk writer has fully prepared (validated, governed, signed, encoded). */
export interface PreparedAppend {
  /** The client internals the append goes through (its layout routes it). */
  readonly core: ClientCore;
  /** Stream appended to. */
  readonly stream: string;
  /** The named topic (the layout may move the records to another). */
  readonly topic: string;
  /** Kind of the records (all of a batch share a route). */
  readonly kind: AgentEnvelope['kind'] | 'plain';
  /** Addressee of the records, which the layout routes by. */
  readonly target: AgentId | undefined;
  /** The conversation's routing key. */
  readonly conversationKey: string;
  /** The encoded records, in order. */
  readonly records: readonly AppendRecord[];
  /**
   * Told once how the append ended (where it landed, or the error), by whoever awaited its
   * acknowledgment; the send's telemetry span ends there. Must not throw.
   */
  readonly acknowledged?: ((at: MessagePosition | undefined, error?: unknown) => void) | undefined;
}

/**
 * Takes over an append instead of the sender awaiting it: the runtime's answer pipeline issues it
 * in order behind the earlier appends to the same place and tracks its acknowledgment itself, so
 * a handler's answers go out without one round trip each. Resolves once the append is issued
 * (after back-pressure let it in); a failed acknowledgment surfaces where the issuer reports it.
 */
export interface AppendIssuer {
  /** Issues `append`; resolves (or returns undefined at once) when it is on its way. */
  issue(append: PreparedAppend): Promise<void> | undefined;
}
