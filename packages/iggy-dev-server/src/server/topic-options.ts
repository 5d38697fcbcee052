/**
 * Iggy 0.9 accepts the canonical topic options `message_expiry` and `max_topic_size` either as
 * uint64 or as text (`"15m"`, `"1h 30m"`, `"10 MB"`, `"unlimited"`). The protocol codec lifts
 * the uint64 form; this lifts the text form, read by the same rules as Iggy's `FromStr` impls
 * (see {@link parseExpiryText} and {@link parseTopicSizeText}), so both reach the broker as
 * numbers. Text Iggy refuses stays in the options, where the broker answers InvalidOptionValue.
 */

import type { HeaderValue } from '@agdx/iggy-protocol';
import { parseTopicSizeText } from './byte-size-text.js';
import { parseExpiryText } from './human-duration.js';

/** Text values of `message_expiry` (µs) and `max_topic_size` (bytes), lifted into settings. */
export interface LiftedTopicOptions {
  readonly messageExpiry?: bigint;
  readonly maxTopicSize?: bigint;
  readonly options?: ReadonlyMap<string, HeaderValue>;
}

// One decoder for every call. ignoreBOM: the parsers see the text as sent, a leading U+FEFF
// included, rather than the decoder dropping it (Iggy reads the bytes as they are, and refuses it).
// fatal: Iggy refuses a value that is not UTF-8 (`std::str::from_utf8`), so it must not be
// patched with U+FFFD into something that parses.
const optionText = new TextDecoder('utf-8', { ignoreBOM: true, fatal: true });

function text(value: HeaderValue | undefined): string | undefined {
  if (value?.kind !== 'string') return undefined;
  try {
    return optionText.decode(value.value);
  } catch {
    return undefined;
  }
}

/** Moves parsable text forms of the canonical options out of `options`; the rest stays. */
export function liftTextOptions(options: ReadonlyMap<string, HeaderValue> | undefined): LiftedTopicOptions {
  if (options === undefined) return {};
  const rest = new Map(options);
  const expiry = text(rest.get('message_expiry'));
  const size = text(rest.get('max_topic_size'));
  const messageExpiry = expiry === undefined ? undefined : parseExpiryText(expiry);
  const maxTopicSize = size === undefined ? undefined : parseTopicSizeText(size);
  if (messageExpiry !== undefined) rest.delete('message_expiry');
  if (maxTopicSize !== undefined) rest.delete('max_topic_size');
  return {
    ...(messageExpiry === undefined ? {} : { messageExpiry }),
    ...(maxTopicSize === undefined ? {} : { maxTopicSize }),
    options: rest,
  };
}
