/**
 * A TCP proxy on loopback between a client and a server that injects network faults: delay
 * (order kept), silence (bytes dropped), cuts (both sockets destroyed), half-closes (FIN towards
 * the client while the connection stays open) and refused connections.
 */
import { createConnection, createServer, type Server, type Socket } from 'node:net';

interface Pipe {
  readonly client: Socket;
  readonly upstream: Socket;
}

/** Where faults are applied; change the fields at any time, they act on the next chunk. */
export class FaultProxy {
  /** Extra delay of every chunk in both directions, in ms. */
  delayMs = 0;
  /** Drop every chunk silently (a peer that stopped answering). */
  silent = false;
  /** Destroy new connections at once. */
  refuse = false;
  /** Sees every chunk a client sends (to record real sessions as a fuzz corpus). */
  onClientData: ((connection: number, chunk: Uint8Array) => void) | undefined;
  /** Connections accepted so far. */
  accepted = 0;
  /** Faults applied, by name. */
  readonly faults: Record<string, number> = {};
  readonly #server: Server;
  readonly #pipes = new Set<Pipe>();
  /** The port the proxy listens on. */
  readonly port: number;

  private constructor(server: Server, port: number) {
    this.#server = server;
    this.port = port;
  }

  /** Listens on an ephemeral loopback port and forwards to `target`. */
  static async start(target: () => { host: string; port: number }): Promise<FaultProxy> {
    let proxy: FaultProxy | undefined;
    const server = createServer((client) => proxy?.accept(client, target()));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('proxy has no port');
    proxy = new FaultProxy(server, address.port);
    return proxy;
  }

  private accept(client: Socket, target: { host: string; port: number }): void {
    this.accepted += 1;
    if (this.refuse) {
      this.count('refused');
      client.destroy();
      return;
    }
    const upstream = createConnection(target);
    const pipe: Pipe = { client, upstream };
    this.#pipes.add(pipe);
    const drop = (): void => {
      this.#pipes.delete(pipe);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    const connection = this.accepted;
    client.on('data', (chunk: Buffer) => this.onClientData?.(connection, new Uint8Array(chunk)));
    this.forward(client, upstream);
    this.forward(upstream, client);
  }

  private forward(from: Socket, to: Socket): void {
    // One timer per direction over a queue of due times keeps the byte order whatever the delay.
    const queue: { due: number; chunk: Buffer }[] = [];
    let timer: ReturnType<typeof setTimeout> | undefined;
    const pump = (): void => {
      timer = undefined;
      const now = performance.now();
      while (queue.length > 0 && queue[0]!.due <= now) {
        const { chunk } = queue.shift()!;
        if (!to.destroyed && to.writable) to.write(chunk);
      }
      if (queue.length > 0) timer = setTimeout(pump, Math.max(0, queue[0]!.due - now));
    };
    from.on('data', (chunk: Buffer) => {
      if (this.silent) return;
      if (this.delayMs <= 0 && queue.length === 0) {
        if (!to.destroyed && to.writable) to.write(chunk);
        return;
      }
      const last = queue[queue.length - 1]?.due ?? 0;
      queue.push({ due: Math.max(last, performance.now() + this.delayMs), chunk });
      if (timer === undefined) timer = setTimeout(pump, this.delayMs);
    });
    from.on('close', () => clearTimeout(timer));
  }

  private count(fault: string): void {
    this.faults[fault] = (this.faults[fault] ?? 0) + 1;
  }

  /** Destroys every open connection (both sides see a reset or a close). */
  cut(): number {
    const n = this.#pipes.size;
    for (const pipe of [...this.#pipes]) {
      pipe.client.destroy();
      pipe.upstream.destroy();
    }
    this.#pipes.clear();
    if (n > 0) this.count('cut');
    return n;
  }

  /**
   * Half-closes every open connection: the client receives a FIN and the server side is ended,
   * while the client's own writing side stays open, so only the client's handling of a
   * half-closed socket can end it.
   */
  halfClose(): number {
    const n = this.#pipes.size;
    for (const pipe of this.#pipes) {
      pipe.client.end();
      pipe.upstream.end();
    }
    if (n > 0) this.count('half-close');
    return n;
  }

  /** Open connections. */
  get open(): number {
    return this.#pipes.size;
  }

  /** Stops listening and destroys every connection. */
  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}
