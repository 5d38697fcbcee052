// The node:crypto back end's detection and probe, with stand-ins for a runtime that lacks
// `process.getBuiltinModule`, one whose lookup throws, and node:crypto look-alikes that answer
// wrongly: each must be refused without an exception, so the selection falls back.
import { ed25519 } from '@noble/curves/ed25519.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { toHex } from './support/fixtures.js';
import { nodeCryptoWorks, workingNodeCrypto } from '../src/ed25519/node-crypto.js';
import { nodeCryptoModule } from '../src/ed25519/node-crypto-module.js';
import type { NodeCryptoEd25519 } from '../src/ed25519/node-crypto-module.js';

const processObject = globalThis.process as unknown as { getBuiltinModule?: unknown };
const realLookup = processObject.getBuiltinModule;

afterEach(() => {
  processObject.getBuiltinModule = realLookup;
});

describe('node:crypto detection', () => {
  it('finds node:crypto through process.getBuiltinModule on this Node', () => {
    expect(typeof realLookup).toBe('function');
    const api = nodeCryptoModule();
    expect(api).toBeDefined();
    expect(nodeCryptoWorks(api!)).toBe(true);
    expect(workingNodeCrypto()).toBe(api);
  });
  it('gives undefined without getBuiltinModule, when the lookup throws, or for a module without the calls', () => {
    processObject.getBuiltinModule = undefined;
    expect(nodeCryptoModule()).toBeUndefined();
    processObject.getBuiltinModule = () => {
      throw new Error('no such module');
    };
    expect(nodeCryptoModule()).toBeUndefined();
    processObject.getBuiltinModule = () => ({ sign: () => new Uint8Array(64) });
    expect(nodeCryptoModule()).toBeUndefined();
    processObject.getBuiltinModule = () => undefined;
    expect(nodeCryptoModule()).toBeUndefined();
  });
  it('asks for node:crypto only', () => {
    const asked: string[] = [];
    processObject.getBuiltinModule = (id: string) => {
      asked.push(id);
      return undefined;
    };
    nodeCryptoModule();
    expect(asked).toEqual(['node:crypto']);
  });
});

describe('the probe', () => {
  const real = nodeCryptoModule()!;
  const variant = (overrides: Partial<NodeCryptoEd25519>): NodeCryptoEd25519 => ({
    createPrivateKey: (o) => real.createPrivateKey(o),
    createPublicKey: (o) => real.createPublicKey(o),
    sign: (a, d, k) => real.sign(a, d, k),
    verify: (a, d, k, s) => real.verify(a, d, k, s),
    ...overrides,
  });
  it('refuses an implementation whose signature bytes differ', () => {
    expect(nodeCryptoWorks(variant({ sign: () => new Uint8Array(64) }))).toBe(false);
    expect(nodeCryptoWorks(variant({ sign: () => new Uint8Array(63) }))).toBe(false);
  });
  it('refuses one that verifies everything, or nothing', () => {
    expect(nodeCryptoWorks(variant({ verify: () => true }))).toBe(false);
    expect(nodeCryptoWorks(variant({ verify: () => false }))).toBe(false);
  });
  it('refuses one that throws on import, sign or verify, without throwing itself', () => {
    const boom = (): never => {
      throw new Error('unsupported key type');
    };
    expect(nodeCryptoWorks(variant({ createPrivateKey: boom }))).toBe(false);
    expect(nodeCryptoWorks(variant({ createPublicKey: boom }))).toBe(false);
    expect(nodeCryptoWorks(variant({ sign: boom }))).toBe(false);
    expect(nodeCryptoWorks(variant({ verify: boom }))).toBe(false);
  });
});

describe('selection on a runtime without node:crypto (fresh module instances, lookup removed)', () => {
  it('auto and platform fall back to webcrypto, node-crypto is refused, sync twins use noble', async () => {
    processObject.getBuiltinModule = undefined;
    vi.resetModules();
    try {
      const select = await import('../src/ed25519/select.js');
      const { SigningKey: FreshKey } = await import('../src/signing-key.js');
      expect(await select.resolveEd25519Backend('auto')).toBe('webcrypto');
      expect(await select.resolveEd25519Backend('platform')).toBe('webcrypto');
      const refused = await select.resolveEd25519Backend('node-crypto').then(
        () => undefined,
        (error: unknown) => error as { kind?: string; message?: string },
      );
      expect(refused?.kind).toBe('unsupported');
      expect(refused?.message).toBe('this runtime has no node-crypto Ed25519; use the noble back end');
      expect(select.syncBackendFor('auto').name).toBe('noble');
      expect(() => select.syncBackendFor('node-crypto')).toThrow('this runtime has no node-crypto Ed25519');
      const seed = new Uint8Array(32).fill(7);
      const message = new TextEncoder().encode('fallback');
      const key = FreshKey.fromBytes(seed);
      expect(toHex(await key.signBytes(message))).toBe(toHex(ed25519.sign(message, seed)));
      expect(toHex(key.signBytesSync(message))).toBe(toHex(ed25519.sign(message, seed)));
      await expect(FreshKey.fromBytes(seed, { backend: 'node-crypto' }).signBytes(message)).rejects.toThrow('no node-crypto Ed25519');
    } finally {
      processObject.getBuiltinModule = realLookup;
      vi.resetModules();
    }
  });
});
