/// <reference types="node" preserve="true" />
/**
 * Moves queued calls onto the socket: classic requests are pipelined (corked into one write per
 * tick) until the socket's own buffer holds {@link WRITE_BUFFER_LIMIT}, VSR requests go out one
 * at a time (the VSR session numbering allows one in flight).
 */

import type net from 'node:net';
import { released, settle } from './call.js';
import type { Call } from './call.js';
import type { Session } from './session.js';
import { toTransportError } from '../error-mapping.js';

/**
 * Bytes a classic connection leaves in its socket's buffer in this process before it stops
 * writing pipelined requests until the socket drains. The kernel's buffers take what they can
 * first, so this is only reached when the server reads slower than calls arrive (or not at all):
 * calls beyond it wait in the queue unwritten, bounded by their timeout, and a reset then fails
 * them cleanly instead of with an unknown outcome. VSR keeps one request in flight anyway.
 */
export const WRITE_BUFFER_LIMIT: number = 4 * 1024 * 1024;

/** The connection's call lists and counters that a {@link WritePump} moves calls between. */
export interface PumpLists {
  /** Calls not yet written, in order. */
  readonly queue: Call[];
  /** Written calls waiting for their reply, in order. */
  readonly inFlight: Call[];
  /** Requests written, by command code. */
  readonly written: Map<number, number>;
}

/**
 * Writes queued calls to a connection's socket, moving each from `queue` to `inFlight`. Made
 * once per connection: the pump runs on every call and every reply, so it allocates nothing.
 */
export class WritePump {
  readonly #lists: PumpLists;
  readonly #resume: (socket: net.Socket) => void;
  /** The socket a 'drain' listener waits on: one listener per socket. */
  #drainAwaited: net.Socket | undefined;

  /** `resume` runs when a socket the pump found full has drained (it pumps again if that socket is still current). */
  constructor(lists: PumpLists, resume: (socket: net.Socket) => void) {
    this.#lists = lists;
    this.#resume = resume;
  }

  /**
   * Writes whatever may go out now on `socket`: with `vsr`, one request when none is in flight;
   * classic, pipelined until the socket's buffer holds {@link WRITE_BUFFER_LIMIT}. With
   * `internalOnly` (restoring) only internal calls go, the rest keep their place. A call the
   * session cannot frame (a body over the limits) fails alone.
   */
  write(socket: net.Socket, session: Session, vsr: boolean, internalOnly: boolean): void {
    const { queue, inFlight, written } = this.#lists;
    let corked = false;
    while (queue.length > 0) {
      if (vsr && inFlight.length > 0) break;
      if (!vsr && socket.writableLength >= WRITE_BUFFER_LIMIT) {
        this.#resumeOnDrain(socket);
        break;
      }
      const index = internalOnly ? queue.findIndex((c) => c.internal) : 0;
      if (index === -1) break;
      const call = queue[index] as Call;
      queue.splice(index, 1);
      if (call.settled) {
        released(call);
        continue;
      }
      let frame: Uint8Array;
      try {
        const pending = session.command(call.code, call.body, call.headerInPlace);
        frame = pending.frame;
        call.pending = pending;
      } catch (error) {
        settle(call, { error: toTransportError(error) });
        released(call);
        continue;
      }
      call.written = true;
      written.set(call.code, (written.get(call.code) ?? 0) + 1);
      inFlight.push(call);
      // VSR writes one frame per pump: it goes out at once, without the cork's extra tick.
      if (vsr) {
        socket.write(frame);
        break;
      }
      if (!corked) {
        socket.cork();
        corked = true;
      }
      socket.write(frame);
    }
    if (corked) process.nextTick(() => socket.uncork());
  }

  /** Pumps again once `socket` has handed its buffered bytes to the kernel (one listener per socket). */
  #resumeOnDrain(socket: net.Socket): void {
    if (this.#drainAwaited === socket) return;
    this.#drainAwaited = socket;
    socket.once('drain', () => {
      if (this.#drainAwaited === socket) this.#drainAwaited = undefined;
      this.#resume(socket);
    });
  }
}
