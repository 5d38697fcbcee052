import { parseConnectionString, resolveOptions } from '@agdx/transport-iggy';
import { describe, expect, it } from 'vitest';

function kindOf(action: () => unknown): string | undefined {
  try {
    action();
  } catch (error) {
    return (error as { kind?: string }).kind;
  }
  return undefined;
}

describe('parseConnectionString', () => {
  const cases: ReadonlyArray<readonly [string, Record<string, unknown>]> = [
    ['iggy:iggy@localhost:8090', { host: 'localhost', port: 8090, credentials: { username: 'iggy', password: 'iggy' } }],
    ['user:p%40ss@10.0.0.5:9000', { host: '10.0.0.5', port: 9000, credentials: { username: 'user', password: 'p@ss' } }],
    ['localhost', { host: 'localhost' }],
    ['localhost:1234', { host: 'localhost', port: 1234 }],
    ['iggy://iggy:secret@example.com:8090', { host: 'example.com', port: 8090, credentials: { username: 'iggy', password: 'secret' } }],
    ['iggy://iggy:iggy@h:1?protocol=classic', { host: 'h', port: 1, protocol: 'classic', credentials: { username: 'iggy', password: 'iggy' } }],
    ['iggy://iggy:iggy@h?protocol=vsr&tls=true', { host: 'h', protocol: 'vsr', tls: true, credentials: { username: 'iggy', password: 'iggy' } }],
    ['iggy+tls://u:p@h:8090', { host: 'h', port: 8090, tls: true, credentials: { username: 'u', password: 'p' } }],
    ['iggy+tcp://u:p@h:8090/', { host: 'h', port: 8090, credentials: { username: 'u', password: 'p' } }],
    ['iggy://:my-token@h:8090', { host: 'h', port: 8090, credentials: { token: 'my-token' } }],
    ['iggy://u:p@h?connections=4', { host: 'h', connections: 4, credentials: { username: 'u', password: 'p' } }],
    ['iggy://h:8090?pat=tok%2Bx', { host: 'h', port: 8090, credentials: { token: 'tok+x' } }],
    // Iggy's own form: the whole user part is a personal access token.
    ['iggy://iggypat-1234567890abcdef@h:8090', { host: 'h', port: 8090, credentials: { token: 'iggypat-1234567890abcdef' } }],
    // Several addresses are the seeds of a cluster, in order, with the query kept.
    [
      'iggy://u:p@h1:8090,h2:8091,[::1]:8092,h4?protocol=classic&failoverTimeoutMs=2500&discoverCluster=false',
      {
        seeds: [{ host: 'h1', port: 8090 }, { host: 'h2', port: 8091 }, { host: '::1', port: 8092 }, { host: 'h4' }],
        protocol: 'classic',
        cluster: { failoverTimeoutMs: 2500, discover: false },
        credentials: { username: 'u', password: 'p' },
      },
    ],
    ['iggypat-x@h1,h2', { seeds: [{ host: 'h1' }, { host: 'h2' }], credentials: { token: 'iggypat-x' } }],
    ['iggy://u:p@[::1]:8090', { host: '::1', port: 8090, credentials: { username: 'u', password: 'p' } }],
    ['iggy://u:p@h?tls=true&servername=iggy.local&rejectUnauthorized=false', { host: 'h', tls: { servername: 'iggy.local', rejectUnauthorized: false }, credentials: { username: 'u', password: 'p' } }],
    [
      'iggy://u:p@h?requestTimeoutMs=500&connectTimeoutMs=200&heartbeatIntervalMs=0&reconnectAttempts=3&reconnectDelayMs=10&reconnectMaxDelayMs=50',
      { host: 'h', credentials: { username: 'u', password: 'p' }, requestTimeoutMs: 500, connectTimeoutMs: 200, heartbeatIntervalMs: 0, reconnect: { maxAttempts: 3, initialDelayMs: 10, maxDelayMs: 50 } },
    ],
  ];
  for (const [text, expected] of cases) {
    it(`parses ${text}`, () => {
      expect(parseConnectionString(text)).toEqual(expected);
    });
  }

  const bad = [
    '',
    'http://u:p@h:1',
    'iggy://u:p@h:99999',
    'iggy://u:p@h:port',
    'iggy://@h:1',
    'iggy://u:p@h1,,h3',
    'iggy://u:p@h1,:8091',
    `iggy://u:p@${Array.from({ length: 33 }, (_, i) => `h${i}`).join(',')}`,
    'iggy://u:p@h1,h2?failoverTimeoutMs=0',
    'iggy://u:p@h1,h2?discoverCluster=perhaps',
    'iggy://u:p@h:1?protocol=quic',
    'iggy://u:p@h:1?tls=maybe',
    'iggy://u:p@h:1?unknown=1',
    'iggy://u:p@h:1/path',
    'iggy://u:%E0%A4%A@h:1',
    'iggy://u:p@::1:8090',
    'iggy://u:p@h:1?reconnectAttempts=0',
    'iggy://u:p@h:1?connections=0',
    'iggy://u:p@h:1?connections=65',
  ];
  for (const text of bad) {
    it(`refuses ${JSON.stringify(text)} with an invalid error`, () => {
      expect(kindOf(() => parseConnectionString(text))).toBe('invalid');
    });
  }
});

