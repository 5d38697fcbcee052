// The one place a runtime-neutral package reaches a Node built-in, and only by feature detection:
// `process.getBuiltinModule` (Node >= 20.16, Bun, Deno) hands over `node:crypto` when the
// runtime has it, without an `import` that bundlers, browsers or edge runtimes would have to
// resolve. Where it is missing, nothing here fails: the caller falls back to WebCrypto or noble.
// scripts/check-imports.mjs allows `getBuiltinModule` in this file only, and only for `node:crypto`.

/** A key object of `node:crypto`; opaque here: it is only handed back to `sign` / `verify`. */
export type NodeKeyObject = object;

/** The part of `node:crypto` the `node-crypto` back end uses, typed structurally (no Node types). */
export interface NodeCryptoEd25519 {
  createPrivateKey(options: { key: Uint8Array; format: 'der'; type: 'pkcs8' }): NodeKeyObject;
  createPublicKey(options: { key: Uint8Array; format: 'der'; type: 'spki' }): NodeKeyObject;
  sign(algorithm: null, data: Uint8Array, key: NodeKeyObject): Uint8Array;
  verify(algorithm: null, data: Uint8Array, key: NodeKeyObject, signature: Uint8Array): boolean;
}

type BuiltinLookup = (id: string) => unknown;

function hasEd25519Calls(m: unknown): m is NodeCryptoEd25519 {
  if (typeof m !== 'object' || m === null) return false;
  const c = m as Record<string, unknown>;
  return (
    typeof c.createPrivateKey === 'function' &&
    typeof c.createPublicKey === 'function' &&
    typeof c.sign === 'function' &&
    typeof c.verify === 'function'
  );
}

/**
 * The runtime's `node:crypto`, or undefined when the runtime does not offer it through
 * `process.getBuiltinModule` (browsers, workers without Node compatibility, older Node).
 * Never throws.
 */
export function nodeCryptoModule(): NodeCryptoEd25519 | undefined {
  try {
    const processLike = (globalThis as { process?: { getBuiltinModule?: BuiltinLookup } }).process;
    const lookup = processLike?.getBuiltinModule;
    if (typeof lookup !== 'function') return undefined;
    const m = lookup.call(processLike, 'node:crypto');
    return hasEd25519Calls(m) ? m : undefined;
  } catch {
    return undefined;
  }
}
