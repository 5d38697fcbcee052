/**
 * The control lines `agdx-iggy-dev --cluster N` reads on its standard input, so a test that runs
 * the cluster in a child process can move the primary or crash a node:
 * `primary [i]` (a view change to node i, default the next), `stop i`, `start i`, `status`.
 * Each line is answered with one JSON line: the cluster's state, or `{"error": ...}`.
 */

import type { DevCluster } from './dev-cluster.js';

/** The state line printed after every control line. */
export function clusterStatus(cluster: DevCluster): string {
  return JSON.stringify({
    view: cluster.view,
    primary: cluster.primary,
    nodes: cluster.nodes.map((n) => ({ index: n.index, name: n.name, host: n.host, port: n.port, running: n.running })),
  });
}

function nodeIndex(word: string | undefined): number | undefined {
  if (word === undefined) return undefined;
  if (!/^\d{1,3}$/.test(word)) throw new Error(`not a node index: ${word}`);
  return Number(word);
}

/** Runs one control line and returns the JSON line to print. Never throws. */
export async function runControlLine(cluster: DevCluster, line: string): Promise<string> {
  const [command, arg, extra] = line.trim().split(/\s+/);
  try {
    if (extra !== undefined) throw new Error('too many words');
    const index = nodeIndex(arg);
    switch (command) {
      case 'primary':
        cluster.movePrimary(index);
        break;
      case 'stop':
        if (index === undefined) throw new Error('stop needs a node index');
        await cluster.stopNode(index);
        break;
      case 'start':
        if (index === undefined) throw new Error('start needs a node index');
        await cluster.startNode(index);
        break;
      case 'status':
        if (index !== undefined) throw new Error('status takes no argument');
        break;
      default:
        throw new Error(`unknown command ${String(command)} (primary [i], stop i, start i, status)`);
    }
    return clusterStatus(cluster);
  } catch (error) {
    return JSON.stringify({ error: error instanceof Error ? error.message : String(error) });
  }
}