describe('resolveOptions', () => {
  it('fills the defaults: VSR, 127.0.0.1:8090, iggy/iggy, bounded reconnects, 5 s heartbeats', () => {
    const o = resolveOptions({});
    expect(o).toMatchObject({
      host: '127.0.0.1',
      port: 8090,
      protocol: 'vsr',
      credentials: { username: 'iggy', password: 'iggy' },
      tls: undefined,
      heartbeatIntervalMs: 5000,
      requestTimeoutMs: 30_000,
      maxAttempts: 5,
      connections: 1,
    });
  });

  it('turns tls: true into Node defaults and keeps TLS options', () => {
    expect(resolveOptions({ tls: true }).tls).toEqual({});
    expect(resolveOptions({ tls: { servername: 'x' } }).tls).toEqual({ servername: 'x' });
  });

  it('refuses bad values with invalid errors', () => {
    expect(kindOf(() => resolveOptions({ protocol: 'quic' as 'vsr' }))).toBe('invalid');
    expect(kindOf(() => resolveOptions({ port: 0 }))).toBe('invalid');
    expect(kindOf(() => resolveOptions({ requestTimeoutMs: -1 }))).toBe('invalid');
    expect(kindOf(() => resolveOptions({ reconnect: { maxAttempts: 0 } }))).toBe('invalid');
    expect(kindOf(() => resolveOptions({ credentials: { token: '' } }))).toBe('invalid');
    expect(kindOf(() => resolveOptions({ connections: 0 }))).toBe('invalid');
    expect(kindOf(() => resolveOptions({ connections: 1.5 }))).toBe('invalid');
    expect(kindOf(() => resolveOptions({ seeds: [] }))).toBe('invalid');
    expect(kindOf(() => resolveOptions({ seeds: [{ host: '' }] }))).toBe('invalid');
    expect(kindOf(() => resolveOptions({ seeds: [{ host: 'h', port: 70000 }] }))).toBe('invalid');
    expect(kindOf(() => resolveOptions({ cluster: { failoverTimeoutMs: 0 } }))).toBe('invalid');
  });

  it('resolves seeds in order with the default port, and the first seed as host and port', () => {
    const o = resolveOptions({ port: 9000, seeds: [{ host: 'a' }, { host: 'b', port: 9001 }] });
    expect(o.seeds).toEqual([{ host: 'a', port: 9000 }, { host: 'b', port: 9001 }]);
    expect([o.host, o.port, o.discoverCluster, o.failoverTimeoutMs]).toEqual(['a', 9000, true, 15_000]);
    expect(resolveOptions({ host: 'x', port: 1 }).seeds).toEqual([{ host: 'x', port: 1 }]);
  });
});
