/**
 * A minimal client over a real socket built only from the @agdx/iggy-protocol codecs and
 * session machines, for raw-protocol tests of the dev server (both generations).
 */

import { connect } from 'node:net';
import type { Socket } from 'node:net';
import {
  ClassicClientSession,
  ClassicResponseSplitter,
  IggyError,
  VsrClientSession,
  VsrFrameSplitter,
} from '@agdx/iggy-protocol';
import type { FrameSplitter, IggyProtocol } from '@agdx/iggy-protocol';

/** The answer to one request. */
export type CallOutcome = { readonly ok: true; readonly payload: Uint8Array } | { readonly ok: false; readonly code: number; readonly error: IggyError };

/** A raw protocol client. */
export class RawClient {
  readonly protocol: IggyProtocol;
  readonly socket: Socket;
  readonly vsr: VsrClientSession = new VsrClientSession({ sdkName: 'dev-server-test', sdkVersion: '0.0.0' });
  readonly classic: ClassicClientSession = new ClassicClientSession();
  readonly #splitter: FrameSplitter;
  readonly #frames: Uint8Array[] = [];
  #waiter: (() => void) | undefined;
  #closed = false;

  private constructor(protocol: IggyProtocol, socket: Socket) {
    this.protocol = protocol;
    this.socket = socket;
    this.#splitter = protocol === 'vsr' ? new VsrFrameSplitter() : new ClassicResponseSplitter();
    socket.on('data', (chunk: Buffer) => {
      for (const f of this.#splitter.push(new Uint8Array(chunk))) this.#frames.push(f);
      this.#wake();
    });
    socket.on('close', () => {
      this.#closed = true;
      this.#wake();
    });
    socket.on('error', () => undefined);
  }

  #wake(): void {
    const w = this.#waiter;
    this.#waiter = undefined;
    w?.();
  }

  /** Connects to `127.0.0.1:port`. */
  static connect(port: number, protocol: IggyProtocol): Promise<RawClient> {
    return new Promise((resolve, reject) => {
      const socket = connect({ host: '127.0.0.1', port }, () => resolve(new RawClient(protocol, socket)));
      socket.once('error', reject);
    });
  }

  /** True once the server closed the socket. */
  get closed(): boolean {
    return this.#closed;
  }

  /** The next whole frame, `closed`, or `timeout`. */
  async nextFrame(timeoutMs = 5000): Promise<Uint8Array | 'closed' | 'timeout'> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const f = this.#frames.shift();
      if (f !== undefined) return f;
      if (this.#closed) return 'closed';
      const left = deadline - Date.now();
      if (left <= 0) return 'timeout';
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.#waiter = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  }

  /** Waits until the server closes the socket (true) or the time runs out (false). */
  async waitClosed(timeoutMs = 5000): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (!this.#closed && Date.now() < deadline) {
      const f = await this.nextFrame(deadline - Date.now());
      if (f === 'closed') return true;
    }
    return this.#closed;
  }

  /** Writes raw bytes. */
  write(bytes: Uint8Array): void {
    this.socket.write(bytes);
  }

  async #exchange(frame: Uint8Array): Promise<CallOutcome> {
    this.write(frame);
    const reply = await this.nextFrame();
    if (reply === 'closed' || reply === 'timeout') throw new Error(`no reply: ${reply}`);
    const outcome = this.protocol === 'vsr' ? this.vsr.handleFrame(reply) : this.classic.handleFrame(reply);
    return outcome.ok ? { ok: true, payload: outcome.payload } : { ok: false, code: outcome.error.code, error: outcome.error };
  }

  /** Logs in (VSR Register or classic LoginUser); evictions throw. */
  login(username = 'iggy', password = 'iggy'): Promise<CallOutcome> {
    const frame = this.protocol === 'vsr' ? this.vsr.register({ username, password }).frame : this.classic.login({ username, password }).frame;
    return this.#exchange(frame);
  }

  /** Logs in with a personal access token (VSR Register code 45 or classic LoginWithPAT); evictions throw. */
  loginWithToken(token: string): Promise<CallOutcome> {
    const frame = this.protocol === 'vsr' ? this.vsr.register({ token }).frame : this.classic.login({ token }).frame;
    return this.#exchange(frame);
  }

  /** Sends a command and returns its outcome. */
  call(code: number, body: Uint8Array = new Uint8Array(0)): Promise<CallOutcome> {
    const frame = this.protocol === 'vsr' ? this.vsr.command(code, body).frame : this.classic.command(code, body).frame;
    return this.#exchange(frame);
  }

  /** Sends a command and returns the payload, throwing the refusal. */
  async ok(code: number, body: Uint8Array = new Uint8Array(0)): Promise<Uint8Array> {
    const r = await this.call(code, body);
    if (!r.ok) throw r.error;
    return r.payload;
  }

  /** Sends a command that must be refused and returns the code. */
  async refused(code: number, body: Uint8Array = new Uint8Array(0)): Promise<number> {
    const r = await this.call(code, body);
    if (r.ok) throw new Error(`command ${code} was accepted`);
    return r.code;
  }

  /** Closes the socket. */
  close(): void {
    this.socket.destroy();
  }
}

/** Both generations, for `describe.each`. */
export const PROTOCOLS: readonly IggyProtocol[] = ['vsr', 'classic'];

/** Thrown-or-returned check helper: the error code of a rejected promise. */
export async function codeOf(p: Promise<unknown>): Promise<number> {
  try {
    await p;
  } catch (e) {
    if (e instanceof IggyError) return e.code;
    throw e;
  }
  throw new Error('expected a refusal');
}
