/**
 * The server's open connections, with the not-yet-authenticated ones also kept in arrival
 * order. When the connection limit is reached, the oldest unauthenticated socket makes room
 * for the new one: sockets that never log in (the cheap way to fill a server) go first, and
 * logged-in clients are never dropped for a newcomer.
 */

/** What the registry needs of a connection. */
export interface RegisteredConnection {
  /** Drops the connection at once. */
  destroy(): void;
}

/** Open connections and the unauthenticated subset, both oldest first. */
export class ConnectionRegistry<C extends RegisteredConnection> {
  readonly #all = new Set<C>();
  readonly #unauthenticated = new Set<C>();
  readonly #max: number;
  #shed = 0;

  constructor(maxConnections: number) {
    this.#max = maxConnections;
  }

  /** Open connections. */
  get size(): number {
    return this.#all.size;
  }

  /** Connections shed so far to make room for newer ones. */
  get shed(): number {
    return this.#shed;
  }

  /**
   * Makes room for one more connection: true when there is room (after shedding the oldest
   * unauthenticated connection if the limit was reached), false when every slot is held by a
   * logged-in client.
   */
  makeRoom(): boolean {
    if (this.#all.size < this.#max) return true;
    const oldest = this.#unauthenticated.values().next();
    if (oldest.done === true) return false;
    this.delete(oldest.value);
    this.#shed++;
    oldest.value.destroy();
    return true;
  }

  /** Adds a new, unauthenticated connection. */
  add(conn: C): void {
    this.#all.add(conn);
    this.#unauthenticated.add(conn);
  }

  /** The connection logged in (true) or out (false). */
  setAuthenticated(conn: C, authenticated: boolean): void {
    if (!this.#all.has(conn)) return;
    if (authenticated) this.#unauthenticated.delete(conn);
    else {
      // A logged-out connection counts as the newest unauthenticated one.
      this.#unauthenticated.delete(conn);
      this.#unauthenticated.add(conn);
    }
  }

  /** Forgets a closed connection. */
  delete(conn: C): void {
    this.#all.delete(conn);
    this.#unauthenticated.delete(conn);
  }

  /** Every open connection, oldest first. */
  values(): IterableIterator<C> {
    return this.#all.values();
  }
}
