// Conformance: the status a request body that does not decode gets, per generation. Rules from
// the Iggy sources:
// - 0.8.0 (classic), core/server/src/binary/dispatch.rs `decode`: a `WireError::Validation` (a
//   value the layout forbids: an empty name, core/binary_protocol/src/primitives/identifier.rs
//   `WireName::decode`; a numeric identifier whose length is not 4 or an empty string one,
//   `WireIdentifier::decode`) is InvalidFormat (4); every other decode failure (truncation, an
//   unknown identifier kind) is InvalidCommand (3); core/server/src/tcp/connection_handler.rs
//   answers a control frame over its limit with InvalidCommand too;
// - the 0.9 line (VSR), core/server/src/dispatch.rs and responses.rs: every request decode
//   failure is `map_err(|_| IggyError::InvalidCommand)`, validation included (3).
import { describe, expect, it } from 'vitest';
import { CLASSIC_MAX_CONTROL_PAYLOAD, CommandCode, decodeClassicResponse, encodeClassicRequest } from '@agdx/iggy-protocol';
import { suiteServer, PROTOCOLS } from './harness.js';

const node = suiteServer('memory');

/** Stream identifiers that do not decode, with what each generation answers. */
const BAD_IDENTIFIERS = [
  { name: 'a numeric identifier of length 3', body: Uint8Array.of(1, 3, 1, 0, 0), classic: 4, vsr: 3 },
  { name: 'an empty string identifier', body: Uint8Array.of(2, 0), classic: 4, vsr: 3 },
  { name: 'a numeric identifier cut short', body: Uint8Array.of(1, 4, 1), classic: 3, vsr: 3 },
  { name: 'an identifier of unknown kind', body: Uint8Array.of(7, 1, 65), classic: 3, vsr: 3 },
] as const;

describe.each(PROTOCOLS)('bodies that do not decode (%s)', (protocol) => {
  it.each(BAD_IDENTIFIERS.map((k) => [k.name, k] as const))('GetStream with %s', async (_name, k) => {
    const c = await node.client(protocol);
    expect(await c.refused(CommandCode.GetStream, k.body)).toBe(k[protocol]);
    expect((await c.ok(CommandCode.Ping)).length).toBe(0);
  });

  it('CreateStream with an empty name (0.8: a WireName validation, 4; 0.9: 3) creates nothing', async () => {
    const c = await node.client(protocol);
    const before = (await c.ok(CommandCode.GetStreams)).length;
    // The name's length byte is 0 (under VSR an empty options block follows: no bytes).
    expect(await c.refused(CommandCode.CreateStream, Uint8Array.of(0))).toBe(protocol === 'classic' ? 4 : 3);
    expect((await c.ok(CommandCode.GetStreams)).length).toBe(before);
  });
});

describe('classic control frames over the limit', () => {
  it('are answered with InvalidCommand (3) and the connection is closed (the frame boundary is lost)', async () => {
    const c = await node.client('classic');
    c.write(encodeClassicRequest(CommandCode.GetStreams, new Uint8Array(CLASSIC_MAX_CONTROL_PAYLOAD + 1)));
    const frame = await c.nextFrame();
    if (typeof frame === 'string') throw new Error(`no reply: ${frame}`);
    expect(decodeClassicResponse(frame).status).toBe(3);
    expect(await c.waitClosed()).toBe(true);
  });
});
