// The published reference (@laserdata/laser-sdk 0.1.1), loaded from the copy `pnpm bench:reference`
// fetched and verified into bench/.reference/. Only the dist modules that hold the envelope codec
// and the signer are imported: the package's entry pulls in `apache-iggy`, which is not
// installable. The types below describe just the surface the benchmarks call.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** The reference's envelope: a plain object (its fields are opaque to the benchmarks). */
export type RefEnvelope = Record<string, unknown>;

/** The reference's signature context and capsule. */
export interface RefSignatureContext {
  readonly contentType?: number;
  readonly agentVersion?: number;
}
export interface RefSignature {
  readonly scheme: number;
  readonly keyId: Uint8Array;
  readonly bytes: Uint8Array;
}

/** The reference functions the benchmarks compare against. */
export interface Reference {
  readonly dir: string;
  /** validateAgentEnvelope, then encodeNamed(encodeAgentEnvelope(...)): the reference's send path. */
  validateEncode(envelope: RefEnvelope): Uint8Array;
  /** decodeOne, expectMap, decodeAgentEnvelope, then validateAgentEnvelope: its receive path. */
  decodeValidate(bytes: Uint8Array): RefEnvelope;
  /** Its Ed25519 key (@noble/ed25519, synchronous). */
  signingKey(seed: Uint8Array): { signWithContext(envelope: RefEnvelope, context: RefSignatureContext): RefSignature; verifyingKey(): Uint8Array };
  /** Its key registry; `verifyAt` throws when the signature does not verify. */
  keyRegistry(): { enroll(principal: string, verifyingKey: Uint8Array): void; verifyAt(envelope: RefEnvelope, atMicros: bigint): unknown };
}

const DEFAULT_DIR = fileURLToPath(new URL('../.reference/package/', import.meta.url));

/** Where the unpacked reference lives (AGDX_REFERENCE_DIR overrides), whether or not it is there. */
export function referenceDir(): string {
  return process.env.AGDX_REFERENCE_DIR ?? DEFAULT_DIR;
}

/** Loads the reference, or throws a message that says how to fetch it. */
export async function loadReference(): Promise<Reference> {
  const dir = referenceDir();
  if (!existsSync(join(dir, 'dist', 'wire', 'agent.js'))) {
    throw new Error(`the reference is not fetched (${dir}); run \`pnpm bench:reference\`, which fetches and verifies it`);
  }
  const load = async (rel: string): Promise<Record<string, unknown>> => (await import(pathToFileURL(join(dir, 'dist', rel)).href)) as Record<string, unknown>;
  type Fn = (...args: unknown[]) => unknown;
  const agent = await load('wire/agent.js');
  const cbor = await load('wire/cbor.js');
  const signing = await load('signing.js');
  const validate = agent.validateAgentEnvelope as Fn;
  const encodeMap = agent.encodeAgentEnvelope as Fn;
  const decodeMap = agent.decodeAgentEnvelope as Fn;
  const encodeNamed = cbor.encodeNamed as Fn;
  const decodeOne = cbor.decodeOne as Fn;
  const expectMap = cbor.expectMap as Fn;
  const SigningKey = signing.SigningKey as { fromBytes(seed: Uint8Array): ReturnType<Reference['signingKey']> };
  const KeyRegistry = signing.KeyRegistry as new () => ReturnType<Reference['keyRegistry']>;
  const context = 'agent envelope';
  return {
    dir,
    validateEncode(envelope) {
      validate(envelope);
      return encodeNamed(encodeMap(envelope)) as Uint8Array;
    },
    decodeValidate(bytes) {
      const envelope = decodeMap(expectMap(decodeOne(bytes, context), context), context) as RefEnvelope;
      validate(envelope);
      return envelope;
    },
    signingKey: (seed) => SigningKey.fromBytes(seed),
    keyRegistry: () => new KeyRegistry(),
  };
}
