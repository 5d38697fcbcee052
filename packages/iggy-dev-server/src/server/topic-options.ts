/**
 * Iggy 0.9 accepts the canonical topic options `message_expiry` and `max_topic_size` either as
 * uint64 or as text (`"15m"`, `"1h 30m"`, `"10 MB"`, `"unlimited"`). The protocol codec lifts
 * the uint64 form; this lifts the text form, so both reach the broker as numbers.
 */

import { EXPIRY_NEVER, SIZE_UNLIMITED } from '@agdx/iggy-protocol';
import type { HeaderValue } from '@agdx/iggy-protocol';

const TIME_UNITS: ReadonlyMap<string, bigint> = new Map([
  ['us', 1n], ['µs', 1n], ['usec', 1n],
  ['ms', 1_000n], ['msec', 1_000n],
  ['s', 1_000_000n], ['sec', 1_000_000n], ['secs', 1_000_000n], ['second', 1_000_000n], ['seconds', 1_000_000n],
  ['m', 60_000_000n], ['min', 60_000_000n], ['mins', 60_000_000n], ['minute', 60_000_000n], ['minutes', 60_000_000n],
  ['h', 3_600_000_000n], ['hr', 3_600_000_000n], ['hrs', 3_600_000_000n], ['hour', 3_600_000_000n], ['hours', 3_600_000_000n],
  ['d', 86_400_000_000n], ['day', 86_400_000_000n], ['days', 86_400_000_000n],
  ['w', 604_800_000_000n], ['week', 604_800_000_000n], ['weeks', 604_800_000_000n],
]);

const SIZE_UNITS: ReadonlyMap<string, bigint> = new Map([
  ['b', 1n], ['', 1n],
  ['kb', 1_000n], ['kib', 1_024n],
  ['mb', 1_000_000n], ['mib', 1_048_576n],
  ['gb', 1_000_000_000n], ['gib', 1_073_741_824n],
  ['tb', 1_000_000_000_000n], ['tib', 1_099_511_627_776n],
]);

const UNLIMITED = new Set(['none', 'never', 'unlimited', 'never_expire', 'server_default']);

function parseSum(text: string, units: ReadonlyMap<string, bigint>, never: bigint): bigint | undefined {
  const t = text.trim().toLowerCase();
  if (UNLIMITED.has(t)) return t === 'server_default' ? 0n : never;
  const parts = [...t.matchAll(/(\d+)\s*([a-zµ]*)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join('').replace(/\s/g, '') !== t.replace(/\s/g, '')) return undefined;
  let total = 0n;
  for (const [, n, unit] of parts) {
    const scale = units.get(unit ?? '');
    if (scale === undefined) return undefined;
    total += BigInt(n ?? '0') * scale;
  }
  return total >= never ? never : total;
}

/** Text values of `message_expiry` (µs) and `max_topic_size` (bytes), lifted into settings. */
export interface LiftedTopicOptions {
  readonly messageExpiry?: bigint;
  readonly maxTopicSize?: bigint;
  readonly options?: ReadonlyMap<string, HeaderValue>;
}

// One decoder for every call. ignoreBOM: parseSum sees the text as sent, a leading U+FEFF included,
// rather than the decoder deciding for it (today parseSum's trim() treats U+FEFF as whitespace).
const optionText = new TextDecoder('utf-8', { ignoreBOM: true });

/** Moves parsable text forms of the canonical options out of `options`; the rest stays. */
export function liftTextOptions(options: ReadonlyMap<string, HeaderValue> | undefined): LiftedTopicOptions {
  if (options === undefined) return {};
  const rest = new Map(options);
  const text = (v: HeaderValue | undefined): string | undefined => (v?.kind === 'string' ? optionText.decode(v.value) : undefined);
  const expiry = text(rest.get('message_expiry'));
  const size = text(rest.get('max_topic_size'));
  const messageExpiry = expiry === undefined ? undefined : parseSum(expiry, TIME_UNITS, EXPIRY_NEVER);
  const maxTopicSize = size === undefined ? undefined : parseSum(size, SIZE_UNITS, SIZE_UNLIMITED);
  if (messageExpiry !== undefined) rest.delete('message_expiry');
  if (maxTopicSize !== undefined) rest.delete('max_topic_size');
  return {
    ...(messageExpiry === undefined ? {} : { messageExpiry }),
    ...(maxTopicSize === undefined ? {} : { maxTopicSize }),
    options: rest,
  };
}
