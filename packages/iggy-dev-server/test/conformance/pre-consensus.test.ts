// Conformance (VSR): where a refused metadata request's code travels. Iggy 0.9 refuses some
// requests before consensus, with the code as the reply header's `status` and an empty body:
// core/server/src/dispatch.rs `handle_client_request` runs the "static-bounds" checks (the body
// decodes; CreateTopic / CreatePartitions / DeletePartitions counts within
// `validate_partitions_count`; option keys within `validate_option_keys` or the topic catalog)
// and answers through `send_pre_consensus_deny`. Every other refusal is committed, status 0
// and the code in the result section (core/binary_protocol/src/consensus/reply_result.rs).
// Neither kind of denial moves the request numbering on: a denied request was never committed.
import { describe, expect, it } from 'vitest';
import {
  CommandCode,
  decodeResultSection,
  decodeVsrReplyHeader,
  encodeCreateStreamRequest,
  encodeCreateTopicRequest,
  encodePartitionsRequest,
  headerValue,
} from '@agdx/iggy-protocol';
import type { RawClient } from './harness.js';
import { suiteServer, createTopic, fresh } from './harness.js';

const node = suiteServer('memory');

/** Sends one command and returns where its refusal travelled. */
async function refusal(c: RawClient, code: number, body: Uint8Array): Promise<{ status: number; results: readonly number[]; bodyLength: number }> {
  c.write(c.vsr.command(code, body).frame);
  const frame = await c.nextFrame();
  if (typeof frame === 'string') throw new Error(`no reply: ${frame}`);
  const header = decodeVsrReplyHeader(frame);
  const reply = frame.subarray(256);
  const outcome = c.vsr.handleFrame(frame);
  expect(outcome.ok).toBe(false);
  return { status: header.status, results: header.status === 0 ? decodeResultSection(reply).results.map((r) => r.code) : [], bodyLength: reply.length };
}

describe('VSR refusals before consensus travel as a header status', () => {
  it('an undecodable CreateStream (an empty name): status 3, empty body', async () => {
    const c = await node.client('vsr');
    expect(await refusal(c, CommandCode.CreateStream, Uint8Array.of(0))).toEqual({ status: 3, results: [], bodyLength: 0 });
    // The next request is taken as usual.
    await c.ok(CommandCode.CreateStream, encodeCreateStreamRequest({ name: fresh('after-deny') }, 'vsr'));
  });

  it('partition counts outside the per-request bound: status 2015 (CreateTopic, CreatePartitions, DeletePartitions)', async () => {
    const c = await node.client('vsr');
    const { stream, topic } = await createTopic(c, 1);
    const deny = { status: 2015, results: [], bodyLength: 0 };
    expect(await refusal(c, CommandCode.CreateTopic, encodeCreateTopicRequest({ stream, name: fresh('wide'), partitionsCount: 1001 }, 'vsr'))).toEqual(deny);
    expect(await refusal(c, CommandCode.CreatePartitions, encodePartitionsRequest({ stream, topic, partitionsCount: 0 }))).toEqual(deny);
    expect(await refusal(c, CommandCode.DeletePartitions, encodePartitionsRequest({ stream, topic, partitionsCount: 0 }))).toEqual(deny);
    expect(await refusal(c, CommandCode.DeletePartitions, encodePartitionsRequest({ stream, topic, partitionsCount: 1001 }))).toEqual(deny);
  });

  it('an option key the operation does not take: status 4041', async () => {
    const c = await node.client('vsr');
    const options = new Map([['no_such_option', headerValue.uint64(1n)]]);
    expect(await refusal(c, CommandCode.CreateStream, encodeCreateStreamRequest({ name: fresh('opt'), options }, 'vsr'))).toEqual({ status: 4041, results: [], bodyLength: 0 });
  });
});

describe('VSR refusals decided by the committed state stay in the result section', () => {
  it('a taken stream name: status 0, result 1012; deleting more partitions than the topic has: result 2019', async () => {
    const c = await node.client('vsr');
    const name = fresh('taken');
    await c.ok(CommandCode.CreateStream, encodeCreateStreamRequest({ name }, 'vsr'));
    const taken = await refusal(c, CommandCode.CreateStream, encodeCreateStreamRequest({ name }, 'vsr'));
    expect(taken.status).toBe(0);
    expect(taken.results).toEqual([1012]);
    const { stream, topic } = await createTopic(c, 1);
    const tooMany = await refusal(c, CommandCode.DeletePartitions, encodePartitionsRequest({ stream, topic, partitionsCount: 5 }));
    expect(tooMany.status).toBe(0);
    expect(tooMany.results).toEqual([2019]);
  });
});
