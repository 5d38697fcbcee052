/** A loopback TCP proxy whose connections a test can cut at any moment. */

import net from 'node:net';

/** A running proxy. */
export interface TcpProxy {
  readonly port: number;
  /** Connections accepted so far. */
  readonly accepted: () => number;
  /** Destroys every proxied connection (both sides); new connections are still accepted. */
  cut(): void;
  /**
   * `forward` (default) proxies; `refuse` closes new connections at once (a server that is
   * down); `blackhole` accepts them and never answers.
   */
  setMode(mode: 'forward' | 'refuse' | 'blackhole'): void;
  close(): Promise<void>;
}

/** Starts a proxy on an ephemeral loopback port forwarding to `targetPort`. */
export async function startTcpProxy(targetPort: number): Promise<TcpProxy> {
  const pairs = new Set<readonly [net.Socket, net.Socket]>();
  let accepted = 0;
  let mode: 'forward' | 'refuse' | 'blackhole' = 'forward';
  const held = new Set<net.Socket>();
  const server = net.createServer((client) => {
    accepted++;
    if (mode === 'refuse') {
      client.destroy();
      return;
    }
    if (mode === 'blackhole') {
      held.add(client);
      client.on('error', () => undefined).on('close', () => held.delete(client));
      return;
    }
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
    setMode: (next) => {
      mode = next;
    },
    cut: () => {
      for (const [a, b] of pairs) {
        a.destroy();
        b.destroy();
      }
      pairs.clear();
    },
    close: async () => {
      for (const s of held) s.destroy();
      for (const [a, b] of pairs) {
        a.destroy();
        b.destroy();
      }
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
