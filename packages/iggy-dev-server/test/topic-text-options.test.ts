// The text forms of `message_expiry` and `max_topic_size`, read as Iggy 0.9 reads them:
// `IggyExpiry::from_str` over humantime 2 and `MaxTopicSize::from_str` over byte-unit 5
// (core/common/src/utils/expiry.rs, topic_size.rs, byte_size.rs). Whitespace is Rust's
// White_Space set, in which U+FEFF is not, so a leading byte order mark is refused.
import { describe, expect, it } from 'vitest';
import { EXPIRY_NEVER, SIZE_UNLIMITED } from '@agdx/iggy-protocol';
import { parseExpiryText, parseHumanDuration } from '../src/server/human-duration.js';
import { parseTopicSizeText } from '../src/server/byte-size-text.js';
import { isRustWhitespace, rustTrim } from '../src/server/rust-whitespace.js';

const MIN = 60_000_000n;

describe('Rust whitespace', () => {
  it('is White_Space: U+0085 in, U+FEFF and U+200B out (JavaScript trim differs on both)', () => {
    expect(isRustWhitespace('\u0085')).toBe(true);
    expect(isRustWhitespace('\u3000')).toBe(true);
    expect(isRustWhitespace('\ufeff')).toBe(false);
    expect(isRustWhitespace('\u200b')).toBe(false);
    expect(rustTrim('\u0085 x\t\n')).toBe('x');
    expect(rustTrim('\ufeffx')).toBe('\ufeffx');
  });
});

describe('message_expiry text (µs)', () => {
  it.each<[string, bigint]>([
    ['15m', 15n * MIN],
    ['1h 30m', 90n * MIN],
    ['1h30m', 90n * MIN],
    ['  15m  ', 15n * MIN],
    ['\t15m\n', 15n * MIN],
    ['\u300015m\u0085', 15n * MIN],
    ['15 m', 15n * MIN],
    ['1 5m', 15n * MIN],
    ['2M', 2n * 2_630_016_000_000n],
    ['1y', 31_557_600_000_000n],
    ['1500us', 1_500n],
    ['1500ns', 1n],
    ['0s', 0n],
    ['unlimited', EXPIRY_NEVER],
    ['never_expire', EXPIRY_NEVER],
    ['None', EXPIRY_NEVER],
    ['server_default', 0n],
    ['Default', 0n],
    ['136years', 136n * 31_557_600_000_000n],
  ])('%j → %s', (text, micros) => {
    expect(parseExpiryText(text)).toBe(micros);
  });

  it.each([
    '\ufeff15m',
    '15m\ufeff',
    '15\ufeffm',
    '\u200b15m',
    ' unlimited',
    'unlimited ',
    'UNLIMITED',
    'never',
    '15',
    '15 M s',
    '15MINUTES',
    '',
    '   ',
    'm',
    '-1s',
    '1.5h',
    '137years',
    '99999999999999999999999s',
  ])('%j is refused', (text) => {
    expect(parseExpiryText(text)).toBeUndefined();
  });

  it('keeps humantime nanoseconds before Iggy rounds to µs', () => {
    expect(parseHumanDuration('1s 5ns')).toBe(1_000_000_005n);
    expect(parseHumanDuration('')).toBeUndefined();
  });
});

describe('max_topic_size text (bytes)', () => {
  it.each<[string, bigint]>([
    ['10 MB', 10_000_000n],
    ['10MB', 10_000_000n],
    [' 10 MB ', 10_000_000n],
    ['\u0085\t10   MiB\u3000', 10n * 1_048_576n],
    ['10M', 10_000_000n],
    ['10Ki', 10_240n],
    ['10 kB', 10_000n],
    ['10 kb', 1_250n],
    ['10 Mbit', 1_250_000n],
    ['1.5 GiB', 1_610_612_736n],
    ['0.1 B', 1n],
    ['3b', 1n],
    ['512', 512n],
    ['1 EiB', 1n << 60n],
    ['unlimited', SIZE_UNLIMITED],
    ['18446744073709551615', SIZE_UNLIMITED],
    ['server_default', 0n],
    ['0', 0n],
    ['0 B', 0n],
    ['none', 0n],
    ['Unlimited', 0n],
  ])('%j → %s', (text, bytes) => {
    expect(parseTopicSizeText(text)).toBe(bytes);
  });

  it.each([
    '\ufeff10 MB',
    '10 MB\ufeff',
    '10\tMB',
    '10 M B',
    ' unlimited',
    'never',
    '10 XB',
    '10.',
    '.5 MB',
    '-1 MB',
    '10 MBs',
    '16 EiB',
    '18446744073709551616',
    '',
  ])('%j is refused', (text) => {
    expect(parseTopicSizeText(text)).toBeUndefined();
  });
});
