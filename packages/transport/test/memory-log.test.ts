import { ManualLogClock, MemoryLog } from '@agdx/transport';
import { describeLogTransportConformance } from '@agdx/transport/testkit';

describeLogTransportConformance('MemoryLog', async () => {
  const clock = new ManualLogClock();
  const log = new MemoryLog({ clock });
  return {
    transport: log,
    reopen: async () => log.connect(),
    advanceTime: (micros: bigint) => clock.advance(micros),
  };
});

describeLogTransportConformance('MemoryLog (system clock)', async () => {
  const log = new MemoryLog();
  return { transport: log, reopen: async () => log.connect() };
});
