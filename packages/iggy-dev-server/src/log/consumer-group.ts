/**
 * A consumer group of one topic: members (connections) in join order, their partitions, and
 * the group's offsets per partition (shared by the members). Join is a cooperative rebalance:
 * partitions move to the newcomer at once when nothing delivered from them is uncommitted, and
 * otherwise after the current owner commits, or after the rebalancing timeout. Leave and
 * disconnect are a full rebalance (partition i to member i mod M), as in Iggy.
 */

/** A partition handed over to another member once it is safe. */
interface PendingRevocation {
  readonly partition: number;
  readonly target: number;
  readonly since: number;
}

/** One member of a group. */
export interface GroupMemberState {
  /** The member id: the server's id of the member's connection. */
  readonly clientId: number;
  /** Owned partitions, ascending. */
  partitions: number[];
  /** Owned partitions promised to another member. */
  pending: PendingRevocation[];
  /** Round-robin cursor of server-side partition selection (classic polls). */
  cursor: number;
}

/** The state of a consumer group. */
export class ConsumerGroupState {
  /** The 0-based group id. */
  readonly id: number;
  /** The group name. */
  readonly name: string;
  /** Increases on every membership or assignment change. */
  generation = 0n;
  /** Members in join order. */
  readonly members: GroupMemberState[] = [];
  /** The group's stored offsets per partition (last consumed). */
  readonly offsets: Map<number, bigint> = new Map();
  /** Last offset delivered to the group per partition (revocations wait for its commit). */
  readonly delivered: Map<number, bigint> = new Map();
  #partitions: number;
  readonly #timeoutMs: number;

  constructor(id: number, name: string, partitions: number, rebalancingTimeoutMs: number) {
    this.id = id;
    this.name = name;
    this.#partitions = partitions;
    this.#timeoutMs = rebalancingTimeoutMs;
  }

  /** The member of a connection, if it joined. */
  member(clientId: number): GroupMemberState | undefined {
    return this.members.find((m) => m.clientId === clientId);
  }

  /** Adds a member (idempotent) and rebalances cooperatively. */
  join(clientId: number, nowMs: number): void {
    if (this.member(clientId) !== undefined) return;
    this.members.push({ clientId, partitions: [], pending: [], cursor: 0 });
    this.#cooperative(nowMs);
    this.generation++;
  }

  /** Removes a member and rebalances fully; false when it was not a member. */
  leave(clientId: number): boolean {
    const index = this.members.findIndex((m) => m.clientId === clientId);
    if (index < 0) return false;
    const [gone] = this.members.splice(index, 1);
    for (const p of gone?.partitions ?? []) this.delivered.delete(p);
    this.#full();
    return true;
  }

  /** The topic's partition count changed: full rebalance. */
  resize(partitions: number): void {
    this.#partitions = partitions;
    for (const p of [...this.offsets.keys()]) if (p >= partitions) this.offsets.delete(p);
    for (const p of [...this.delivered.keys()]) if (p >= partitions) this.delivered.delete(p);
    this.#full();
  }

  /** Partitions a member may poll: owned and not being handed over. */
  pollable(member: GroupMemberState): number[] {
    return member.partitions.filter((p) => !member.pending.some((r) => r.partition === p));
  }

  /** Completes the revocations that became safe (or timed out). */
  settle(nowMs: number): void {
    let changed = false;
    for (const m of this.members) {
      for (const r of [...m.pending]) {
        const target = this.member(r.target);
        const delivered = this.delivered.get(r.partition);
        const committed = this.offsets.get(r.partition);
        const safe = delivered === undefined || (committed !== undefined && committed >= delivered) || nowMs - r.since >= this.#timeoutMs;
        if (target === undefined) {
          m.pending = m.pending.filter((x) => x !== r);
          changed = true;
        } else if (safe) {
          m.pending = m.pending.filter((x) => x !== r);
          m.partitions = m.partitions.filter((p) => p !== r.partition);
          target.partitions = [...target.partitions, r.partition].sort((a, b) => a - b);
          changed = true;
        }
      }
    }
    if (changed) this.generation++;
  }

  #full(): void {
    for (const m of this.members) {
      m.partitions = [];
      m.pending = [];
      m.cursor = 0;
    }
    const count = this.members.length;
    if (count > 0) for (let p = 0; p < this.#partitions; p++) (this.members[p % count] as GroupMemberState).partitions.push(p);
    this.generation++;
  }

  #cooperative(nowMs: number): void {
    const count = this.members.length;
    const fair = Math.floor(this.#partitions / count);
    let extra = this.#partitions % count;
    // Quotas: the members holding the most keep the fair+1 slots, to move as little as possible.
    const byLoad = [...this.members].sort((a, b) => b.partitions.length - a.partitions.length);
    const quota = new Map<number, number>();
    for (const m of byLoad) {
      quota.set(m.clientId, extra > 0 ? fair + 1 : fair);
      if (extra > 0) extra--;
    }
    const held = new Set(this.members.flatMap((m) => m.partitions));
    const pool: Array<{ partition: number; from: GroupMemberState | undefined }> = [];
    for (let p = 0; p < this.#partitions; p++) if (!held.has(p)) pool.push({ partition: p, from: undefined });
    for (const m of this.members) {
      const keep = quota.get(m.clientId) ?? fair;
      const movable = m.partitions.filter((p) => !m.pending.some((r) => r.partition === p));
      const promised = m.partitions.length - movable.length;
      let excess = m.partitions.length - promised - keep;
      for (let i = movable.length - 1; i >= 0 && excess > 0; i--, excess--) pool.push({ partition: movable[i] as number, from: m });
    }
    for (const m of this.members) {
      const incoming = this.members.reduce((n, o) => n + o.pending.filter((r) => r.target === m.clientId).length, 0);
      let want = (quota.get(m.clientId) ?? fair) - m.partitions.length - incoming;
      while (want > 0 && pool.length > 0) {
        const next = pool.shift() as { partition: number; from: GroupMemberState | undefined };
        want--;
        if (next.from === undefined) {
          m.partitions = [...m.partitions, next.partition].sort((a, b) => a - b);
        } else {
          next.from.pending.push({ partition: next.partition, target: m.clientId, since: nowMs });
        }
      }
    }
    this.settle(nowMs);
  }
}
