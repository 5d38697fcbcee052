// How much of a signature or verification on each platform back end is this package and how much
// is the platform: ours (`await key.sign(e, ctx)`, `await registry.verifyAt(e, at)`) against the
// bare platform call on the same signing inputs with an already imported key, both one call at a
// time, in alternating rounds, per CPU second of the process (WebCrypto's worker threads count):
//   node-crypto back end against node:crypto's synchronous `sign(null, input, key)` / `verify`;
//   webcrypto back end against `crypto.subtle.sign` / `.verify` (awaited).
// Ours includes encoding the envelope, the strict-rule checks, the capsule and the awaited promise.
// Run: pnpm bench sign-ceiling  → one JSON object on stdout.
import { createPrivateKey, createPublicKey, sign as nodeSign, verify as nodeVerify } from 'node:crypto';
import { KeyRegistry, pkcs8FromSeed, SigningKey, signingInput } from '@agdx/sign';
import type { Ed25519BackendName } from '@agdx/sign';
import type { AgentEnvelope } from '@agdx/wire';
import { compareAlternating, sinkBit } from './support/alternating.js';
import type { Contender } from './support/alternating.js';
import { envelopeRing, RING_SIZE } from './support/envelope-ring.js';
import { machine } from './support/machine.js';

const ROUNDS = 11;
const CONTEXT = { contentType: 1, agentVersion: 1 } as const;
const SEED = new Uint8Array(32).fill(0x5a);
const AT = 1_750_000_000_000_000n;
const ALGORITHM = { name: 'Ed25519' } as const;
const mask = RING_SIZE - 1;

const before = machine();
const envelopes = envelopeRing('command100');
const inputs = envelopes.map((e) => signingInput(e, CONTEXT) as Uint8Array<ArrayBuffer>);

async function ours(backend: Ed25519BackendName) {
  const key = SigningKey.fromBytes(SEED, { backend });
  const registry = new KeyRegistry({ backend });
  registry.enroll('planner', key.verifyingKey);
  const signed: AgentEnvelope[] = [];
  for (const e of envelopes) signed.push(await key.sign(e, CONTEXT));
  const sign: Contender = { run: (i) => key.sign(envelopes[i & mask]!, CONTEXT), async: true };
  const verify: Contender = { run: (i) => registry.verifyAt(signed[i & mask]!, AT), async: true };
  return { key, signed, sign, verify };
}

const node = await ours('node-crypto');
const web = await ours('webcrypto');
const signatures = node.signed.map((e) => e.signature!.bytes as Uint8Array<ArrayBuffer>);

const nodePrivate = createPrivateKey({ key: Buffer.from(pkcs8FromSeed(SEED)), format: 'der', type: 'pkcs8' });
const nodePublic = createPublicKey(nodePrivate);
const subtle = globalThis.crypto.subtle;
const signKey = await subtle.importKey('pkcs8', pkcs8FromSeed(SEED), ALGORITHM, false, ['sign']);
const verifyKey = await subtle.importKey('raw', new Uint8Array(node.key.verifyingKey), ALGORITHM, false, ['verify']);

const nodeCrypto = {
  sign: await compareAlternating(node.sign, { run: (i) => nodeSign(null, inputs[i & mask]!, nodePrivate) }, { rounds: ROUNDS }),
  verify: await compareAlternating(node.verify, { run: (i) => nodeVerify(null, inputs[i & mask]!, nodePublic, signatures[i & mask]!) }, { rounds: ROUNDS }),
};
const webcrypto = {
  sign: await compareAlternating(web.sign, { run: (i) => subtle.sign(ALGORITHM, signKey, inputs[i & mask]!), async: true }, { rounds: ROUNDS }),
  verify: await compareAlternating(
    web.verify,
    { run: (i) => subtle.verify(ALGORITHM, verifyKey, signatures[i & mask]!, inputs[i & mask]!), async: true },
    { rounds: ROUNDS },
  ),
};

console.log(
  JSON.stringify(
    {
      name: 'sign-ceiling',
      machineBefore: before,
      machineAfter: machine(),
      method: {
        rounds: ROUNDS,
        ring: `${RING_SIZE} distinct command envelopes (100-byte bodies), context {ct:1, av:1}`,
        rate: 'operations per CPU second of this process (user + system, all threads), one call at a time',
        ratio: 'ours / the bare platform call of the CPU-second rates within each round; 1.0 would mean no cost of our own',
      },
      nodeCrypto,
      webcrypto,
      sink: sinkBit(),
    },
    null,
    2,
  ),
);
