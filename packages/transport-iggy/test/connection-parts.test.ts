/**
 * The parts split out of the connection, on their own: the back-off arithmetic, what a lost
 * connection does to each kind of written call, the bound on "not the primary" refusals, the
 * roster reply limits and the heartbeat's checks. The fault tests cover them end to end; these
 * pin each rule where it lives.
 */
import { describe, expect, it, vi } from 'vitest';
import { IggyError, encodeClusterMetadata } from '@agdx/iggy-protocol';
import type { ClusterNode } from '@agdx/iggy-protocol';
import { TransportError, TransportFailureError } from '@agdx/transport';
import { isOutcomeUnknown } from '@agdx/transport-iggy';
import { firstPassDelay, jittered, nextPassDelay, pauseUntilClosed, refusalPause } from '../src/connection/backoff.js';
import { startCall } from '../src/connection/call.js';
import type { Call } from '../src/connection/call.js';
import { startHeartbeat } from '../src/connection/heartbeat.js';
import { sortLostCalls } from '../src/connection/lost-calls.js';
import { MAX_ROSTER_BYTES, MAX_ROSTER_NODES, readRosterReply } from '../src/connection/roster-reply.js';
import { MAX_NOT_ACCEPTED, refuseAsNotPrimary } from '../src/connection/transient-status.js';

interface Probe {
  readonly call: Call;
  readonly outcome: () => { settled: boolean; error?: unknown; released: boolean };
}

/** A call with a long time limit whose settlement and release are recorded. */
function probe(kind: { idempotent?: boolean; internal?: boolean } = {}): Probe {
  let settled = false;
  let error: unknown;
  let isReleased = false;
  const call = startCall({
    code: 101,
    body: new Uint8Array(0),
    options: { idempotent: kind.idempotent, timeoutMs: 60_000, onRelease: () => (isReleased = true) },
    internal: kind.internal === true,
    timeoutMs: 60_000,
    resolve: () => (settled = true),
    reject: (e) => {
      settled = true;
      error = e;
    },
    abandon: () => undefined,
  });
  call.written = true;
  return { call, outcome: () => ({ settled, error, released: isReleased }) };
}

describe('back-off', () => {
  it('doubles between passes up to the cap, never under the cluster minimum', () => {
    expect(firstPassDelay(0, false)).toBe(0);
    expect(firstPassDelay(0, true)).toBe(10);
    expect(nextPassDelay(100, 1000, false)).toBe(200);
    expect(nextPassDelay(800, 1000, false)).toBe(1000);
    expect(nextPassDelay(0, 0, false)).toBe(0);
    expect(nextPassDelay(0, 0, true)).toBe(1);
    expect(nextPassDelay(10, 0, true)).toBe(10);
  });

  it('jitters down by at most 20 % and never past what is left', () => {
    for (let i = 0; i < 100; i++) {
      const ms = jittered(1000, 5000);
      expect(ms).toBeGreaterThanOrEqual(800);
      expect(ms).toBeLessThanOrEqual(1000);
    }
    expect(jittered(1000, 30)).toBe(30);
  });

  it('paces reconnects after refusals: doubling per refusal, capped', () => {
    const options = { initialDelayMs: 50, maxDelayMs: 1000 };
    expect([1, 2, 3, 4, 5, 6].map((streak) => refusalPause(options, streak))).toEqual([50, 100, 200, 400, 800, 1000]);
    expect(refusalPause({ initialDelayMs: 0, maxDelayMs: 0 }, 3)).toBe(10);
    expect(refusalPause(options, 10_000)).toBe(1000);
  });

  it('a pause ends when the connection closes', async () => {
    const closing = new AbortController();
    const paused = pauseUntilClosed(3_600_000, closing.signal);
    closing.abort();
    await expect(paused).resolves.toBeUndefined();
    await expect(pauseUntilClosed(3_600_000, closing.signal)).resolves.toBeUndefined();
  });
});

