import { countingTransport as countReads } from '@agdx/bridge-testing';
import { MemoryLog, type LogTransport } from '@agdx/transport';

/** A MemoryLog seen through bridge-testing's counting transport, with the count named as these tests read it. */
export function countingTransport(log: MemoryLog = new MemoryLog()): { transport: LogTransport; readonly count: () => number; reset: () => void } {
  const counting = countReads(log);
  return { transport: counting.transport, count: () => counting.records(), reset: () => counting.reset() };
}
