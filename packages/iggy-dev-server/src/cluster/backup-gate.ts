/**
 * What a node that is not the primary refuses. Iggy's backups serve reads from their replicated
 * state (metadata reads, polls; an auto-commit on a backup is best effort) and refuse replicated
 * operations: the partition plane answers `TransientNotAccepted` (58) in the header status
 * (`core/partitions/src/iggy_partition.rs`, "rejecting client request on non-primary partition
 * replica"), so the client replays against the primary. Iggy's metadata plane leaves such a
 * request unanswered until the client's read timeout; the dev server answers it with the same
 * 58, in the result section where a metadata reply carries refusals, so tests need not wait out
 * timeouts. Register is accepted on any node (Iggy forwards it to the primary).
 */

import { CommandCode, Operation, operationForCode } from '@agdx/iggy-protocol';

/** Iggy's `TransientNotAccepted`: nothing was applied, replay elsewhere. */
export const TRANSIENT_NOT_ACCEPTED = 58;

const ALWAYS_SERVED: ReadonlySet<number> = new Set([
  CommandCode.LoginUser,
  CommandCode.LoginWithPersonalAccessToken,
  CommandCode.LoginRegister,
  CommandCode.LoginRegisterWithPersonalAccessToken,
  CommandCode.LogoutUser,
]);

/** True when a backup refuses the command with {@link TRANSIENT_NOT_ACCEPTED}. */
export function refusedOnBackup(code: number): boolean {
  return !ALWAYS_SERVED.has(code) && operationForCode(code) !== Operation.NonReplicated;
}
