/**
 * A consumer-group member over its own Iggy connection, using the server's group semantics:
 * JoinConsumerGroup on the member's connection, the assignment from SyncConsumerGroup (VSR) or
 * the group's member list (classic), polls with the `next` strategy on explicit owned
 * partitions, offsets stored per group and partition by the server. After a lost connection the
 * member's connection logs in again and re-joins before anything else is sent.
 */

import { setMaxListeners } from 'node:events';
import { ClosedError, ConflictError } from '@agdx/transport';
import type { CallOptions, GroupMember, GroupPollOptions, GroupPollResult } from '@agdx/transport';
import { CommandCode, decodeClientDetails, decodeConsumerGroupDetails, RESYNC_REQUIRED_PARTITION } from '@agdx/iggy-protocol';
import type { Consumer } from '@agdx/iggy-protocol';
import { iggyCodeOf, kindOfIggyCode, toTransportError } from './error-mapping.js';
import * as cmd from './commands.js';
import type { IggyConnection } from './connection/iggy-connection.js';
import { sleepUnlessStopped } from './sleep.js';
import { checkMaxCount, checkOffset, checkSignal, checkTimeout } from '@agdx/transport';
import { checkPartitionId } from './validation.js';

/** Where a member belongs. */
export interface GroupTarget {
  /** Stream name. */
  readonly stream: string;
  /** Topic name. */
  readonly topic: string;
  /** Group name. */
  readonly group: string;
}

/** One member of an Iggy consumer group; see the module comment. */
export class IggyGroupMember implements GroupMember {
  /** The group name. */
  readonly group: string;
  /**
   * Unique among the group's members: the VSR client id, or the classic server client id, as at
   * the join. It stays the same across reconnects, although the member then re-joins under a new
   * server-side id (VSR registers a new client id; classic gets a new client).
   */
  readonly memberId: string;
  readonly #connection: IggyConnection;
  readonly #target: GroupTarget;
  readonly #consumer: Consumer;
  readonly #onLeave: (member: IggyGroupMember) => void;
  readonly #stop: AbortController = new AbortController();
  #left = false;
  #cursor = 0;
  /** Classic: this member's id in the group's member list. */
  #classicMemberId: number | undefined;
  #classicClientId: number | undefined;

