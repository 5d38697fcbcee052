/**
 * A client that checks what it is told: @agdx/transport-iggy reads and appends through a
 * TamperProxy in front of a real dev server. Seeded bit flips land inside polled payloads (every
 * one must be refused with ChecksumMismatchError, none may reach the caller), poll replies are
 * sent twice (no call may be answered with another call's reply), and on VSR replies are
 * renumbered (a read must still answer correctly; an append must fail as unknown and be stored
 * exactly once).
 */
import { startDevServer } from '@agdx/iggy-dev-server';
import { isBrandedError, SeededRandom } from '@agdx/reliability';
import { ChecksumMismatchError, IggyTransport } from '@agdx/transport-iggy';
import { indexOfBytes, TamperProxy } from './tamper-proxy.js';

/** Settings of a run. */
export interface IntegrityRunOptions {
  readonly seed: number;
  readonly protocol: 'vsr' | 'classic';
  /** Poll replies with one bit flipped inside a payload. */
  readonly corruptions: number;
  /** Poll replies sent twice while another poll waits behind them. */
  readonly duplicates: number;
  /** VSR only: replies with another request number (half reads, half appends). */
  readonly renumbers: number;
}

/** Figures of a run. */
export interface IntegrityRunReport {
  readonly protocol: 'vsr' | 'classic';
  /** Poll replies the proxy corrupted. */
  readonly corrupted: number;
  /** Of those, refused with ChecksumMismatchError. */
  readonly detected: number;
  /** Refused with another typed error (must be 0 for payload flips). */
  readonly otherTyped: number;
  /** Corrupted records handed to the caller (must be 0). */
  readonly corruptedDelivered: number;
  /** Duplicated replies injected, and calls answered with the wrong records (must be 0). */
  readonly duplicated: number;
  readonly duplicateWrongAnswers: number;
  /** Renumbered replies injected, wrong read answers and appends not stored exactly once (both 0). */
  readonly renumbered: number;
  readonly renumberWrongAnswers: number;
  readonly renumberedAppendsNotOnce: number;
  readonly untypedErrors: string[];
  readonly elapsedMs: number;
}

const STREAM = 'integrity';
const TOPIC = 'checked';
const RECORDS = 40;

const same = (a: Uint8Array, b: Uint8Array): boolean => a.length === b.length && a.every((x, i) => x === b[i]);

