import { InvalidError } from '../errors.js';
import type { DetailValue } from '../cbor/value.js';

/** The metadata key that carries the bridges a request already passed through. */
export const BRIDGE_HOPS_METADATA_KEY = 'bridge_hops';

/**
 * The loop guard of the edge bridges: returns `previous` followed by `bridge`, or throws
 * InvalidError (`bridge loop detected at `id``) when the request already went through `bridge`.
 */
export function enterBridge(bridge: string, previous?: readonly string[] | null): readonly string[] {
  if (typeof bridge !== 'string' || bridge.length === 0) throw new InvalidError('bridge id must not be empty');
  const hops = previous ?? [];
  if (hops.includes(bridge)) throw new InvalidError(`bridge loop detected at \`${bridge}\``, { context: { bridge } });
  return [...hops, bridge];
}

/** The `bridge_hops` metadata value for a hop list (a list of strings). */
export function bridgeHopMetadata(hops: readonly string[]): DetailValue {
  return [...hops];
}

/**
 * Reads the hop list back from envelope metadata. Absent means no hops; a value that is not a
 * list of strings is ignored item by item, so a foreign writer can never disable the guard by
 * sending garbage (the strings it did send still count).
 */
export function readBridgeHops(metadata: ReadonlyMap<string, DetailValue> | undefined): readonly string[] {
  const value = metadata?.get(BRIDGE_HOPS_METADATA_KEY);
  if (!Array.isArray(value)) return [];
  return (value as readonly DetailValue[]).filter((item): item is string => typeof item === 'string');
}
