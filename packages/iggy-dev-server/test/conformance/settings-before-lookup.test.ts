// Conformance: CreateTopic and UpdateTopic check their settings before they look up the stream
// and topic. Iggy 0.9 parses the options block before consensus (core/server/src/dispatch.rs,
// the "static-bounds" step: `TopicCreateOptions::parse` for CreateTopic,
// `validate_option_keys` then `TopicCreateOptions::parse` for UpdateTopic), while the stream and
// topic are only resolved when the command is applied; Iggy 0.8 refuses a compression code it
// does not know while decoding the body. So a request with bad settings aimed at a stream or
// topic that does not exist is refused for its settings, not with 1009 / 2010.
import { describe, expect, it } from 'vitest';
import { CommandCode, decodeVsrReplyHeader, encodeCreateTopicRequest, encodeUpdateTopicRequest, headerValue } from '@agdx/iggy-protocol';
import type { HeaderValue } from '@agdx/iggy-protocol';
import { suiteServer, createTopic, fresh } from './harness.js';
import type { RawClient } from './harness.js';

const node = suiteServer('memory');

const unknownKey = (): Map<string, HeaderValue> => new Map([['no_such_option', headerValue.uint64(1n)]]);
const badValue = (): Map<string, HeaderValue> => new Map([['message_expiry', headerValue.string('soon')]]);

/** Sends a VSR command expected to be refused before consensus; returns the header status. */
async function headerStatus(c: RawClient, code: number, body: Uint8Array): Promise<number> {
  c.write(c.vsr.command(code, body).frame);
  const frame = await c.nextFrame();
  if (typeof frame === 'string') throw new Error(`no reply: ${frame}`);
  const outcome = c.vsr.handleFrame(frame);
  expect(outcome.ok).toBe(false);
  // A pre-consensus deny: the code is the header's status and the body is empty.
  expect(frame.length).toBe(256);
  return decodeVsrReplyHeader(frame).status;
}

describe('VSR: topic options are refused before the stream or topic is looked up', () => {
  it('CreateTopic on a missing stream: 4041 for an unknown key, 4042 for a bad value, both before consensus', async () => {
    const c = await node.client('vsr');
    const stream = fresh('missing');
    expect(await headerStatus(c, CommandCode.CreateTopic, encodeCreateTopicRequest({ stream, name: 't', partitionsCount: 1, options: unknownKey() }, 'vsr'))).toBe(4041);
    expect(await headerStatus(c, CommandCode.CreateTopic, encodeCreateTopicRequest({ stream, name: 't', partitionsCount: 1, options: badValue() }, 'vsr'))).toBe(4042);
    // Valid options on the same missing stream: now the lookup answers.
    expect(await c.refused(CommandCode.CreateTopic, encodeCreateTopicRequest({ stream, name: 't', partitionsCount: 1 }, 'vsr'))).toBe(1009);
  });

  it('UpdateTopic on a missing stream or topic: the options code, not 1009 or 2010', async () => {
    const c = await node.client('vsr');
    const { stream } = await createTopic(c, 1);
    for (const target of [{ stream: fresh('missing'), topic: 't' }, { stream, topic: 'missing' }]) {
      expect(await headerStatus(c, CommandCode.UpdateTopic, encodeUpdateTopicRequest({ ...target, name: 'u', options: unknownKey() }, 'vsr'))).toBe(4041);
      expect(await headerStatus(c, CommandCode.UpdateTopic, encodeUpdateTopicRequest({ ...target, name: 'u', options: badValue() }, 'vsr'))).toBe(4042);
    }
    expect(await c.refused(CommandCode.UpdateTopic, encodeUpdateTopicRequest({ stream, topic: 'missing', name: 'u' }, 'vsr'))).toBe(2010);
  });

  it('UpdateTopic refuses the create-only keys with 4041 (before a bad value elsewhere), and leaves the topic as it was', async () => {
    const c = await node.client('vsr');
    const { stream, topic } = await createTopic(c, 1);
    for (const key of ['segment_size', 'enforce_fsync', 'messages_required_to_save', 'size_of_messages_required_to_save', 'preallocate_segments']) {
      const value = key === 'enforce_fsync' || key === 'preallocate_segments' ? headerValue.bool(true) : headerValue.uint64(1n << 20n);
      expect(await headerStatus(c, CommandCode.UpdateTopic, encodeUpdateTopicRequest({ stream, topic, name: 'renamed', options: new Map([[key, value]]) }, 'vsr'))).toBe(4041);
      // Wire order puts the bad value first; the key check still answers.
      const both = new Map<string, HeaderValue>([...badValue(), [key, value]]);
      expect(await headerStatus(c, CommandCode.UpdateTopic, encodeUpdateTopicRequest({ stream, topic, name: 'renamed', options: both }, 'vsr'))).toBe(4041);
    }
    // The updatable keys still apply, and nothing above renamed the topic.
    expect(await c.refused(CommandCode.UpdateTopic, encodeUpdateTopicRequest({ stream, topic: 'renamed', name: 'x' }, 'vsr'))).toBe(2010);
  });
});

// VSR carries compression as an option (covered above); classic as a code in the body.
describe('classic: a bad compression code is refused before the lookup', () => {
  const protocol = 'classic';
  it('CreateTopic and UpdateTopic on a missing stream answer 3 (InvalidCommand)', async () => {
    const c = await node.client(protocol);
    const stream = fresh('missing');
    expect(await c.refused(CommandCode.CreateTopic, encodeCreateTopicRequest({ stream, name: 't', partitionsCount: 1, compression: 9 }, protocol))).toBe(3);
    expect(await c.refused(CommandCode.UpdateTopic, encodeUpdateTopicRequest({ stream, topic: 't', name: 'u', compression: 9 }, protocol))).toBe(3);
    expect(await c.refused(CommandCode.CreateTopic, encodeCreateTopicRequest({ stream, name: 't', partitionsCount: 1 }, protocol))).toBe(1009);
  });
});
