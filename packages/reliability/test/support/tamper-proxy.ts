/**
 * A loopback proxy between an Iggy client and server that understands the server's framing (VSR
 * or classic) and can rewrite whole reply frames on their way to the client: flip bits under a
 * checksum, send a reply twice, renumber a VSR reply. A hostile or broken server, or a corrupting
 * middlebox, as the client sees it.
 */
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { ClassicResponseSplitter, VsrFrameSplitter, type FrameSplitter } from '@agdx/iggy-protocol';

/** Rewrites one reply frame: the frames to send instead, or undefined to pass it and stay armed. */
export type Tamper = (frame: Uint8Array) => readonly Uint8Array[] | undefined;

/** The proxy; `arm` a tamper for the next reply frame it accepts. */
export class TamperProxy {
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();
  #armed: Tamper | undefined;
  /** Frames a tamper rewrote. */
  tampered = 0;
  /** The port it listens on. */
  readonly port: number;

  private constructor(server: Server, port: number) {
    this.#server = server;
    this.port = port;
  }

  /** Listens on an ephemeral loopback port and forwards to `target`, splitting replies of `protocol`. */
  static async start(target: { host: string; port: number }, protocol: 'vsr' | 'classic'): Promise<TamperProxy> {
    let proxy: TamperProxy | undefined;
    const server = createServer((client) => proxy?.accept(client, target, protocol));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('proxy has no port');
    proxy = new TamperProxy(server, address.port);
    return proxy;
  }

  /** Applies `tamper` to the next reply frame it does not pass (one shot). */
  arm(tamper: Tamper): void {
    this.#armed = tamper;
  }

  /** Clears a tamper that found no frame. */
  disarm(): void {
    this.#armed = undefined;
  }

  private accept(client: Socket, target: { host: string; port: number }, protocol: 'vsr' | 'classic'): void {
    const upstream = createConnection(target);
    this.#sockets.add(client).add(upstream);
    const drop = (): void => {
      this.#sockets.delete(client);
      this.#sockets.delete(upstream);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.on('data', (chunk: Buffer) => upstream.write(chunk));
    const splitter: FrameSplitter = protocol === 'vsr' ? new VsrFrameSplitter() : new ClassicResponseSplitter();
    upstream.on('data', (chunk: Buffer) => {
      let frames: Uint8Array[];
      try {
        frames = splitter.push(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
      } catch {
        drop();
        return;
      }
      for (const frame of frames) {
        const tamper = this.#armed;
        const out = tamper?.(frame);
        if (out === undefined) {
          client.write(frame);
          continue;
        }
        this.#armed = undefined;
        this.tampered++;
        for (const f of out) client.write(f);
      }
    });
  }

  /** Stops listening and drops every connection. */
  async close(): Promise<void> {
    for (const s of this.#sockets) s.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}

/** Where `needle` starts in `haystack`, or -1. */
export function indexOfBytes(haystack: Uint8Array, needle: Uint8Array): number {
  outer: for (let i = 0; i + needle.length <= haystack.length; i++) {
    for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}
