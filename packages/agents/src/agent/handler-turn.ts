/**
 * A partition lane's handler turn. Handlers of one partition never run at the same time: with
 * pipelined answers a lane starts the next record's handler once the previous handler returned
 * (its answers may still be in flight), and a retry of an earlier record waits for a turn of its
 * own before its handler runs again.
 */
export interface HandlerTurn {
  /** The record's handler returned: the lane may start the next record's handler. */
  release(): void;
  /** After {@link release}: waits for a turn again (a retry); resolves with the call that ends it. */
  again(): Promise<() => void>;
  /** Aborts when the partition's lease is lost (a rebalance gave it away); absent when the record is handled outside a lane. */
  readonly signal?: AbortSignal | undefined;
}

const NOTHING = (): void => undefined;

/** The turn of a record handled on its own (nothing runs beside it). */
export const SOLE_TURN: HandlerTurn = { release: NOTHING, again: () => Promise.resolve(NOTHING) };
