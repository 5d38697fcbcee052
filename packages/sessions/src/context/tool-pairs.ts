import type { SessionTurnKind } from '../turns/turn-kind.js';
import type { ContextMessage } from '../turns/session-turn.js';

/** Where a tool turn of the history stands: its partner, or whether the history answers it. */
interface ToolLinks {
  /** For a turn with a correlation: the calls (of a result) or results (of a call) it pairs with. */
  readonly partners: Map<ContextMessage, ContextMessage[]>;
  /** Plain tool turns (no correlation) the history pairs: each answered call and each answering result. */
  readonly paired: Set<ContextMessage>;
}

function link(partners: Map<ContextMessage, ContextMessage[]>, a: ContextMessage, b: ContextMessage): void {
  const list = partners.get(a);
  if (list === undefined) partners.set(a, [b]);
  else list.push(b);
}

/**
 * Pairs the tool calls and results of the history (oldest first). A result with a correlation
 * answers the earlier call with the same correlation. A plain result answers the oldest earlier
 * plain call not yet answered; a plain result with no such call stays unpaired (its call is not
 * a `tool.call` turn, as with `@agdx/ai-sdk`, whose calls are inside `model.response` turns, or
 * it is not in the history at all).
 */
function linkTools(history: readonly ContextMessage[], kindOf: (topic: string) => SessionTurnKind | undefined): ToolLinks {
  const partners = new Map<ContextMessage, ContextMessage[]>();
  const paired = new Set<ContextMessage>();
  const lastCall = new Map<string, ContextMessage>();
  const open: ContextMessage[] = [];
  let head = 0;
  for (const message of history) {
    const kind = kindOf(message.topic);
    if (kind !== 'tool.call' && kind !== 'tool.result') continue;
    const key = message.provenance.correlation;
    if (kind === 'tool.call') {
      if (key === undefined) open.push(message);
      else lastCall.set(key, message);
    } else if (key !== undefined) {
      const call = lastCall.get(key);
      if (call !== undefined) {
        link(partners, message, call);
        link(partners, call, message);
      }
    } else if (head < open.length) {
      paired.add(open[head++] as ContextMessage);
      paired.add(message);
    }
  }
  return { partners, paired };
}

/**
 * What a policy selected, without the half of a tool exchange whose other half it cut. Model
 * APIs refuse a tool result whose call is not in the messages, and a call whose result is not,
 * so: a result is dropped when its call is in the history but not selected, and a call when its
 * results are in the history and none is selected. A call the history does not answer yet (the
 * tool is still running) and a result the history pairs with no call are kept as they are.
 *
 * Plain tool turns carry no call id, so they pair by count: walking the selection, a plain result
 * answers the oldest selected plain call not yet answered; a plain result the history answered
 * and the selection cannot is dropped, and so is a selected plain call the history answered that
 * no selected result answers. The selection keeps its order; what is dropped frees its tokens,
 * and nothing older is added in its place.
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
  const { partners, paired } = linkTools(history, kindOf);
  const chosen = new Set(selected);
  const keep = new Set<ContextMessage>();
  const open: ContextMessage[] = [];
  let head = 0;
  for (const message of selected) {
    const kind = kindOf(message.topic);
    if (kind !== 'tool.call' && kind !== 'tool.result') {
      keep.add(message);
      continue;
    }
    const linked = partners.get(message);
    if (message.provenance.correlation !== undefined) {
      if (linked === undefined || linked.some((m) => chosen.has(m))) keep.add(message);
    } else if (kind === 'tool.call') {
      // kept for now: dropped below when the history answered it and no selected result does
      open.push(message);
      keep.add(message);
    } else if (head < open.length) {
      head++;
      keep.add(message);
    } else if (!paired.has(message)) {
      keep.add(message);
    }
  }
  for (let i = head; i < open.length; i++) {
    const call = open[i] as ContextMessage;
    if (paired.has(call)) keep.delete(call);
  }
  return selected.filter((m) => keep.has(m));
}
