// A loopback TCP proxy in front of a server that counts the bytes each way, so a benchmark can
// report what one operation puts on the wire (requests out, replies in).
import { createConnection, createServer, type Socket } from 'node:net';

/** A running proxy: the port to connect to, the byte counts since the last reset, and how to stop it. */
export interface ByteCountingProxy {
  readonly port: number;
  /** Bytes the clients sent to the server. */
  readonly sent: number;
  /** Bytes the server sent back. */
  readonly received: number;
  reset(): void;
  close(): Promise<void>;
}

/** Listens on a free loopback port and forwards every connection to `127.0.0.1:targetPort`. */
export async function byteCountingProxy(targetPort: number): Promise<ByteCountingProxy> {
  let sent = 0;
  let received = 0;
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = createConnection({ host: '127.0.0.1', port: targetPort });
    sockets.add(client);
    sockets.add(upstream);
    client.setNoDelay(true);
    upstream.setNoDelay(true);
    client.on('data', (d: Buffer) => {
      sent += d.length;
      upstream.write(d);
    });
    upstream.on('data', (d: Buffer) => {
      received += d.length;
      client.write(d);
    });
    const end = (): void => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    port,
    get sent() {
      return sent;
    },
    get received() {
      return received;
    },
    reset: () => {
      sent = 0;
      received = 0;
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
