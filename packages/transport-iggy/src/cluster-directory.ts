/**
 * What a client knows about the nodes of an Iggy cluster: the seed addresses it was given, the
 * roster the last GetClusterMetadata reported, and which node that roster named leader. One
 * directory is shared by every connection of a transport, so what one connection learns (a
 * new leader, a dead one) the next reconnect of any other uses.
 */

import type { ClusterMetadata } from '@agdx/iggy-protocol';

/** A TCP address. */
export interface Endpoint {
  readonly host: string;
  readonly port: number;
}

/** Where to go after reading a roster. */
export type Settlement =
  /** Stay on the node that answered (a cluster of one, or the node is the leader). */
  | { readonly kind: 'stay' }
  /** Reconnect to the leader the roster names. */
  | { readonly kind: 'redirect'; readonly leader: Endpoint }
  /** Several nodes and none is a healthy leader: the cluster is electing. */
  | { readonly kind: 'leaderless' };

/** A DNS host name (labels of letters, digits, `-` and `_`, 253 characters at most) or an IPv4 literal. */
const HOST_NAME = /^(?=.{1,253}$)[A-Za-z0-9_][A-Za-z0-9_-]{0,62}(?:\.[A-Za-z0-9_][A-Za-z0-9_-]{0,62})*\.?$/;
/** An IPv6 literal, without brackets or zone. */
const IPV6 = /^(?=.{2,45}$)[0-9A-Fa-f.]*:[0-9A-Fa-f:.]*$/;

/**
 * True when a roster's address is something this client may dial. The roster comes from the
 * network: an empty host would make Node dial this machine, and a host with other bytes is no
 * address at all (a line break, a space, text longer than DNS allows).
 */
export function dialableHost(host: string): boolean {
  return HOST_NAME.test(host) || IPV6.test(host);
}

function keyOf(e: Endpoint): string {
  return `${e.host.toLowerCase()}|${e.port}`;
}

/** See the module comment. */
export class ClusterDirectory {
  readonly #seeds: readonly Endpoint[];
  #roster: readonly Endpoint[] = [];
  #leader: Endpoint | undefined;
  /** Nodes that refused work as not the primary (58) and have served nothing since. */
  readonly #refused = new Set<string>();

  constructor(seeds: readonly Endpoint[]) {
    this.#seeds = seeds;
  }

  /** True when more than one node is known: failover applies. */
  get clustered(): boolean {
    return this.candidates().length > 1;
  }

  /** The last leader a roster named, if it has not failed since. */
  get leader(): Endpoint | undefined {
    return this.#leader;
  }

  /**
   * Addresses to try, in order: the known leader, the seeds, then the rest of the roster; nodes
   * that refused work as not the primary come last, so without discovery (nothing names the
   * leader) a backup listed first does not take every attempt.
   */
  candidates(): Endpoint[] {
    const seen = new Set<string>();
    const out: Endpoint[] = [];
    const refused: Endpoint[] = [];
    for (const e of [...(this.#leader === undefined ? [] : [this.#leader]), ...this.#seeds, ...this.#roster]) {
      const key = keyOf(e);
      if (seen.has(key)) continue;
      seen.add(key);
      (this.#refused.has(key) ? refused : out).push(e);
    }
    return refused.length === 0 ? out : [...out, ...refused];
  }

  /** The node at `endpoint` refused work as not the primary (58): it is tried last from now on. */
  refusedWork(endpoint: Endpoint): void {
    this.#refused.add(keyOf(endpoint));
    if (this.#leader !== undefined && keyOf(this.#leader) === keyOf(endpoint)) this.#leader = undefined;
  }

  /** The node at `endpoint` answered a request: it takes its place in the order again. */
  served(endpoint: Endpoint): void {
    if (this.#refused.size > 0) this.#refused.delete(keyOf(endpoint));
  }

  /**
   * Records a roster read from the node at `from` and says where to settle. Nodes without a
   * TCP port or with an address that is not one ({@link dialableHost}) are not reachable by
   * this client and are left out; a leader left out leaves the roster without a leader.
   */
  learn(metadata: ClusterMetadata, from: Endpoint): Settlement {
    if (metadata.nodes.length <= 1) {
      // A cluster of one (Iggy without clustering): whatever it calls itself, it serves, and
      // the seed stays the way in (its self-reported address may be 0.0.0.0 or a container's).
      this.#roster = [];
      this.#leader = undefined;
      return { kind: 'stay' };
    }
    const reachable = metadata.nodes.filter((n) => n.endpoints.tcp !== 0 && dialableHost(n.ip));
    this.#roster = reachable.map((n) => ({ host: n.ip, port: n.endpoints.tcp }));
    const leader = reachable.find((n) => n.role === 'Leader' && n.status === 'Healthy');
    if (leader === undefined) {
      this.#leader = undefined;
      return { kind: 'leaderless' };
    }
    this.#leader = { host: leader.ip, port: leader.endpoints.tcp };
    return keyOf(this.#leader) === keyOf(from) ? { kind: 'stay' } : { kind: 'redirect', leader: this.#leader };
  }

  /** Forgets the leader after it failed or refused to serve as one. */
  forgetLeader(): void {
    this.#leader = undefined;
  }
}
