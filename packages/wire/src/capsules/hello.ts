import { CAPSULE_LIMITS } from '../cbor/capsule-limits.js';
import { FieldReader } from '../cbor/fields.js';
import { encodeCbor, type CborValue } from '../cbor/strict.js';
import { CodecError } from '../errors.js';

/** Managed command code of the capability hello (empty request payload). */
export const AGDX_HELLO_CODE = 1_000_000;

/** Feature bits advertised in `OpVersions.features`. Bit 4 is retired and never reused. */
export const FeatureBit: {
  readonly KvCas: 1n;
  readonly ReadYourWrites: 2n;
  readonly StrongConsistency: 4n;
  readonly KvCasFenced: 8n;
  readonly AgentWorkflowRetired: 16n;
  readonly KeywordSearch: 32n;
  readonly Watch: 64n;
  readonly Authz: 128n;
  readonly Destinations: 256n;
  readonly KvFencedLeases: 512n;
  readonly ConsumerFilters: 1024n;
  readonly GroupPolicyReads: 2048n;
  readonly Sessions: 4096n;
  readonly StreamTenancy: 8192n;
} = {
  KvCas: 1n,
  ReadYourWrites: 2n,
  StrongConsistency: 4n,
  KvCasFenced: 8n,
  AgentWorkflowRetired: 16n,
  KeywordSearch: 32n,
  Watch: 64n,
  Authz: 128n,
  Destinations: 256n,
  KvFencedLeases: 512n,
  ConsumerFilters: 1024n,
  GroupPolicyReads: 2048n,
  Sessions: 4096n,
  StreamTenancy: 8192n,
};

/** A feature bit name. */
export type FeatureBit = keyof typeof FeatureBit;

/** The names of the feature bits set in `features` (unknown bits are ignored). */
export function featureNames(features: bigint): FeatureBit[] {
  return (Object.keys(FeatureBit) as FeatureBit[]).filter((name) => (features & FeatureBit[name]) !== 0n);
}

/** Operation-group versions a backend serves (0 = not served). */
export interface OpVersions {
  /** Query group (u32). */
  readonly query: number;
  /** Control group (u32). */
  readonly control: number;
  /** KV group (u32). */
  readonly kv: number;
  /** Fork group (u32). */
  readonly fork: number;
  /** Agent group (u32; 0 omitted). */
  readonly agent?: number | undefined;
  /** Graph group (u32; 0 omitted). */
  readonly graph?: number | undefined;
  /** Checkpoint group (u32; 0 omitted). */
  readonly checkpoint?: number | undefined;
  /** Filter group (u32; 0 omitted). */
  readonly filter?: number | undefined;
  /** Feature bits (u64; 0 omitted). */
  readonly features?: bigint | undefined;
}

/** One backend as 0.1.1 describes it. */
export interface BackendDescriptor {
  /** Backend id. */
  readonly id: string;
  /** Backend kind. */
  readonly kind: string;
  /** Display label. */
  readonly label?: string | undefined;
  /** Backend version. */
  readonly version?: string | undefined;
  /** Capability names (omitted on the wire when empty). */
  readonly capabilities: readonly string[];
}

/** Announced topic names (every field optional; readers fill the documented defaults). */
export interface WireTopology {
  /** Ops stream (`_agdx`). */
  readonly opsStream: string;
  /** Control topic (`control.commands`). */
  readonly controlTopic: string;
  /** DLQ topic (`dlq`). */
  readonly dlqTopic: string;
  /** Change feed topic (`changes`). */
  readonly changesTopic: string;
  /** KV mutations topic (`kv.mutations`). */
  readonly kvMutationsTopic: string;
  /** Fork mutations topic (`fork.mutations`). */
  readonly forkMutationsTopic: string;
  /** Run mutations topic (`run.mutations`, retired). */
  readonly runMutationsTopic: string;
  /** Graph mutations topic (`graph.mutations`). */
  readonly graphMutationsTopic: string;
}

/** Default topology names. */
export const DEFAULT_WIRE_TOPOLOGY: WireTopology = {
  opsStream: '_agdx',
  controlTopic: 'control.commands',
  dlqTopic: 'dlq',
  changesTopic: 'changes',
  kvMutationsTopic: 'kv.mutations',
  forkMutationsTopic: 'fork.mutations',
  runMutationsTopic: 'run.mutations',
  graphMutationsTopic: 'graph.mutations',
};

const TOPOLOGY_KEYS: readonly [keyof WireTopology, string][] = [
  ['opsStream', 'ops_stream'],
  ['controlTopic', 'control_topic'],
  ['dlqTopic', 'dlq_topic'],
  ['changesTopic', 'changes_topic'],
  ['kvMutationsTopic', 'kv_mutations_topic'],
  ['forkMutationsTopic', 'fork_mutations_topic'],
  ['runMutationsTopic', 'run_mutations_topic'],
  ['graphMutationsTopic', 'graph_mutations_topic'],
];

