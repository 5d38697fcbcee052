import { describe, expect, it } from 'vitest';
import {
  CommandCode,
  VSR_HEADER_SIZE,
  decodeResultSection,
  encodeCreateStreamRequest,
  encodeCreateTopicRequest,
  encodeTopicTarget,
  initChecksums,
} from '@agdx/iggy-protocol';
import { startDevServer } from '@agdx/iggy-dev-server';
import { RawClient } from './helpers/raw-client.js';

describe('VSR reply cache', () => {
  it('keeps a bounded number of reply bytes per connection: an old large reply ages out (59) instead of staying in memory', async () => {
    await initChecksums();
    await using server = await startDevServer({ port: 0 });
    const c = await RawClient.connect(server.port, 'vsr');
    await c.login();
    await c.ok(CommandCode.CreateStream, encodeCreateStreamRequest({ name: 's' }, 'vsr'));
    // Each CreateTopic of 1000 partitions is answered with about 40 KB, and the reply is kept
    // for deduplication; 30 of them, within the 64 replies the session keeps, hold about 1.2 MB.
    const create = encodeCreateTopicRequest({ stream: 's', name: 't', partitionsCount: 1000 }, 'vsr');
    const first = c.vsr.command(CommandCode.CreateTopic, create).frame;
    c.write(first);
    const answer = await c.nextFrame();
    if (typeof answer === 'string') throw new Error(answer);
    expect(answer.length).toBeGreaterThan(40_000);
    c.vsr.handleFrame(answer);
    await c.ok(CommandCode.DeleteTopic, encodeTopicTarget({ stream: 's', topic: 't' }));
    for (let i = 1; i < 30; i++) {
      await c.ok(CommandCode.CreateTopic, create);
      await c.ok(CommandCode.DeleteTopic, encodeTopicTarget({ stream: 's', topic: 't' }));
    }
    // The first CreateTopic again, byte for byte (a client resending after a timeout).
    c.write(first);
    const again = await c.nextFrame();
    if (typeof again === 'string') throw new Error(again);
    // Aged out of the bounded cache: RequestAlreadyApplied, not a 40 KB replay.
    expect(again.length).toBeLessThan(1024);
    expect(decodeResultSection(again.subarray(VSR_HEADER_SIZE)).results).toEqual([{ index: 0, code: 59 }]);
    c.close();
  }, 60_000);
});
