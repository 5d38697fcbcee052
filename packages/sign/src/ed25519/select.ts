import { UnsupportedError } from '@agdx/wire';
import type { Ed25519Backend, Ed25519BackendChoice, Ed25519BackendName } from './backend.js';
import { nobleBackend } from './noble.js';
import { platformBackend, platformEd25519Available } from './platform.js';

let choice: Ed25519BackendChoice = 'auto';

/**
 * Chooses the Ed25519 implementation used by every key, registry and card function that is
 * not given one explicitly. `auto` (the default) uses the platform's WebCrypto Ed25519 when the
 * runtime has it and @noble/curves otherwise. Both give identical bytes.
 */
export function setEd25519Backend(next: Ed25519BackendChoice): void {
  if (next !== 'auto' && next !== 'noble' && next !== 'platform') {
    throw new UnsupportedError(`unknown Ed25519 back end ${String(next)}`);
  }
  choice = next;
}

/** The current process-wide back-end choice (see {@link setEd25519Backend}). */
export function ed25519BackendChoice(): Ed25519BackendChoice {
  return choice;
}

/**
 * Resolves the back end that a call with the given choice (default: the process-wide one)
 * will use. Useful to report which implementation is active.
 */
export async function resolveEd25519Backend(requested?: Ed25519BackendChoice): Promise<Ed25519BackendName> {
  const wanted = requested ?? choice;
  if (wanted === 'noble') return 'noble';
  const available = await platformEd25519Available();
  platformKnown = available;
  if (wanted === 'platform') {
    if (!available) throw new UnsupportedError('this runtime has no WebCrypto Ed25519; use the noble back end');
    return 'platform';
  }
  return available ? 'platform' : 'noble';
}

let platformKnown: boolean | undefined;

/**
 * The back end a call uses: an explicit choice wins over the process-wide one. After the first
 * probe the answer is synchronous, so hot paths skip the await.
 */
export function backendFor(requested?: Ed25519BackendChoice): Ed25519Backend | Promise<Ed25519Backend> {
  const wanted = requested ?? choice;
  if (wanted === 'noble') return nobleBackend;
  if (platformKnown === true) return platformBackend;
  if (platformKnown === false && wanted === 'auto') return nobleBackend;
  return resolveEd25519Backend(wanted).then((name) => (name === 'platform' ? platformBackend : nobleBackend));
}