/** The backend's answer to the hello: versions, readiness, backends, topology. */
export interface BackendAnnounce {
  /** Served versions. */
  readonly versions: OpVersions;
  /** False when managed operations are off (only `false` is written). */
  readonly ready: boolean;
  /** Backends (omitted when empty). */
  readonly backends: readonly BackendDescriptor[];
  /** Announced topology, when any. */
  readonly topology?: WireTopology | undefined;
}

function versionsToCbor(v: OpVersions): CborValue {
  const map = new Map<CborValue, CborValue>([
    ['query', BigInt(v.query)],
    ['control', BigInt(v.control)],
    ['kv', BigInt(v.kv)],
    ['fork', BigInt(v.fork)],
  ]);
  for (const key of ['agent', 'graph', 'checkpoint', 'filter'] as const) {
    const value = v[key];
    if (value !== undefined && value !== 0) map.set(key, BigInt(value));
  }
  if (v.features !== undefined && v.features !== 0n) map.set('features', v.features);
  return map;
}

function readVersions(r: FieldReader): OpVersions {
  const out: { -readonly [K in keyof OpVersions]: OpVersions[K] } = {
    query: r.u32Opt('query') ?? 0,
    control: r.u32Opt('control') ?? 0,
    kv: r.u32Opt('kv') ?? 0,
    fork: r.u32Opt('fork') ?? 0,
  };
  for (const key of ['agent', 'graph', 'checkpoint', 'filter'] as const) {
    const value = r.u32Opt(key);
    if (value !== undefined && value !== 0) out[key] = value;
  }
  const features = r.u64Opt('features');
  if (features !== undefined && features !== 0n) out.features = features;
  return out;
}

/** Encodes a HelloReply: `{versions}`. */
export function encodeHelloReply(versions: OpVersions): Uint8Array {
  return encodeCbor(new Map<CborValue, CborValue>([['versions', versionsToCbor(versions)]]));
}

/** Encodes a BackendAnnounce: `versions`, `ready` (only when false), `backends` (when any), `topology`. */
export function encodeBackendAnnounce(announce: BackendAnnounce): Uint8Array {
  const map = new Map<CborValue, CborValue>([['versions', versionsToCbor(announce.versions)]]);
  if (!announce.ready) map.set('ready', false);
  if (announce.backends.length > 0) {
    map.set(
      'backends',
      announce.backends.map((b) => {
        const m = new Map<CborValue, CborValue>([
          ['id', b.id],
          ['kind', b.kind],
        ]);
        if (b.label !== undefined) m.set('label', b.label);
        if (b.version !== undefined) m.set('version', b.version);
        if (b.capabilities.length > 0) m.set('capabilities', [...b.capabilities]);
        return m;
      }),
    );
  }
  if (announce.topology !== undefined) {
    const t = announce.topology;
    map.set('topology', new Map<CborValue, CborValue>(TOPOLOGY_KEYS.map(([field, key]) => [key, t[field]])));
  }
  return encodeCbor(map);
}

/**
 * Decodes the hello reply as a BackendAnnounce (a bare HelloReply is the same map without the
 * optional fields). An empty reply means "no versions advertised": returns undefined.
 */
export function decodeBackendAnnounce(bytes: Uint8Array): BackendAnnounce | undefined {
  if (bytes.length === 0) return undefined;
  const r = FieldReader.decode(bytes, 'hello reply', CAPSULE_LIMITS.hello);
  const versions = readVersions(r.map('versions'));
  const ready = r.boolOpt('ready') ?? true;
  const backends = (r.arrayOpt('backends') ?? []).map((item) => {
    const b = FieldReader.of(item, 'hello reply.backends');
    const caps = (b.arrayOpt('capabilities') ?? []).map((c) => {
      if (typeof c !== 'string') throw new CodecError('field `capabilities` in hello reply.backends must hold strings', { context: { surface: b.surface, operation: 'capabilities' } });
      return c;
    });
    const d: { -readonly [K in keyof BackendDescriptor]: BackendDescriptor[K] } = { id: b.text('id'), kind: b.text('kind'), capabilities: caps };
    const label = b.textOpt('label');
    const version = b.textOpt('version');
    if (label !== undefined) d.label = label;
    if (version !== undefined) d.version = version;
    return d;
  });
  const t = r.mapOpt('topology');
  const announce: { -readonly [K in keyof BackendAnnounce]: BackendAnnounce[K] } = { versions, ready, backends };
  if (t !== undefined) {
    const topology = { ...DEFAULT_WIRE_TOPOLOGY };
    for (const [field, key] of TOPOLOGY_KEYS) topology[field] = t.textOpt(key) ?? DEFAULT_WIRE_TOPOLOGY[field];
    announce.topology = topology;
  }
  return announce;
}

/** Decodes just the versions of a hello reply (undefined for an empty reply). */
export function decodeHelloReply(bytes: Uint8Array): OpVersions | undefined {
  return decodeBackendAnnounce(bytes)?.versions;
}
