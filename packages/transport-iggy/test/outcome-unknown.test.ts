/**
 * A written append whose reply never comes is reported as an unknown outcome (it may have been
 * stored), a refused one as a clean failure; both typed. Both protocol generations.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { CommandCode } from '@agdx/iggy-protocol';
import { IggyTransport, OutcomeUnknownError, isOutcomeUnknown } from '@agdx/transport-iggy';
import { TransportFailureError } from '@agdx/transport';
import type { FakeAction, FakeServer } from './support/fake-iggy-server.js';
import { startFakeServer } from './support/fake-iggy-server.js';

let server: FakeServer | undefined;
let transport: IggyTransport | undefined;
afterEach(async () => {
  await transport?.close();
  await server?.close();
});

async function appendWith(protocol: 'vsr' | 'classic', fault: FakeAction): Promise<unknown> {
  let armed = false;
  server = await startFakeServer({ intercept: (r) => (armed && r.code === CommandCode.SendMessages ? fault : undefined) });
  transport = await IggyTransport.connect(`${server.url}?protocol=${protocol}`, { heartbeatIntervalMs: 0, requestTimeoutMs: 400, reconnect: { maxAttempts: 1 } });
  await transport.ensureStream('s');
  await transport.ensureTopic({ stream: 's', topic: 't' }, { partitions: 1 });
  armed = true;
  return transport.append({ stream: 's', topic: 't', routing: { partition: 0 }, records: [{ payload: new Uint8Array([1]) }] }).then(
    () => 'stored',
    (error: unknown) => error,
  );
}

describe.each(['vsr', 'classic'] as const)('append outcomes over %s', (protocol) => {
  it('a connection cut after the send was written: OutcomeUnknownError, a transport error', async () => {
    const error = await appendWith(protocol, { destroy: true });
    expect(error).toBeInstanceOf(OutcomeUnknownError);
    expect(error).toBeInstanceOf(TransportFailureError);
    expect(isOutcomeUnknown(error)).toBe(true);
    expect((error as { context?: Record<string, unknown> }).context?.['outcome']).toBe('unknown');
  });

  // Classic replies pair with requests by position, so a server that skips one reply desyncs
  // the stream rather than leaving one call unanswered: silence is a VSR case.
  it.skipIf(protocol === 'classic')('no reply in time after the send was written: a timeout marked unknown', async () => {
    const error = await appendWith(protocol, { silent: true });
    expect((error as { kind?: string }).kind).toBe('timeout');
    expect(isOutcomeUnknown(error)).toBe(true);
    expect(error).not.toBeInstanceOf(OutcomeUnknownError);
  });

  it('a refusal is a clean failure, not an unknown outcome', async () => {
    const error = await appendWith(protocol, { status: 4 });
    expect(isOutcomeUnknown(error)).toBe(false);
    expect(error).not.toBeInstanceOf(OutcomeUnknownError);
  });
});
