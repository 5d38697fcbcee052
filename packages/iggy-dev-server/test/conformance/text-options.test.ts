// Conformance (VSR): text values of the canonical topic options over the wire. Iggy 0.9 reads
// them with Rust's whitespace rules (core/common/src/types/options/mod.rs `parse_u64_or`, then
// the `IggyExpiry` / `MaxTopicSize` FromStr impls): surrounding White_Space is fine in a
// duration or a size, a leading U+FEFF (not White_Space) is InvalidOptionValue, and so is a
// keyword with anything around it.
import { describe, expect, it } from 'vitest';
import { CommandCode, EXPIRY_NEVER, decodeTopicDetails, encodeCreateStreamRequest, encodeCreateTopicRequest, headerValue } from '@agdx/iggy-protocol';
import type { HeaderValue } from '@agdx/iggy-protocol';
import { suiteServer, fresh } from './harness.js';

const node = suiteServer('memory');

describe('VSR text topic options', () => {
  it('accepts surrounding whitespace, refuses a byte order mark and padded keywords', async () => {
    const c = await node.client('vsr');
    const stream = fresh('text-options');
    await c.ok(CommandCode.CreateStream, encodeCreateStreamRequest({ name: stream }, 'vsr'));
    const create = (name: string, key: string, value: string): Uint8Array =>
      encodeCreateTopicRequest({ stream, name, partitionsCount: 1, options: new Map<string, HeaderValue>([[key, headerValue.string(value)]]) }, 'vsr');

    const padded = decodeTopicDetails(await c.ok(CommandCode.CreateTopic, create('padded', 'message_expiry', ' \t15m\u3000')), 'vsr');
    expect(padded?.messageExpiry).toBe(900_000_000n);
    const never = decodeTopicDetails(await c.ok(CommandCode.CreateTopic, create('never', 'message_expiry', 'unlimited')), 'vsr');
    expect(never?.messageExpiry).toBe(EXPIRY_NEVER);
    const sized = decodeTopicDetails(await c.ok(CommandCode.CreateTopic, create('sized', 'max_topic_size', '  10 MB\n')), 'vsr');
    expect(sized?.maxTopicSize).toBe(10_000_000n);

    expect(await c.refused(CommandCode.CreateTopic, create('bom-expiry', 'message_expiry', '\ufeff15m'))).toBe(4042);
    expect(await c.refused(CommandCode.CreateTopic, create('bom-size', 'max_topic_size', '\ufeff10 MB'))).toBe(4042);
    expect(await c.refused(CommandCode.CreateTopic, create('padded-keyword', 'message_expiry', ' unlimited'))).toBe(4042);
    expect(await c.refused(CommandCode.CreateTopic, create('tab-separated', 'max_topic_size', '10\tMB'))).toBe(4042);
    c.close();
  });
});
