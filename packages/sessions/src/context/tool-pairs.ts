import type { SessionTurnKind } from '../turns/turn-kind.js';
import type { ContextMessage } from '../turns/session-turn.js';

/** For each tool turn the history pairs: the calls (of a result) or results (of a call) it pairs with. */
type ToolLinks = Map<ContextMessage, ContextMessage[]>;

function link(partners: ToolLinks, a: ContextMessage, b: ContextMessage): void {
  const list = partners.get(a);
  if (list === undefined) partners.set(a, [b]);
  else list.push(b);
}

/**
 * Pairs the tool calls and results of the history (oldest first). A result with a correlation
 * answers the earlier call with the same correlation. Plain turns carry no call id, so they pair
 * by position: a run of plain results (those after one plain call and before the next) answers
 * the newest plain calls still open, in order, as many as it holds. Parallel calls followed by
 * their results pair first with first; a call that never got its result (its tool crashed) stays
 * open behind the newer calls instead of taking a later call's result and shifting every pair
 * after it. The run's oldest results are the ones paired; a plain result beyond the open calls
 * stays unpaired (its call is not a `tool.call` turn, as with `@agdx/ai-sdk`, whose calls are
 * inside `model.response` turns, or it is not in the history at all).
 */
function linkTools(history: readonly ContextMessage[], kindOf: (topic: string) => SessionTurnKind | undefined): ToolLinks {
  const partners: ToolLinks = new Map();
  const lastCall = new Map<string, ContextMessage>();
  const open: ContextMessage[] = [];
  let results: ContextMessage[] = [];
  const pairRun = (): void => {
    const n = Math.min(results.length, open.length);
    const calls = open.splice(open.length - n, n);
    const answers = results.slice(0, n);
    for (let i = 0; i < n; i++) {
      link(partners, answers[i] as ContextMessage, calls[i] as ContextMessage);
      link(partners, calls[i] as ContextMessage, answers[i] as ContextMessage);
    }
    results = [];
  };
  for (const message of history) {
    const kind = kindOf(message.topic);
    if (kind !== 'tool.call' && kind !== 'tool.result') continue;
    const key = message.provenance.correlation;
    if (kind === 'tool.call') {
      if (key !== undefined) lastCall.set(key, message);
      else {
        if (results.length > 0) pairRun();
        open.push(message);
      }
    } else if (key !== undefined) {
      const call = lastCall.get(key);
      if (call !== undefined) {
        link(partners, message, call);
        link(partners, call, message);
      }
    } else results.push(message);
  }
  pairRun();
  return partners;
}

/**
 * What a policy selected, without the half of a tool exchange whose other half it cut. Model
 * APIs refuse a tool result whose call is not in the messages, and a call whose result is not,
 * so: a result is dropped when its call is in the history but not selected, and a call when its
 * results are in the history and none is selected. A call the history does not answer yet (the
 * tool is still running) and a result the history pairs with no call are kept as they are.
 * Plain tool turns pair as `linkTools` pairs them in the history, so a cut inside parallel calls
 * drops the results of the calls it cut, not the newest ones. The selection keeps its order; what
 * is dropped frees its tokens, and nothing older is added in its place.
 */
export function keepToolPairs(
  history: readonly ContextMessage[],
  selected: readonly ContextMessage[],
  kindOf: (topic: string) => SessionTurnKind | undefined,
): ContextMessage[] {
  // the common case: a selection without tool turns needs no pairing
  if (!selected.some((m) => {
    const kind = kindOf(m.topic);
    return kind === 'tool.call' || kind === 'tool.result';
  })) return [...selected];
  const partners = linkTools(history, kindOf);
  const chosen = new Set(selected);
  return selected.filter((message) => {
    const linked = partners.get(message);
    return linked === undefined || linked.some((m) => chosen.has(m));
  });
}