/** Runs the scenario against a fresh in-memory dev server. */
export async function runIntegrity(options: IntegrityRunOptions): Promise<IntegrityRunReport> {
  const started = performance.now();
  const random = new SeededRandom(options.seed);
  await using server = await startDevServer({ port: 0 });
  const proxy = await TamperProxy.start({ host: '127.0.0.1', port: server.port }, options.protocol);
  const url = `iggy://iggy:iggy@127.0.0.1:${proxy.port}`;
  const t = await IggyTransport.connect(url, { protocol: options.protocol, requestTimeoutMs: 2_000, heartbeatIntervalMs: 0, reconnect: { maxAttempts: 10, initialDelayMs: 1 } });
  const untyped: string[] = [];
  const noteUntyped = (error: unknown): void => {
    if (!isBrandedError(error) && untyped.length < 5) untyped.push(String(error));
  };
  let corrupted = 0;
  let detected = 0;
  let otherTyped = 0;
  let corruptedDelivered = 0;
  let duplicated = 0;
  let duplicateWrongAnswers = 0;
  let renumbered = 0;
  let renumberWrongAnswers = 0;
  let renumberedAppendsNotOnce = 0;
  try {
    const address = { stream: STREAM, topic: TOPIC };
    await t.ensureStream(STREAM);
    await t.ensureTopic(address, { partitions: 1 });
    // Random payloads of 16 bytes or more are unique in a reply, so a flip can be aimed at one.
    const payloads = Array.from({ length: RECORDS }, () => random.bytes(16 + random.int(500)));
    await t.append({ ...address, records: payloads.map((payload) => ({ payload })), routing: { partition: 0 } });
    const read = (offset: number, maxCount: number) => t.read({ ...address, partition: 0, offset: BigInt(offset), maxCount });
    const answersCorrectly = (records: readonly { offset: bigint; payload: Uint8Array }[], from: number): boolean =>
      records.length > 0 && records.every((r, i) => r.offset === BigInt(from + i) && same(r.payload, payloads[from + i] as Uint8Array));

    for (let i = 0; i < options.corruptions; i++) {
      const offset = random.int(RECORDS);
      const target = payloads[offset] as Uint8Array;
      const position = random.int(target.length);
      const bit = 1 << random.int(8);
      proxy.arm((frame) => {
        const at = indexOfBytes(frame, target);
        if (at < 0) return undefined;
        const copy = frame.slice();
        copy[at + position] = (copy[at + position] as number) ^ bit;
        return [copy];
      });
      const before = proxy.tampered;
      try {
        const records = await read(offset, 1 + random.int(4));
        if (proxy.tampered > before) corruptedDelivered += records.some((r) => !same(r.payload, payloads[Number(r.offset)] as Uint8Array)) ? 1 : 0;
      } catch (error) {
        noteUntyped(error);
        if (error instanceof ChecksumMismatchError) detected++;
        else if (isBrandedError(error)) otherTyped++;
      }
      if (proxy.tampered > before) corrupted++;
      proxy.disarm();
    }

    for (let i = 0; i < options.duplicates; i++) {
      const first = random.int(RECORDS - 1);
      const second = first + 1 + random.int(RECORDS - first - 1);
      const target = payloads[first] as Uint8Array;
      proxy.arm((frame) => (indexOfBytes(frame, target) < 0 ? undefined : [frame, frame]));
      const before = proxy.tampered;
      const answers = await Promise.allSettled([read(first, 1), read(second, 1)]);
      if (proxy.tampered > before) duplicated++;
      proxy.disarm();
      for (const [k, answer] of answers.entries()) {
        if (answer.status === 'rejected') noteUntyped(answer.reason);
        else if (!answersCorrectly(answer.value, k === 0 ? first : second)) duplicateWrongAnswers++;
      }
    }

    if (options.protocol === 'vsr') {
      const renumber = (frame: Uint8Array): readonly Uint8Array[] | undefined => {
        if (frame[60] !== 8) return undefined;
        const copy = frame.slice();
        const view = new DataView(copy.buffer);
        view.setBigUint64(200, view.getBigUint64(200, true) + 1n + BigInt(random.int(1000)), true);
        return [copy];
      };
      for (let i = 0; i < options.renumbers; i++) {
        const before = proxy.tampered;
        proxy.arm(renumber);
        if (i % 2 === 0) {
          const offset = random.int(RECORDS);
          try {
            if (!answersCorrectly(await read(offset, 1), offset)) renumberWrongAnswers++;
          } catch (error) {
            noteUntyped(error);
          }
        } else {
          const payload = random.bytes(24);
          const next = (await t.describeTopic(address).catch(() => undefined))?.partitions[0]?.nextOffset;
          // describeTopic took the armed tamper if it ran; arm again for the append.
          proxy.arm(renumber);
          await t.append({ ...address, records: [{ payload }], routing: { partition: 0 } }).catch(noteUntyped);
          if (next !== undefined) {
            const tail = await read(Number(next), 10).catch(() => []);
            if (tail.filter((r) => same(r.payload, payload)).length !== 1) renumberedAppendsNotOnce++;
          }
        }
        if (proxy.tampered > before) renumbered++;
        proxy.disarm();
      }
    }
  } finally {
    await t.close();
    await proxy.close();
  }
  return {
    protocol: options.protocol,
    corrupted,
    detected,
    otherTyped,
    corruptedDelivered,
    duplicated,
    duplicateWrongAnswers,
    renumbered,
    renumberWrongAnswers,
    renumberedAppendsNotOnce,
    untypedErrors: untyped,
    elapsedMs: Math.round(performance.now() - started),
  };
}