describe('calls written on a lost connection', () => {
  const loss = (extra: { restoring?: boolean; fatal?: TransportError } = {}) => ({
    error: new TransportFailureError('lost'),
    restoring: extra.restoring === true,
    fatal: extra.fatal,
  });

  it('a read goes out again once, then fails with a known outcome', () => {
    const read = probe({ idempotent: true });
    expect(sortLostCalls([read.call], loss())).toEqual([read.call]);
    expect(read.call.written).toBe(false);
    read.call.written = true;
    expect(sortLostCalls([read.call], loss())).toEqual([]);
    expect(read.outcome().released).toBe(true);
    expect(isOutcomeUnknown(read.outcome().error)).toBe(false);
    expect(TransportError.is(read.outcome().error, 'transport')).toBe(true);
  });

  it('a mutation fails with an unknown outcome; one refused as not the primary goes out again', () => {
    const mutation = probe();
    const refused = probe();
    refused.call.notAccepted = true;
    expect(sortLostCalls([mutation.call, refused.call], loss())).toEqual([refused.call]);
    expect(isOutcomeUnknown(mutation.outcome().error)).toBe(true);
    expect(refused.call.notAccepted).toBe(false);
    expect(refused.outcome().settled).toBe(false);
    refused.call.cleanup();
  });

  it('with a fatal failure nothing goes out again; during a restore its own calls fail', () => {
    const fatal = new TransportFailureError('bad credentials');
    const read = probe({ idempotent: true });
    expect(sortLostCalls([read.call], loss({ fatal }))).toEqual([]);
    expect(read.outcome().error).toBe(fatal);
    const hook = probe({ internal: true });
    const user = probe({ idempotent: true });
    expect(sortLostCalls([hook.call, user.call], loss({ restoring: true }))).toEqual([user.call]);
    expect(hook.outcome()).toMatchObject({ settled: true, released: true });
    user.call.cleanup();
  });
});

describe('"not the primary" refusals', () => {
  it(`a call is kept for the new primary until its ${MAX_NOT_ACCEPTED}th refusal, then fails as not applied`, () => {
    const p = probe();
    for (let i = 1; i < MAX_NOT_ACCEPTED; i++) {
      refuseAsNotPrimary(p.call, new IggyError(58), undefined);
      expect(p.call.notAccepted).toBe(true);
      p.call.notAccepted = false;
    }
    refuseAsNotPrimary(p.call, new IggyError(58), { host: 'n1', port: 1 });
    const error = p.outcome().error as TransportFailureError;
    expect(error).toBeInstanceOf(TransportFailureError);
    expect(error.context).toMatchObject({ refusals: MAX_NOT_ACCEPTED, outcome: 'not-applied' });
    expect(isOutcomeUnknown(error)).toBe(false);
  });
});

describe('roster replies', () => {
  const at = { host: 'n1', port: 8090 };
  const node = (id: number): ClusterNode => ({ name: `n${id}`, ip: '127.0.0.1', endpoints: { tcp: 8090 + id, quic: 0, http: 0, websocket: 0 }, role: 'Follower', status: 'Healthy' });

  it('refuses an oversized or undecodable reply, and too many nodes, with a typed error', () => {
    expect(() => readRosterReply(new Uint8Array(MAX_ROSTER_BYTES + 1), at)).toThrow(TransportFailureError);
    expect(() => readRosterReply(Uint8Array.of(1, 2, 3), at)).toThrow(TransportFailureError);
    const crowd = encodeClusterMetadata({ name: 'c', nodes: Array.from({ length: MAX_ROSTER_NODES + 1 }, (_, i) => node(i)) });
    expect(() => readRosterReply(crowd, at)).toThrow(/more than 64/);
    const few = encodeClusterMetadata({ name: 'c', nodes: [node(1), node(2)] });
    expect(readRosterReply(few, at).nodes).toHaveLength(2);
  });
});

describe('heartbeat', () => {
  it('pings only an idle connection whose session says one is due, with twice the interval to answer', () => {
    vi.useFakeTimers();
    try {
      const pings: number[] = [];
      let idle = false;
      let due = true;
      const timer = startHeartbeat(300, { idle: () => idle, due: () => due, ping: (ms) => pings.push(ms) });
      vi.advanceTimersByTime(300);
      expect(pings).toEqual([]);
      idle = true;
      due = false;
      vi.advanceTimersByTime(300);
      expect(pings).toEqual([]);
      due = true;
      vi.advanceTimersByTime(300);
      expect(pings).toEqual([1000]);
      clearInterval(timer);
      expect(startHeartbeat(0, { idle: () => true, due: () => true, ping: () => pings.push(0) })).toBeUndefined();
    } finally {
      vi.useRealTimers();
    }
  });
});
