/**
 * A classic server that stops reading while calls keep coming. Classic requests are pipelined,
 * so without a limit every call would be written into the socket's buffer in this process: the
 * memory grows with the calls, and each of them, never sent, would still be reported with an
 * unknown outcome when the connection is reset. The client stops writing once the socket holds
 * its write-buffer limit; calls beyond it wait unwritten, bounded by their timeout, and fail
 * with a clean error.
 */
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ClassicRequestSplitter, encodeClassicResponse, encodeIdentityResponse } from '@agdx/iggy-protocol';
import { IggyTransport, isOutcomeUnknown } from '@agdx/transport-iggy';

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** A classic server that logs one client in, refuses the cluster read, then reads nothing more. */
async function stallingServer(): Promise<{ port: number; accepted: () => number }> {
  let accepted = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    accepted++;
    sockets.add(socket);
    socket.on('error', () => undefined);
    // Only the first connection is served; a reconnect finds the door shut.
    if (accepted > 1) return void socket.destroy();
    const splitter = new ClassicRequestSplitter();
    let answered = 0;
    socket.on('data', (chunk: Buffer) => {
      for (const _frame of splitter.push(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength))) {
        answered++;
        // Login, then GetClusterMetadata (refused: a server without clustering).
        socket.write(answered === 1 ? encodeClassicResponse(0, encodeIdentityResponse(1)) : encodeClassicResponse(5));
        if (answered === 2) socket.pause();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(async () => {
    for (const s of sockets) s.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return { port: (server.address() as net.AddressInfo).port, accepted: () => accepted };
}

describe('a classic server that stops reading', () => {
  it('bounds what the client buffers; unwritten calls fail clean, every call settles', async () => {
    const server = await stallingServer();
    const t = await IggyTransport.connect({
      port: server.port,
      protocol: 'classic',
      heartbeatIntervalMs: 0,
      requestTimeoutMs: 2_000,
      reconnect: { maxAttempts: 1, initialDelayMs: 10, maxDelayMs: 10 },
    });
    closers.push(() => t.close());
    const payload = new Uint8Array(1024 * 1024);
    const calls = Array.from({ length: 40 }, (_, partition) =>
      t.append({ stream: 's', topic: 't', routing: { partition }, records: [{ payload }] }).then(
        () => 'stored',
        (error: unknown) => (isOutcomeUnknown(error) ? 'unknown' : String((error as { kind?: string }).kind)),
      ),
    );
    const outcomes = await Promise.all(calls);
    const written = t.requestsWritten['SendMessages'] ?? 0;
    expect(outcomes).not.toContain('stored');
    // What went out may have been applied; what never left this process is known not to be.
    expect(outcomes.filter((o) => o === 'unknown')).toHaveLength(written);
    expect(written).toBeLessThan(20);
  });
});
