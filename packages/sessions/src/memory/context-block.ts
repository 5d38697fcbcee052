/** Something with text to put in a prompt. */
export interface BlockItem {
  /** The item's UTF-8 text. */
  text(): string;
}

const encoder = new TextEncoder();

/**
 * Renders recalled items as one prompt-ready string: texts joined by a blank line, each costing
 * `max(1, ceil(bytes / 4))` tokens, stopping at the first item over `tokenBudget` but always
 * rendering at least one, with a final `[... N more recalled item(s) omitted ...]` line when some
 * were left out.
 */
export function toContextBlock(items: readonly BlockItem[], tokenBudget?: number): string {
  const parts: string[] = [];
  let used = 0;
  for (const item of items) {
    const text = item.text();
    const cost = Math.max(1, Math.ceil(encoder.encode(text).length / 4));
    if (tokenBudget !== undefined && parts.length > 0 && used + cost > tokenBudget) break;
    parts.push(text);
    used += cost;
  }
  const omitted = items.length - parts.length;
  if (omitted > 0) parts.push(`[... ${omitted} more recalled item(s) omitted ...]`);
  return parts.join('\n\n');
}
