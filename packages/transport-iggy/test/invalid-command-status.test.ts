/**
 * Status 3 (InvalidCommand) is Iggy's answer to a request it could not decode or validate: the
 * caller's mistake, nothing applied. It must reach the caller as `InvalidArgumentError` (kind
 * `invalid`, not the retryable `transport`), written once, and leave the connection serving.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { CommandCode } from '@agdx/iggy-protocol';
import { InvalidArgumentError, TransportError } from '@agdx/transport';
import { IggyTransport, isOutcomeUnknown } from '@agdx/transport-iggy';
import type { FakeServer } from './support/fake-iggy-server.js';
import { startFakeServer } from './support/fake-iggy-server.js';

const servers: FakeServer[] = [];
const transports: IggyTransport[] = [];
afterEach(async () => {
  for (const t of transports.splice(0)) await t.close();
  for (const s of servers.splice(0)) await s.close();
});

async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to fail');
}

for (const protocol of ['vsr', 'classic'] as const) {
  describe(`a status 3 reply (${protocol})`, () => {
    it('fails a read and a mutation with InvalidArgumentError, each written once, and the connection keeps serving', async () => {
      let refuse = false;
      const seen = new Map<number, number>();
      const server = await startFakeServer({
        intercept: (r) => {
          if (r.code !== CommandCode.GetTopic && r.code !== CommandCode.SendMessages) return undefined;
          seen.set(r.code, (seen.get(r.code) ?? 0) + 1);
          return refuse ? { status: 3 } : undefined;
        },
      });
      servers.push(server);
      const t = await IggyTransport.connect(server.url, { protocol, heartbeatIntervalMs: 0 });
      transports.push(t);
      await t.ensureStream('s');
      await t.ensureTopic({ stream: 's', topic: 't' }, { partitions: 1 });
      seen.clear();
      refuse = true;

      const read = await failure(t.describeTopic({ stream: 's', topic: 't' }));
      expect(seen.get(CommandCode.GetTopic)).toBe(1);
      const append = await failure(t.append({ stream: 's', topic: 't', routing: { partition: 0 }, records: [{ payload: Uint8Array.of(1) }] }));
      for (const error of [read, append]) {
        expect(error).toBeInstanceOf(InvalidArgumentError);
        expect(TransportError.is(error, 'invalid')).toBe(true);
        expect(TransportError.is(error, 'transport')).toBe(false);
        expect(isOutcomeUnknown(error)).toBe(false);
        expect((error as InvalidArgumentError).context).toMatchObject({ iggyCode: 3, iggyCodeName: 'InvalidCommand' });
      }
      // Refused, not lost: neither call went out again, nor was the connection re-established
      // (a classic append also pipelines its offset read, a GetTopic, behind the send).
      expect(seen.get(CommandCode.SendMessages)).toBe(1);
      expect(t.reconnects).toBe(0);

      refuse = false;
      expect((await t.describeTopic({ stream: 's', topic: 't' })).partitionCount).toBe(1);
      const stored = await t.append({ stream: 's', topic: 't', routing: { partition: 0 }, records: [{ payload: Uint8Array.of(2) }] });
      expect(stored.baseOffset).toBe(0n);
    });
  });
}
