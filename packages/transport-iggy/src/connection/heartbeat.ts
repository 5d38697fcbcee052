/**
 * Heartbeat Pings on idle connections: a connection with nothing to send pings when its session
 * says one is due, so the server (and any middlebox) keeps hearing from it and a dead peer shows
 * as a failed ping. A busy connection needs none, so the check skips it.
 */

/** What the heartbeat asks of its connection on every check. */
export interface HeartbeatHost {
  /** Ready, with nothing queued or in flight. */
  idle(): boolean;
  /** The session's own clock says a ping is due. */
  due(): boolean;
  /** Sends one Ping bounded by `timeoutMs`; its failure is the connection's business, not the timer's. */
  ping(timeoutMs: number): void;
}

/**
 * Checks every `intervalMs` (between 10 ms and 1 s, so a long interval still notices a due ping
 * in time) and pings an idle connection when one is due, each ping allowed twice the interval
 * (at least 1 s). Returns the timer to clear on close, or `undefined` when `intervalMs` is 0
 * (heartbeats off). The timer never keeps the process alive.
 */
export function startHeartbeat(intervalMs: number, host: HeartbeatHost): ReturnType<typeof setInterval> | undefined {
  if (intervalMs === 0) return undefined;
  const timer = setInterval(() => {
    if (!host.idle() || !host.due()) return;
    host.ping(Math.max(1000, intervalMs * 2));
  }, Math.max(10, Math.min(intervalMs, 1000)));
  timer.unref?.();
  return timer;
}
