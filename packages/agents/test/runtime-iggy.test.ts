/**
 * The Agent runtime's key guarantees over a real Iggy connection: @agdx/transport-iggy against
 * @agdx/iggy-dev-server on TCP, both wire protocols. The scenario bodies are the ones the
 * MemoryLog tests run (support-runtime/scenarios.ts); only the environment differs: a stream of
 * its own per scenario, and every `connect()` is another IggyTransport (another process).
 */
import { startDevServer, type DevServer } from '@agdx/iggy-dev-server';
import { afterAll, beforeAll, describe, it } from 'vitest';
import type { RuntimeEnvFactory } from './support-runtime/env.js';
import { iggyEnv } from './support-runtime/iggy-env.js';
import { failedCommitIsKeptForShutdown } from './support-runtime/delivery-scenarios.js';
import { crashLoopIsDeadLettered, normalRestartsDeadLetterNothing } from './support-runtime/crash-loop-scenarios.js';
import {
  crashRedeliversAndLosesNothing,
  forgedReplyNeverResolvesVerifiedWait,
  partitionAgentGroupSharesItsPartition,
  pauseParkResumeUnparkInOrder,
  poisonRecordIsDeadLettered,
  seedAssistantAnswersRequest,
} from './support-runtime/scenarios.js';

let server: DevServer | undefined;
beforeAll(async () => {
  server = await startDevServer({ port: 0, host: '127.0.0.1' });
}, 30_000);
afterAll(async () => {
  await server?.close();
});

for (const protocol of ['vsr', 'classic'] as const) {
  describe(`agent runtime over Iggy TCP (${protocol})`, () => {
    const open: RuntimeEnvFactory = (partitions, options) => {
      if (server === undefined) throw new Error('the dev server did not start');
      return iggyEnv(server, protocol)(partitions, options);
    };

    it('seed 002: the assistant answers laser.request with the correlation, addressed to the requester', () => seedAssistantAnswersRequest(open));

    it('redelivers a record handled but not committed when the agent dies, and a second member of the group loses none', () =>
      crashRedeliversAndLosesNothing(open));

    it('dead-letters a poison record after the configured attempts with its bytes intact', () => poisonRecordIsDeadLettered(open));

    it('dead-letters a record that kills the process on every start, after the limit, and handles the records after it', () => crashLoopIsDeadLettered(open));

    it('dead-letters nothing over clean, idle and once-crashed restarts (crash-loop guard)', () => normalRestartsDeadLetterNothing(open));

    it('keeps the offset of a failed commit: a graceful shutdown commits it, so a restart does not handle the record again', () =>
      failedCommitIsKeptForShutdown(open));

    it('a forged reply never resolves a verified wait; the signed answer of the agent does', () => forgedReplyNeverResolvesVerifiedWait(open));

    it('a partition-per-agent agent: instances in one group answer each request once, and another takes over its partition', () =>
      partitionAgentGroupSharesItsPartition(open));

    it('acknowledges, parks, resumes, drains held work before new work, and unparks, in order under concurrent work', () =>
      pauseParkResumeUnparkInOrder(open, { resumeMayTrailWork: true }));
  });
}
