/**
 * The metadata view the dev server reports through GetClusterMetadata (12), and which node is
 * primary. Iggy derives the primary from the metadata group's view number, `view % nodes`
 * (`core/server/src/cluster_meta.rs`); the dev server keeps the same rule so a test that moves
 * the primary does it the way a view change does: by advancing the view.
 */

import type { ClusterMetadata } from '@agdx/iggy-protocol';
import { DevServerError } from '../errors.js';

/** One node of a declared roster. */
export interface RosterNode {
  /** The node's name (reported as is). */
  readonly name: string;
  /** The address clients dial. */
  readonly host: string;
  /** The TCP port clients dial. */
  readonly port: number;
}

/** What a node needs to know about the cluster it belongs to. */
export interface ClusterMembership {
  /** The roster every node of the cluster serves. */
  readonly roster: ClusterRoster;
  /** This node's index in the roster. */
  readonly index: number;
}

/** Iggy's names for a server without clustering (`cluster_meta.rs`). */
const SINGLE_NODE_CLUSTER = 'single-node';
const SELF_NODE = 'iggy-node';

/**
 * A roster with a view number. One instance is shared by every node of an in-process cluster,
 * so all of them answer GetClusterMetadata with the same view.
 */
export class ClusterRoster {
  readonly name: string;
  readonly #nodes: RosterNode[];
  readonly #single: boolean;
  #view = 0;

  private constructor(name: string, nodes: RosterNode[], single: boolean) {
    this.name = name;
    this.#nodes = nodes;
    this.#single = single;
  }

  /** The roster of a server without clustering: itself, always the leader. */
  static single(host: string, port: number): ClusterRoster {
    return new ClusterRoster(SINGLE_NODE_CLUSTER, [{ name: SELF_NODE, host, port }], true);
  }

  /** A declared roster of two or more nodes; node 0 is primary in view 0. */
  static declared(name: string, nodes: readonly RosterNode[]): ClusterRoster {
    if (nodes.length < 2 || nodes.length > 255) throw new DevServerError('invalid', `a cluster has 2..255 nodes, got ${nodes.length}`);
    return new ClusterRoster(name, nodes.map((n) => ({ ...n })), false);
  }

  /** Roster size. */
  get size(): number {
    return this.#nodes.length;
  }

  /** The current view number. */
  get view(): number {
    return this.#view;
  }

  /** The primary's roster index: `view % nodes`, as Iggy computes it. */
  get primary(): number {
    return this.#view % this.#nodes.length;
  }

  /** The declared nodes. */
  get nodes(): readonly RosterNode[] {
    return this.#nodes;
  }

  /** Whether the node at `index` is the primary (a single node always is). */
  isPrimary(index: number): boolean {
    return this.#single || this.primary === index;
  }

  /** Sets a node's address once its listener is bound (port 0 asked for any free port). */
  bind(index: number, host: string, port: number): void {
    const node = this.#nodes[index];
    if (node === undefined) throw new DevServerError('invalid', `no node ${index} in the roster`);
    this.#nodes[index] = { ...node, host, port };
  }

  /**
   * Makes `index` the primary (default: the next node) by advancing the view to the next number
   * that names it, as a view change does; the view never goes back.
   */
  movePrimary(index: number = (this.primary + 1) % this.#nodes.length): number {
    if (!Number.isInteger(index) || index < 0 || index >= this.#nodes.length) throw new DevServerError('invalid', `no node ${String(index)} in the roster of ${this.#nodes.length}`);
    if (this.#single) throw new DevServerError('invalid', 'a server without a declared cluster has no other node to move the primary to');
    const n = this.#nodes.length;
    const steps = (((index - this.primary) % n) + n) % n;
    // Re-electing the current primary still takes a new view.
    this.#view += steps === 0 ? n : steps;
    return this.#view;
  }

  /**
   * The GetClusterMetadata answer. Only TCP is reported: the dev server serves nothing else, so
   * QUIC, HTTP and WebSocket ports are 0 ("off"), never invented.
   */
  metadata(): ClusterMetadata {
    return {
      name: this.name,
      nodes: this.#nodes.map((n, i) => ({
        name: n.name,
        ip: n.host,
        endpoints: { tcp: n.port, quic: 0, http: 0, websocket: 0 },
        role: this.isPrimary(i) ? 'Leader' : 'Follower',
        status: 'Healthy',
      })),
    };
  }
}