  private constructor(connection: IggyConnection, target: GroupTarget, memberId: string, onLeave: (member: IggyGroupMember) => void) {
    // Every concurrent waitFor listens on this signal; many waiters are normal, not a leak.
    setMaxListeners(0, this.#stop.signal);
    this.#connection = connection;
    this.#target = target;
    this.group = target.group;
    this.memberId = memberId;
    this.#consumer = { kind: 'group', id: target.group };
    this.#onLeave = onLeave;
  }

  /**
   * Joins `target` over `connection` (which the member then owns), creating the group when
   * missing. Used by {@link IggyTransport.joinGroup}; not meant to be called directly.
   * @internal
   */
  static async join(connection: IggyConnection, target: GroupTarget, options: CallOptions, onLeave: (member: IggyGroupMember) => void): Promise<IggyGroupMember> {
    const { stream, topic, group } = target;
    const o = { signal: options.signal };
    try {
      await cmd.createGroup(connection, stream, topic, group, o).catch((error: unknown) => {
        if (iggyCodeOf(error) !== 5004) throw error;
      });
      const vsr = connection.protocol === 'vsr';
      const memberId = vsr ? connection.vsrClientId.toString(16) : String(await cmd.getMyClientId(connection, o));
      const member = new IggyGroupMember(connection, target, memberId, onLeave);
      await member.#joinOnce((code, body) => connection.request(code, body, o));
      connection.onRestore(() => member.#joinOnce((code, body) => connection.restoreRequest(code, body)));
      return member;
    } catch (error) {
      await connection.close();
      throw error;
    }
  }

  async #joinOnce(send: (code: number, body: Uint8Array) => Promise<Uint8Array>): Promise<void> {
    const { stream, topic, group } = this.#target;
    const body = cmd.groupTargetBody(stream, topic, group);
    if (this.#connection.protocol === 'vsr') {
      await send(CommandCode.JoinConsumerGroup, body);
      return;
    }
    // Classic member ids are the server's; learn ours from the member list around the join.
    const decode = <T>(f: () => T): T => {
      try {
        return f();
      } catch (error) {
        throw toTransportError(error);
      }
    };
    const beforeBytes = await send(CommandCode.GetConsumerGroup, body);
    const before = decode(() => decodeConsumerGroupDetails(beforeBytes));
    await send(CommandCode.JoinConsumerGroup, body);
    const afterBytes = await send(CommandCode.GetConsumerGroup, body);
    const after = decode(() => decodeConsumerGroupDetails(afterBytes));
    const me = await send(CommandCode.GetMe, new Uint8Array(0));
    this.#classicClientId = decode(() => decodeClientDetails(me)).clientId;
    const known = new Set((before?.members ?? []).map((m) => m.id));
    const added = (after?.members ?? []).filter((m) => !known.has(m.id));
    this.#classicMemberId = added.length === 1 ? (added[0]?.id as number) : undefined;
  }

  #checkOpen(): void {
    if (this.#left || this.#connection.closed) throw new ClosedError('the group member has left');
  }

  /** The partition ids this member owns, ascending. */
  async assignment(options: CallOptions = {}): Promise<readonly number[]> {
    checkSignal(options.signal);
    this.#checkOpen();
    const { stream, topic, group } = this.#target;
    const o = { signal: options.signal };
    if (this.#connection.protocol === 'vsr') {
      return [...(await cmd.syncGroup(this.#connection, stream, topic, group, o))].sort((a, b) => a - b);
    }
    const details = await cmd.getGroup(this.#connection, stream, topic, group, o);
    const members = details?.members ?? [];
    const mine =
      members.find((m) => m.id === this.#classicMemberId) ?? members.find((m) => m.id === this.#classicClientId);
    return [...(mine?.partitions ?? [])].sort((a, b) => a - b);
  }

  /** Records after the group's stored offset from the next owned partition that has any. */
  async poll(options: GroupPollOptions = {}): Promise<GroupPollResult> {
    checkSignal(options.signal);
    this.#checkOpen();
    const count = checkMaxCount(options.maxCount);
    const owned = await this.assignment(options);
    if (count === 0 || owned.length === 0) return { partition: undefined, records: [] };
    const { stream, topic } = this.#target;
    for (let i = 0; i < owned.length; i++) {
      const index = (this.#cursor + i) % owned.length;
      const partition = owned[index] as number;
      const polled = await cmd.pollMessages(
        this.#connection,
        { consumer: this.#consumer, stream, topic, partitionId: partition, strategy: { kind: 'next' }, count, autoCommit: options.autoCommit === true },
        { signal: options.signal },
      );
      // The re-sync sentinel means the assignment moved under us: the next call syncs again.
      if (polled.partitionId === RESYNC_REQUIRED_PARTITION || polled.messages.length === 0) continue;
      this.#cursor = index + 1;
      return { partition, records: cmd.toRecords(partition, polled) };
    }
    return { partition: undefined, records: [] };
  }

  /**
   * Stores the group's offset for an owned partition (`ConflictError` otherwise). Over VSR the
   * server itself refuses a group offset for a partition the member does not own (Iggy answers
   * status 20, mapped to `ConflictError`), so the store is the ownership check: one request
   * instead of a SyncConsumerGroup before it, and no window between check and store. Classic
   * servers are not known to check, so there the assignment is asked first.
   */
  async commit(partition: number, offset: bigint, options: CallOptions = {}): Promise<void> {
    checkSignal(options.signal);
    this.#checkOpen();
    checkPartitionId(partition);
    checkOffset(offset);
    if (this.#connection.protocol !== 'vsr' && !(await this.owns(partition, options))) {
      throw new ConflictError(`partition ${partition} is not assigned to this member of group ${this.group}`, { context: { partition, group: this.group } });
    }
    await this.storeOffset(partition, offset, options);
  }

  /** True when the member currently owns `partition`. */
  async owns(partition: number, options: CallOptions = {}): Promise<boolean> {
    return (await this.assignment(options)).includes(partition);
  }

  /** Requests written on the member's own connection, by command code (the transport's `requestsWritten` sums them). */
  get requestsWritten(): ReadonlyMap<number, number> {
    return this.#connection.requestsWritten;
  }

  /** The target this member belongs to. */
  get target(): GroupTarget {
    return this.#target;
  }

  /** Stores the group's offset on this member's connection (ownership already checked). */
  async storeOffset(partition: number, offset: bigint, options: CallOptions): Promise<void> {
    const { stream, topic } = this.#target;
    try {
      await cmd.storeOffset(this.#connection, this.#consumer, stream, topic, partition, offset, { signal: options.signal });
    } catch (error) {
      throw ownershipError(error, partition, this.group);
    }
  }

  /** Deletes the group's offset on this member's connection: `true` when one was stored. */
  async deleteOffset(partition: number, options: CallOptions): Promise<boolean> {
    const { stream, topic } = this.#target;
    try {
      await cmd.deleteOffset(this.#connection, this.#consumer, stream, topic, partition, { signal: options.signal });
      return true;
    } catch (error) {
      if (iggyCodeOf(error) === 3021) return false;
      throw ownershipError(error, partition, this.group);
    }
  }

  /** Resolves `true` once an owned partition has records after the group's offset or the assignment changed. */
  waitFor(timeoutMs: number, options: CallOptions = {}): Promise<boolean> {
    const waiting = this.#waitFor(timeoutMs, options);
    waiting.catch(() => undefined);
    return waiting;
  }

  async #waitFor(timeoutMs: number, options: CallOptions): Promise<boolean> {
    checkSignal(options.signal);
    this.#checkOpen();
    const limit = checkTimeout(timeoutMs);
    // The monotonic clock: a wall clock stepped back would stretch the wait without bound.
    const deadline = performance.now() + limit;
    const { stream, topic, group } = this.#target;
    const o = { signal: options.signal };
    const { waitMinMs, waitMaxMs } = this.#connection.options;
    let pause = waitMinMs;
    let first: string | undefined;
    for (;;) {
      const owned = await this.assignment(options);
      const key = owned.join(',');
      first ??= key;
      if (key !== first) return true;
      if (owned.length > 0) {
        const details = await cmd.getTopic(this.#connection, stream, topic, o);
        for (const partition of owned) {
          const info = details?.partitions.find((p) => p.id === partition);
          if (info === undefined) continue;
          const stored = await cmd.getOffset(this.#connection, { kind: 'group', id: group }, stream, topic, partition, o);
          const from = stored === undefined ? 0n : stored.storedOffset + 1n;
          if (cmd.nextOffsetOf(info) > from) return true;
        }
      }
      const left = deadline - performance.now();
      if (left <= 0) return false;
      await sleepUnlessStopped(Math.min(pause, left), options.signal, this.#stop.signal);
      this.#checkOpen();
      pause = Math.min(waitMaxMs, pause * 2);
    }
  }

  /** Leaves the group and closes the member's connection. Idempotent. */
  async leave(options: CallOptions = {}): Promise<void> {
    if (this.#left) return;
    this.#left = true;
    this.#stop.abort(new ClosedError('the group member has left'));
    const { stream, topic, group } = this.#target;
    try {
      if (!this.#connection.closed) {
        await this.#connection.request(CommandCode.LeaveConsumerGroup, cmd.groupTargetBody(stream, topic, group), { signal: options.signal, timeoutMs: 2000 });
      }
    } catch {
      // Closing the connection removes the member on the server anyway.
    } finally {
      await this.#connection.close();
      this.#onLeave(this);
    }
  }
}

/** A group offset rejected because of ownership becomes a conflict; other errors keep their kind. */
function ownershipError(error: unknown, partition: number, group: string): unknown {
  const code = iggyCodeOf(error);
  if (code !== undefined && (code === 20 || code === 5009 || code === 5006 || kindOfIggyCode(code) === 'conflict')) {
    return new ConflictError(`the server refused the offset of partition ${partition}: this member does not own it`, {
      cause: error,
      context: { partition, group, iggyCode: code },
    });
  }
  return error;
}
