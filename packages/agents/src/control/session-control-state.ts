import type { LogPosition, RecordId } from '@agdx/wire';
import type { RecordAddress } from '../agent/log-position.js';

/** A control request as the runtime remembers it. */
export interface ControlRequest {
  /** Its position (what acknowledgments and parkings name). */
  readonly position: LogPosition;
  /** Its address on the control topic. */
  readonly address: RecordAddress;
  /** Its record id, when it had one (the cause of acknowledgments). */
  readonly record: RecordId | undefined;
  /** True when the request names this agent (addressed to it, or a pause listing it). */
  readonly named: boolean;
}

/** A record held while its session is paused. */
export interface HeldRecord {
  /** Where it sits; drained by reading it back from there. */
  readonly address: RecordAddress;
  /** The pause request it was parked under. */
  readonly request: ControlRequest;
  /** The parking event body's source conversation (Crockford text). */
  readonly conversation: string;
  /** The source topic's generation (creation time) when it was parked; 0 when the log could not say. */
  readonly generation: bigint;
}

/** What the runtime knows about one session's control state (folded in log order). */
export interface SessionControlState {
  /** A pause is in force. */
  pauseRequested: boolean;
  /** A cancel was requested. */
  cancelRequested: boolean;
  /** The newest pause request. */
  pause: ControlRequest | undefined;
  /** The newest resume request. */
  resume: ControlRequest | undefined;
  /** The newest acknowledgment this agent wrote: which state, for which request. */
  lastAck: { readonly state: 'paused' | 'working'; readonly request: LogPosition } | undefined;
  /** This agent ended the session (after a cancel while paused). */
  ended: boolean;
  /** Held records, oldest first. */
  held: HeldRecord[];
  /** Addresses (`topic/partition/offset`) parked or handled through their parking. */
  readonly seen: Set<string>;
  /** Addresses handled through their parking (redeliveries are committed without handling). */
  readonly handledThroughParking: Set<string>;
  /**
   * Record ids of the control requests applied to the session, newest last, at most
   * {@link APPLIED_CONTROL_MEMORY}. A signed request copied and appended again still verifies, so
   * only this memory keeps a replayed pause from re-pausing a resumed session.
   */
  readonly applied: Set<string>;
}

/**
 * How many applied control record ids a session remembers. Operators send a handful per session;
 * the bound only keeps unsigned floods (no verifier) from growing it without end.
 */
export const APPLIED_CONTROL_MEMORY = 4_096;

/**
 * Notes that the control request `record` was applied; false when it already was (a replay).
 * The oldest id is forgotten beyond {@link APPLIED_CONTROL_MEMORY}.
 */
export function firstApplication(state: SessionControlState, record: string): boolean {
  if (state.applied.has(record)) return false;
  state.applied.add(record);
  if (state.applied.size > APPLIED_CONTROL_MEMORY) {
    const oldest = state.applied.values().next().value;
    if (oldest !== undefined) state.applied.delete(oldest);
  }
  return true;
}

/** A fresh, unpaused state. */
export function emptyControlState(): SessionControlState {
  return {
    pauseRequested: false,
    cancelRequested: false,
    pause: undefined,
    resume: undefined,
    lastAck: undefined,
    ended: false,
    held: [],
    seen: new Set(),
    handledThroughParking: new Set(),
    applied: new Set(),
  };
}

/** The identity of a record address inside one stream. */
export function addressKey(address: RecordAddress): string {
  return `${address.stream}/${address.topic}/${address.partition}/${address.offset}`;
}
