import { adoptIdBytes, type MachineId, type MachineIdClass } from './machine-id.js';
import { nextUlidBytes, setUlidSource, type UlidSource } from './ulid.js';

/** Mints ULID-valued machine ids: `MintUlid.mint(CorrelationId)`. */
export const MintUlid: {
  /** A fresh, monotonic ULID of the given id class (RecordId, ConversationId, CorrelationId, ChannelId). */
  mint<T extends MachineId>(cls: MachineIdClass<T>): T;
  /** Swaps the clock and randomness used by every mint (pass `undefined` to restore the platform). */
  setSource(source: UlidSource | undefined): void;
} = {
  mint<T extends MachineId>(cls: MachineIdClass<T>): T {
    return adoptIdBytes(cls, nextUlidBytes());
  },
  setSource(source: UlidSource | undefined): void {
    setUlidSource(source);
  },
};
