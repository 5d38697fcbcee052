/**
 * Which refusals of a VSR metadata operation Iggy 0.9 sends before consensus. Those travel as a
 * status in the reply header with an empty body; every other refusal is committed into the
 * result section. Source: core/server/src/dispatch.rs `handle_client_request`, where the PAT
 * rewrite (core/server/src/pat.rs), the password rewrite (core/server/src/users.rs) and the
 * "static-bounds" checks each answer through `send_pre_consensus_deny`.
 */

import { Operation } from '@agdx/iggy-protocol';
import { AuthStatus } from '../auth/user-directory.js';
import { Status } from '../log/broker.js';

// What these operations check before consensus: a body they cannot decode (InvalidCommand),
// the per-request partitions bound (`validate_partitions_count`), option keys
// (`validate_option_keys` and the topic options catalog gate), topic option values (the same
// gate, `TopicCreateOptions::parse`, refuses a value it cannot parse), and the per-user token
// limit (checked while the CreatePersonalAccessToken body is rewritten).
const { InvalidCommand, InvalidOptionValue, TooManyPartitions, UnsupportedOptionKey } = Status;

/** The operations whose body the server decodes before consensus, with the codes it checks there. */
const CHECKED_BEFORE_CONSENSUS: ReadonlyMap<number, ReadonlySet<number>> = new Map<number, ReadonlySet<number>>([
  [Operation.CreateStream, new Set([InvalidCommand, UnsupportedOptionKey])],
  [Operation.UpdateStream, new Set([InvalidCommand, UnsupportedOptionKey])],
  [Operation.CreateTopic, new Set([InvalidCommand, UnsupportedOptionKey, InvalidOptionValue, TooManyPartitions])],
  [Operation.UpdateTopic, new Set([InvalidCommand, UnsupportedOptionKey, InvalidOptionValue])],
  [Operation.CreatePartitions, new Set([InvalidCommand, TooManyPartitions])],
  [Operation.DeletePartitions, new Set([InvalidCommand, TooManyPartitions])],
  [Operation.CreateUser, new Set([InvalidCommand, UnsupportedOptionKey])],
  [Operation.UpdateUser, new Set([InvalidCommand, UnsupportedOptionKey])],
  [Operation.ChangePassword, new Set([InvalidCommand])],
  [Operation.CreatePersonalAccessToken, new Set([InvalidCommand, AuthStatus.TokensLimitReached])],
  [Operation.DeletePersonalAccessToken, new Set([InvalidCommand])],
]);

/** True when Iggy 0.9 refuses `operation` with `status` before consensus (a header status). */
export function refusedBeforeConsensus(operation: number, status: number): boolean {
  return CHECKED_BEFORE_CONSENSUS.get(operation)?.has(status) ?? false;
}
