// GetClusterMetadata (12): golden bytes written out by hand from Iggy's layout
// (core/binary_protocol/src/responses/system/get_cluster_metadata.rs), round trips, and hostile input.
import { describe, expect, it } from 'vitest';
import { IggyCodecError, IggyInvalidError, decodeClusterMetadata, encodeClusterMetadata, encodeGetClusterMetadataRequest } from '../src/index.js';
import type { ClusterMetadata } from '../src/index.js';

const hex = (s: string): Uint8Array => Uint8Array.from(s.replace(/\s+/g, '').match(/../g) ?? [], (b) => parseInt(b, 16));
const ascii = (s: string): string => [...new TextEncoder().encode(s)].map((b) => b.toString(16).padStart(2, '0')).join('');

// The roster a single-node Iggy 0.9 server answers with (cluster_meta.rs `self_metadata`) when it
// serves TCP on 8090 only: name "single-node", one node "iggy-node", Leader (0), Healthy (0).
const SINGLE: ClusterMetadata = {
  name: 'single-node',
  nodes: [{ name: 'iggy-node', ip: '127.0.0.1', endpoints: { tcp: 8090, quic: 0, http: 0, websocket: 0 }, role: 'Leader', status: 'Healthy' }],
};
const SINGLE_BYTES = hex(`
  0b000000 ${ascii('single-node')}
  01000000
    09000000 ${ascii('iggy-node')}
    09000000 ${ascii('127.0.0.1')}
    9a1f 0000 0000 0000
    00 00`);

// Two nodes as the Node SDK's own test roster builds them (client.socket.test.ts twoNodeMetadataBody):
// leader on 9001, follower on 9002, other ports 0.
const TWO: ClusterMetadata = {
  name: 'iggy-cluster',
  nodes: [
    { name: 'iggy-node-1', ip: '127.0.0.1', endpoints: { tcp: 9001, quic: 0, http: 0, websocket: 0 }, role: 'Leader', status: 'Healthy' },
    { name: 'iggy-node-2', ip: '127.0.0.1', endpoints: { tcp: 9002, quic: 0, http: 0, websocket: 0 }, role: 'Follower', status: 'Healthy' },
  ],
};
const TWO_BYTES = hex(`
  0c000000 ${ascii('iggy-cluster')} 02000000
  0b000000 ${ascii('iggy-node-1')} 09000000 ${ascii('127.0.0.1')} 2923 0000 0000 0000 00 00
  0b000000 ${ascii('iggy-node-2')} 09000000 ${ascii('127.0.0.1')} 2a23 0000 0000 0000 01 00`);

describe('GetClusterMetadata codec', () => {
  it('sends an empty request body', () => {
    expect(encodeGetClusterMetadataRequest()).toEqual(new Uint8Array(0));
  });

  it('encodes and decodes the single-node roster byte for byte', () => {
    expect(encodeClusterMetadata(SINGLE)).toEqual(SINGLE_BYTES);
    expect(decodeClusterMetadata(SINGLE_BYTES)).toEqual(SINGLE);
  });

  it('encodes and decodes a leader and a follower byte for byte', () => {
    expect(encodeClusterMetadata(TWO)).toEqual(TWO_BYTES);
    expect(decodeClusterMetadata(TWO_BYTES)).toEqual(TWO);
  });

  it('round-trips every role, every status and all four ports', () => {
    const statuses = ['Healthy', 'Starting', 'Stopping', 'Unreachable', 'Maintenance'] as const;
    const metadata: ClusterMetadata = {
      name: 'prod-cluster',
      nodes: statuses.map((status, i) => ({ name: `node-${i}`, ip: `10.0.0.${i}`, endpoints: { tcp: 8090 + i, quic: 8080, http: 3000, websocket: 65535 }, role: i === 2 ? 'Leader' : 'Follower', status })),
    };
    expect(decodeClusterMetadata(encodeClusterMetadata(metadata))).toEqual(metadata);
  });

  it('accepts an empty name and an empty roster', () => {
    expect(decodeClusterMetadata(encodeClusterMetadata({ name: '', nodes: [] }))).toEqual({ name: '', nodes: [] });
  });

  it('ignores bytes after the last node, as Iggy does', () => {
    const padded = new Uint8Array(SINGLE_BYTES.length + 3);
    padded.set(SINGLE_BYTES);
    expect(decodeClusterMetadata(padded)).toEqual(SINGLE);
  });

  it('refuses every truncation with a codec error', () => {
    for (let i = 0; i < TWO_BYTES.length; i++) {
      expect(() => decodeClusterMetadata(TWO_BYTES.subarray(0, i)), `cut at ${i}`).toThrow(IggyCodecError);
    }
  });

  it('refuses a node count the bytes cannot hold before allocating', () => {
    const bogus = hex(`04000000 ${ascii('test')} ffffffff`);
    expect(() => decodeClusterMetadata(bogus)).toThrow(/cannot fit/);
  });

  it('refuses oversized string lengths, unknown roles and unknown statuses', () => {
    expect(() => decodeClusterMetadata(hex('ffffffff 00000000'))).toThrow(IggyCodecError);
    const badRole = TWO_BYTES.slice();
    badRole[4 + 12 + 4 + 4 + 11 + 4 + 9 + 8] = 2;
    expect(() => decodeClusterMetadata(badRole)).toThrow(/role 2/);
    const badStatus = SINGLE_BYTES.slice();
    badStatus[badStatus.length - 1] = 5;
    expect(() => decodeClusterMetadata(badStatus)).toThrow(/status 5/);
    const badUtf8 = SINGLE_BYTES.slice();
    badUtf8[4] = 0xff;
    expect(() => decodeClusterMetadata(badUtf8)).toThrow(/UTF-8/);
  });

  it('refuses bad arguments when encoding', () => {
    const node = SINGLE.nodes[0]!;
    expect(() => encodeClusterMetadata({ name: 'c', nodes: [{ ...node, endpoints: { ...node.endpoints, tcp: 70000 } }] })).toThrow(IggyInvalidError);
    expect(() => encodeClusterMetadata({ name: 'c', nodes: [{ ...node, role: 'Primary' as 'Leader' }] })).toThrow(IggyInvalidError);
    expect(() => encodeClusterMetadata({ name: 'c', nodes: [{ ...node, status: 'Unknown' as 'Healthy' }] })).toThrow(IggyInvalidError);
  });
});
