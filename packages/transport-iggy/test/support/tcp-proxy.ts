/** A loopback TCP proxy whose connections a test can cut at any moment. */

import net from 'node:net';

/** A running proxy. */
export interface TcpProxy {
  readonly port: number;
  /** Connections accepted so far. */
  readonly accepted: () => number;
  /** Destroys every proxied connection (both sides); new connections are still accepted. */
  cut(): void;
  close(): Promise<void>;
}

/** Starts a proxy on an ephemeral loopback port forwarding to `targetPort`. */
export async function startTcpProxy(targetPort: number): Promise<TcpProxy> {
  const pairs = new Set<readonly [net.Socket, net.Socket]>();
  let accepted = 0;
  const server = net.createServer((client) => {
    accepted++;
    const upstream = net.connect({ host: '127.0.0.1', port: targetPort });
    const pair = [client, upstream] as const;
    pairs.add(pair);
    const end = (): void => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    accepted: () => accepted,
    cut: () => {
      for (const [a, b] of pairs) {
        a.destroy();
        b.destroy();
      }
      pairs.clear();
    },
    close: async () => {
      for (const [a, b] of pairs) {
        a.destroy();
        b.destroy();
      }
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
