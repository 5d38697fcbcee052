/**
 * Permission checks before a command runs, as Iggy gates them (`core/metadata/src/stm/authz.rs`
 * for metadata operations, `core/server/src/dispatch/authz.rs` for reads and partition
 * operations): the root user passes everything; a stream or topic that does not resolve is not
 * refused here but left to the command, which answers "not found"; a refusal is 41
 * (Unauthorized). A user may read itself and change its own password without `manage_users`.
 */

import { CommandCode, IggyCodecError, IggyError, decodeChangePasswordRequest, decodeStreamTarget, decodeTopicTarget, decodeUserTarget } from '@agdx/iggy-protocol';
import type { Identifier } from '@agdx/iggy-protocol';
import type { Broker } from '../log/broker.js';
import type { CompiledPermissions } from './permission-rules.js';
import {
  canCreateStream,
  canCreateTopic,
  canListStreams,
  canListTopics,
  canManageStream,
  canManageTopic,
  canManageUsers,
  canPoll,
  canReadServers,
  canReadStream,
  canReadTopic,
  canReadUsers,
  canSend,
} from './permission-rules.js';
import type { UserDirectory } from './user-directory.js';
import { ROOT_USER_ID } from './user-directory.js';

const UNAUTHORIZED = 41;

type P = CompiledPermissions | undefined;

/** Where the stream identifier starts: at 0, after SendMessages' u32 metadata length, or after a consumer. */
type Lead = 'start' | 'metadata' | 'consumer';

type Rule =
  | { readonly scope: 'global'; readonly allow: (p: P) => boolean }
  | { readonly scope: 'stream'; readonly lead: Lead; readonly allow: (p: P, stream: number) => boolean }
  | { readonly scope: 'topic'; readonly lead: Lead; readonly allow: (p: P, stream: number, topic: number) => boolean };

const global = (allow: (p: P) => boolean): Rule => ({ scope: 'global', allow });
const stream = (allow: (p: P, s: number) => boolean): Rule => ({ scope: 'stream', lead: 'start', allow });
const topic = (allow: (p: P, s: number, t: number) => boolean, lead: Lead = 'start'): Rule => ({ scope: 'topic', lead, allow });

const RULES: ReadonlyMap<number, Rule> = new Map<number, Rule>([
  [CommandCode.GetStats, global(canReadServers)],
  [CommandCode.GetSnapshot, global(canReadServers)],
  [CommandCode.GetClient, global(canReadServers)],
  [CommandCode.GetClients, global(canReadServers)],
  [CommandCode.GetUsers, global(canReadUsers)],
  [CommandCode.CreateUser, global(canManageUsers)],
  [CommandCode.DeleteUser, global(canManageUsers)],
  [CommandCode.UpdateUser, global(canManageUsers)],
  [CommandCode.UpdatePermissions, global(canManageUsers)],
  [CommandCode.GetStreams, global(canListStreams)],
  [CommandCode.CreateStream, global(canCreateStream)],
  [CommandCode.GetStream, stream(canReadStream)],
  [CommandCode.UpdateStream, stream(canManageStream)],
  [CommandCode.DeleteStream, stream(canManageStream)],
  [CommandCode.PurgeStream, stream(canManageStream)],
  [CommandCode.GetTopics, stream(canListTopics)],
  [CommandCode.CreateTopic, stream(canCreateTopic)],
  [CommandCode.GetTopic, topic(canReadTopic)],
  [CommandCode.UpdateTopic, topic(canManageTopic)],
  [CommandCode.DeleteTopic, topic(canManageTopic)],
  [CommandCode.PurgeTopic, topic(canManageTopic)],
  [CommandCode.CreatePartitions, topic(canManageTopic)],
  [CommandCode.DeletePartitions, topic(canManageTopic)],
  [CommandCode.DeleteSegments, topic(canManageTopic)],
  [CommandCode.GetConsumerGroup, topic(canReadTopic)],
  [CommandCode.GetConsumerGroups, topic(canReadTopic)],
  [CommandCode.CreateConsumerGroup, topic(canReadTopic)],
  [CommandCode.DeleteConsumerGroup, topic(canReadTopic)],
  [CommandCode.JoinConsumerGroup, topic(canReadTopic)],
  [CommandCode.LeaveConsumerGroup, topic(canReadTopic)],
  [CommandCode.SendMessages, topic(canSend, 'metadata')],
  [CommandCode.PollMessages, topic(canPoll, 'consumer')],
  [CommandCode.GetConsumerOffset, topic(canPoll, 'consumer')],
  [CommandCode.StoreConsumerOffset, topic(canPoll, 'consumer')],
  [CommandCode.DeleteConsumerOffset, topic(canPoll, 'consumer')],
]);

/** The end of the `[kind u8][len u8][value]` identifier starting at `at`. */
function identifierEnd(payload: Uint8Array, at: number): number {
  const len = payload[at + 1];
  if (len === undefined) throw new IggyCodecError('request is too short for its identifiers', { context: { offset: at } });
  return at + 2 + len;
}

function leadingIds(payload: Uint8Array, lead: Lead, withTopic: boolean): { readonly stream: Identifier; readonly topic?: Identifier } {
  const at = lead === 'start' ? 0 : lead === 'metadata' ? 4 : identifierEnd(payload, 1);
  const streamEnd = identifierEnd(payload, at);
  if (!withTopic) return decodeStreamTarget(payload.subarray(at, streamEnd));
  return decodeTopicTarget(payload.subarray(at, identifierEnd(payload, streamEnd)));
}

/**
 * Throws `IggyError` 41 when the connection's user may not run `code` on what `payload` names.
 * A payload too malformed to name its target throws the codec error the command would.
 */
export function authorizeCommand(users: UserDirectory, broker: Broker, userId: number, code: number, payload: Uint8Array): void {
  if (userId === ROOT_USER_ID) return;
  const p = users.permissionsOf(userId);
  if (code === CommandCode.GetUser || code === CommandCode.ChangePassword) {
    const target = code === CommandCode.GetUser ? decodeUserTarget(payload).user : decodeChangePasswordRequest(payload).user;
    const found = users.find(target);
    const allowed = found === undefined || found.id === userId || (code === CommandCode.GetUser ? canReadUsers(p) : canManageUsers(p));
    if (!allowed) throw new IggyError(UNAUTHORIZED);
    return;
  }
  const rule = RULES.get(code);
  if (rule === undefined) return;
  if (rule.scope === 'global') {
    if (!rule.allow(p)) throw new IggyError(UNAUTHORIZED);
    return;
  }
  const ids = leadingIds(payload, rule.lead, rule.scope === 'topic');
  const s = broker.findStream(ids.stream);
  if (s === undefined) return;
  if (rule.scope === 'stream') {
    if (!rule.allow(p, s.id)) throw new IggyError(UNAUTHORIZED);
    return;
  }
  const t = ids.topic === undefined ? undefined : broker.findTopic(s, ids.topic);
  if (t !== undefined && !rule.allow(p, s.id, t.id)) throw new IggyError(UNAUTHORIZED);
}
