import { UnsupportedError } from '@agdx/wire';
import type { Ed25519Backend, Ed25519BackendChoice, Ed25519BackendName, SyncEd25519Backend } from './backend.js';
import { nobleBackend } from './noble.js';
import { nodeCryptoBackend, workingNodeCrypto } from './node-crypto.js';
import { webCryptoBackend, webCryptoEd25519Available } from './webcrypto.js';

const CHOICES: ReadonlySet<string> = new Set<Ed25519BackendChoice>(['auto', 'platform', 'node-crypto', 'webcrypto', 'noble']);

let choice: Ed25519BackendChoice = 'auto';

/**
 * Chooses the Ed25519 implementation used by every key, registry and card function that is
 * not given one explicitly. `auto` (the default) takes the first that works on this runtime of
 * `node-crypto` (synchronous, reached through `process.getBuiltinModule`), `webcrypto` and
 * `noble`; `platform` the first of `node-crypto` and `webcrypto`. All give identical bytes.
 *
 * @throws UnsupportedError for an unknown name.
 */
export function setEd25519Backend(next: Ed25519BackendChoice): void {
  if (!CHOICES.has(next)) throw new UnsupportedError(`unknown Ed25519 back end ${String(next)}`);
  choice = next;
}

/** The current process-wide back-end choice (see {@link setEd25519Backend}). */
export function ed25519BackendChoice(): Ed25519BackendChoice {
  return choice;
}

function missing(name: Ed25519BackendChoice): UnsupportedError {
  const what = name === 'platform' ? 'no platform Ed25519 (node:crypto or WebCrypto)' : `no ${name} Ed25519`;
  return new UnsupportedError(`this runtime has ${what}; use the noble back end`);
}

// WebCrypto's probe is asynchronous; its answer, once known, lets later calls stay synchronous.
let webCryptoKnown: boolean | undefined;

async function probeWebCrypto(): Promise<boolean> {
  webCryptoKnown = await webCryptoEd25519Available();
  return webCryptoKnown;
}

/**
 * Resolves the back end that a call with the given choice (default: the process-wide one)
 * will use. Useful to report which implementation is active.
 *
 * @throws UnsupportedError (as a rejection) when a forced back end is missing on this runtime.
 */
export async function resolveEd25519Backend(requested?: Ed25519BackendChoice): Promise<Ed25519BackendName> {
  return (await backendFor(requested)).name;
}

/**
 * The back end a call uses: an explicit choice wins over the process-wide one. The answer is
 * synchronous except while WebCrypto is still being probed, so hot paths skip the await. A
 * forced back end that this runtime lacks gives a rejected Promise with an UnsupportedError.
 */
export function backendFor(requested?: Ed25519BackendChoice): Ed25519Backend | Promise<Ed25519Backend> {
  const wanted = requested ?? choice;
  switch (wanted) {
    case 'noble':
      return nobleBackend;
    case 'node-crypto':
      return workingNodeCrypto() !== undefined ? nodeCryptoBackend : Promise.reject(missing(wanted));
    case 'auto':
    case 'platform':
      if (workingNodeCrypto() !== undefined) return nodeCryptoBackend;
      break;
    case 'webcrypto':
      break;
    default:
      return Promise.reject(new UnsupportedError(`unknown Ed25519 back end ${String(wanted)}`));
  }
  const fallback = wanted === 'auto' ? nobleBackend : undefined;
  if (webCryptoKnown === true) return webCryptoBackend;
  if (webCryptoKnown === false) return fallback ?? Promise.reject(missing(wanted));
  return probeWebCrypto().then((ok) => {
    if (ok) return webCryptoBackend;
    if (fallback !== undefined) return fallback;
    throw missing(wanted);
  });
}

/**
 * The synchronous back end for the `…Sync` methods under a choice: `node-crypto` when the choice
 * allows it and the runtime has it, `noble` otherwise (WebCrypto has no synchronous calls).
 *
 * @throws UnsupportedError when `node-crypto` is forced on a runtime without it.
 */
export function syncBackendFor(requested?: Ed25519BackendChoice): SyncEd25519Backend {
  const wanted = requested ?? choice;
  if (wanted === 'auto' || wanted === 'platform' || wanted === 'node-crypto') {
    if (workingNodeCrypto() !== undefined) return nodeCryptoBackend;
    if (wanted === 'node-crypto') throw missing(wanted);
  }
  return nobleBackend;
}
