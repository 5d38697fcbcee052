/**
 * In-process parents for runtimes without a context manager. Browsers and edge runtimes (and
 * Node without `AsyncLocalStorageContextManager`) lose the active span across `await`, so a
 * send made inside a handler would start a new trace. While a handler or a wait runs, its span
 * is registered here under the agent and session it acts for, and under the record it handles,
 * so a send can still find its parent: first by the record it answers (`cause`), then by its
 * author and session, then by its author alone (a bridge call, which may create its session).
 * Concurrent scopes under one key share the newest entry.
 */
import type { SpanContext } from '@opentelemetry/api';

/** The registry. Entries are removed when their scope ends, so it holds only running work. */
export class LocalParents {
  readonly #byRecord = new Map<string, SpanContext>();
  readonly #byActor = new Map<string, SpanContext[]>();

  /** Registers a scope (with `conversation` undefined: any session of `agent`); the returned function removes it. */
  enter(agent: string, conversation: string | undefined, record: string | undefined, context: SpanContext): () => void {
    const actor = actorKey(agent, conversation);
    let stack = this.#byActor.get(actor);
    if (stack === undefined) this.#byActor.set(actor, (stack = []));
    stack.push(context);
    if (record !== undefined) this.#byRecord.set(record, context);
    return () => {
      const list = this.#byActor.get(actor);
      if (list !== undefined) {
        const at = list.lastIndexOf(context);
        if (at >= 0) list.splice(at, 1);
        if (list.length === 0) this.#byActor.delete(actor);
      }
      if (record !== undefined && this.#byRecord.get(record) === context) this.#byRecord.delete(record);
    };
  }

  /** The parent of a send by `agent` in `conversation` answering `cause`, when one is running. */
  find(agent: string, conversation: string, cause: string | undefined): SpanContext | undefined {
    if (cause !== undefined) {
      const byCause = this.#byRecord.get(cause);
      if (byCause !== undefined) return byCause;
    }
    const stack = this.#byActor.get(actorKey(agent, conversation)) ?? this.#byActor.get(actorKey(agent, undefined));
    return stack === undefined ? undefined : stack[stack.length - 1];
  }

  /** True when no scope is running (the common case without tracing: nothing to look up). */
  get empty(): boolean {
    return this.#byActor.size === 0 && this.#byRecord.size === 0;
  }

  /**
   * The newest scope of the agent that most recently started running in `conversation`, for work
   * that knows its session but not its agent (a session append made inside a handler). It scans
   * the running scopes, so it stays off the send and handle path.
   */
  findInConversation(conversation: string): SpanContext | undefined {
    const suffix = `\u0000${conversation}`;
    let found: SpanContext | undefined;
    for (const [key, stack] of this.#byActor) if (key.endsWith(suffix)) found = stack[stack.length - 1] ?? found;
    return found;
  }

  /** Number of running scopes (for tests: everything ended leaves it empty). */
  get size(): number {
    let n = 0;
    for (const list of this.#byActor.values()) n += list.length;
    return n;
  }
}

// An agent-wide key cannot collide with a session key: session keys always hold the separator.
function actorKey(agent: string, conversation: string | undefined): string {
  return conversation === undefined ? agent : `${agent}\u0000${conversation}`;
}
