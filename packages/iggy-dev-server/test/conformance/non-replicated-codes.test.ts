// Conformance: command codes the server does not serve as asked, the case the official Iggy Node
// SDK's raw-request e2e test checks (vendor codes 60001.. refused, the connection still usable,
// the next metadata request accepted). Rules from the Iggy sources (0.9 line, VSR):
// - core/server/src/dispatch.rs `handle_non_replicated_request` passes a code it has no arm for
//   to core/server/src/responses.rs `build_non_replicated_response`, which answers a code
//   `core/binary_protocol/src/dispatch.rs` `lookup_command` does not know with InvalidCommand (3)
//   and a known replicated code with FeatureUnavailable (5);
// - `send_non_replicated_deny` carries that code in the reply header's `status` (offset 232 of
//   core/binary_protocol/src/consensus/header.rs `ReplyHeader`) with an empty body, and echoes
//   the request number;
// - a NonReplicated request carries the next request number without consuming it (the SDK's
//   foreign/node/src/wire/vsr/session.ts numbering), so the following metadata request reuses it.
// Classic (0.8.0): core/server/src/binary/dispatch.rs refuses a code it has no handler for with
// InvalidCommand (3).
import { describe, expect, it } from 'vitest';
import {
  CommandCode,
  Operation,
  decodeStreamDetails,
  decodeVsrReplyHeader,
  encodeCreateStreamRequest,
  encodeStreamTarget,
  encodeVsrRequestFrame,
} from '@agdx/iggy-protocol';
import { suiteServer, PROTOCOLS, fresh } from './harness.js';

const node = suiteServer('memory');

/** Codes no Iggy release defines (the SDK's raw test uses the same vendor range). */
const VENDOR_CODES = [60_001, 60_002, 60_003] as const;

describe.each(PROTOCOLS)('codes the server does not know (%s)', (protocol) => {
  it('are refused with 3, with or without a body; the connection keeps serving', async () => {
    const c = await node.client(protocol);
    for (const [i, code] of VENDOR_CODES.entries()) {
      expect(await c.refused(code, new Uint8Array(0))).toBe(3);
      expect(await c.refused(code, Uint8Array.of(i))).toBe(3);
    }
    expect((await c.ok(CommandCode.Ping)).length).toBe(0);
    const name = fresh('after-vendor');
    const created = decodeStreamDetails(await c.ok(CommandCode.CreateStream, encodeCreateStreamRequest({ name }, protocol)), protocol);
    expect(created?.name).toBe(name);
    await c.ok(CommandCode.DeleteStream, encodeStreamTarget({ stream: name }));
  });
});

describe('VSR request numbers around refused codes', () => {
  it('a refused NonReplicated request echoes the number it carried and does not use it up', async () => {
    const c = await node.client('vsr');
    const before = c.vsr.requestCounter;
    const refused = c.vsr.command(VENDOR_CODES[0]);
    expect(refused.request).toBe(before);
    c.write(refused.frame);
    const reply = await c.nextFrame();
    if (typeof reply === 'string') throw new Error(`no reply: ${reply}`);
    const header = decodeVsrReplyHeader(reply);
    expect(header.status).toBe(3);
    expect(header.request).toBe(before);
    expect(header.operation).toBe(Operation.NonReplicated);
    expect(reply.length).toBe(256);
    expect(c.vsr.handleFrame(reply).ok).toBe(false);
    // The metadata request after it carries the same number and is applied.
    const name = fresh('same-number');
    const create = c.vsr.command(CommandCode.CreateStream, encodeCreateStreamRequest({ name }, 'vsr'));
    expect(create.request).toBe(before);
    c.write(create.frame);
    const created = await c.nextFrame();
    if (typeof created === 'string') throw new Error(`no reply: ${created}`);
    const outcome = c.vsr.handleFrame(created);
    expect(outcome.ok).toBe(true);
    expect(decodeVsrReplyHeader(created).request).toBe(before);
  });

  it('a replicated command sent as NonReplicated is refused with 5 and applies nothing', async () => {
    const c = await node.client('vsr');
    const name = fresh('not-replicated');
    const frame = encodeVsrRequestFrame(
      { client: c.vsr.clientId, request: c.vsr.requestCounter, operation: Operation.NonReplicated, session: c.vsr.session, code: CommandCode.CreateStream },
      encodeCreateStreamRequest({ name }, 'vsr'),
    );
    c.write(frame);
    const reply = await c.nextFrame();
    if (typeof reply === 'string') throw new Error(`no reply: ${reply}`);
    expect(decodeVsrReplyHeader(reply).status).toBe(5);
    expect(reply.length).toBe(256);
    // Nothing was created: the stream is unknown (GetStream answers an empty body).
    expect((await c.ok(CommandCode.GetStream, encodeStreamTarget({ stream: name }))).length).toBe(0);
  });
});
