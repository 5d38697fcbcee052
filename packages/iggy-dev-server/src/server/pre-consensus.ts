/**
 * Which refusals of a VSR metadata operation Iggy 0.9 sends before consensus. Those travel as a
 * status in the reply header with an empty body; every other refusal is committed into the
 * result section. Source: core/server/src/dispatch.rs `handle_client_request`, where the PAT
 * rewrite (core/server/src/pat.rs), the password rewrite (core/server/src/users.rs) and the
 * "static-bounds" checks each answer through `send_pre_consensus_deny`.
 */

import { Operation } from '@agdx/iggy-protocol';

/** InvalidCommand: the status of a body these operations cannot decode. */
const INVALID_COMMAND = 3;
/** TooManyPartitions: the per-request partitions bound (`validate_partitions_count`). */
const TOO_MANY_PARTITIONS = 2015;
/** UnsupportedOptionKey: `validate_option_keys` and the topic options catalog gate. */
const UNSUPPORTED_OPTION_KEY = 4041;
/** PersonalAccessTokensLimitReached: checked while the CreatePersonalAccessToken body is rewritten. */
const TOKENS_LIMIT_REACHED = 52;

/** The operations whose body the server decodes before consensus, with the codes it checks there. */
const CHECKED_BEFORE_CONSENSUS: ReadonlyMap<number, ReadonlySet<number>> = new Map<number, ReadonlySet<number>>([
  [Operation.CreateStream, new Set([INVALID_COMMAND, UNSUPPORTED_OPTION_KEY])],
  [Operation.UpdateStream, new Set([INVALID_COMMAND, UNSUPPORTED_OPTION_KEY])],
  [Operation.CreateTopic, new Set([INVALID_COMMAND, UNSUPPORTED_OPTION_KEY, TOO_MANY_PARTITIONS])],
  [Operation.UpdateTopic, new Set([INVALID_COMMAND, UNSUPPORTED_OPTION_KEY])],
  [Operation.CreatePartitions, new Set([INVALID_COMMAND, TOO_MANY_PARTITIONS])],
  [Operation.DeletePartitions, new Set([INVALID_COMMAND, TOO_MANY_PARTITIONS])],
  [Operation.CreateUser, new Set([INVALID_COMMAND, UNSUPPORTED_OPTION_KEY])],
  [Operation.UpdateUser, new Set([INVALID_COMMAND, UNSUPPORTED_OPTION_KEY])],
  [Operation.ChangePassword, new Set([INVALID_COMMAND])],
  [Operation.CreatePersonalAccessToken, new Set([INVALID_COMMAND, TOKENS_LIMIT_REACHED])],
  [Operation.DeletePersonalAccessToken, new Set([INVALID_COMMAND])],
]);

/** True when Iggy 0.9 refuses `operation` with `status` before consensus (a header status). */
export function refusedBeforeConsensus(operation: number, status: number): boolean {
  return CHECKED_BEFORE_CONSENSUS.get(operation)?.has(status) ?? false;
}
