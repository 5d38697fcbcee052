import { KeyRecord, KeyRegistry } from '@agdx/sign';
import type { Ed25519BackendName } from '@agdx/sign';
import type { HeaderValue } from '@agdx/wire';
import { hex } from './fixtures.js';
import type { OracleRecord } from './fixtures.js';

/** A KeyRecord from the oracle's logical record JSON. */
export function recordFrom(entry: OracleRecord): KeyRecord {
  const base = {
    principal: entry.principal,
    verifyingKey: hex(entry.verifying_key_hex),
    kind: entry.kind,
    validFromMicros: BigInt(entry.valid_from_micros),
    revoked: entry.revoked,
  };
  return new KeyRecord(entry.valid_to_micros === undefined ? base : { ...base, validToMicros: BigInt(entry.valid_to_micros) });
}

/** A registry with the entries enrolled in order (later entries replace earlier ones). */
export function registryFrom(entries: readonly OracleRecord[], backend: Ed25519BackendName): KeyRegistry {
  const registry = new KeyRegistry({ backend });
  for (const entry of entries) registry.enrollRecord(recordFrom(entry));
  return registry;
}

/** Observed headers in the oracle's form → the plain context form the registry accepts. */
export function observedFrom(observed: { content_type?: number; agent_version?: number }): {
  contentType?: number;
  agentVersion?: number;
} {
  const out: { contentType?: number; agentVersion?: number } = {};
  if (observed.content_type !== undefined) out.contentType = observed.content_type;
  if (observed.agent_version !== undefined) out.agentVersion = observed.agent_version;
  return out;
}

/** The same observed headers as the Iggy header map a reader sees (`agdx.ct` u8, `agdx.av` u32 LE). */
export function observedHeaderMap(observed: { content_type?: number; agent_version?: number }): Map<string, HeaderValue> {
  const map = new Map<string, HeaderValue>();
  if (observed.content_type !== undefined) map.set('agdx.ct', { kind: 'uint8', value: Uint8Array.of(observed.content_type) });
  if (observed.agent_version !== undefined) {
    const value = new Uint8Array(4);
    new DataView(value.buffer).setUint32(0, observed.agent_version, true);
    map.set('agdx.av', { kind: 'uint32', value });
  }
  return map;
}
