/**
 * What a value costs @cfworker/json-schema to check, measured before it runs. Its `uniqueItems`
 * compares every item of an array with every other (n² steps, on the event loop), and its
 * comparisons and recursive schemas recurse as deep as the value nests, so a value inside the
 * body cap could hold the event loop for tens of seconds or overflow the stack.
 */

/**
 * Most item pairs `uniqueItems` may compare in one value: one array of 4,096 items, or more
 * smaller ones. Each comparison is a few nanoseconds, so a check stays in the tens of milliseconds.
 */
export const MAX_UNIQUE_ITEMS_PAIRS: number = 4096 * 4096;

/** True when `keyword` is a member of `schema` or of any object nested in it. */
export function schemaUses(schema: unknown, keyword: string): boolean {
  const seen = new Set<object>();
  const pending: unknown[] = [schema];
  while (pending.length > 0) {
    const node = pending.pop();
    if (typeof node !== 'object' || node === null || seen.has(node)) continue;
    seen.add(node);
    if (!Array.isArray(node) && Object.hasOwn(node, keyword)) return true;
    for (const child of Object.values(node)) pending.push(child);
  }
  return false;
}

/**
 * The item pairs a `uniqueItems` check could compare in `value`: the sum of n² over its arrays,
 * counted without recursion, and stopping once it passes `limit`.
 */
export function uniqueItemsPairs(value: unknown, limit: number): number {
  let pairs = 0;
  const pending: unknown[] = [value];
  while (pending.length > 0 && pairs <= limit) {
    const node = pending.pop();
    if (typeof node !== 'object' || node === null) continue;
    if (Array.isArray(node)) pairs += node.length * node.length;
    for (const child of Object.values(node)) pending.push(child);
  }
  return pairs;
}

/**
 * How deep a value the validator is given may nest (checked with `@agdx/wire`'s
 * `nestsDeeperThan`). Its comparisons and recursive schemas recurse once per level, and the result
 * is serialized with `JSON.stringify`, which recurses too: a deeper value would overflow the stack there.
 */
export const MAX_NESTING_DEPTH: number = 256;
