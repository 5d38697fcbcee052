/**
 * Connection strings. Two forms are accepted:
 * - the bare `user:password@host:port` (also `host:port` or `host`);
 * - `iggy://user:password@host:port?protocol=vsr|classic&tls=true` (`iggy+tcp://` is the
 *   same, `iggy+tls://` turns TLS on).
 * Several comma-separated addresses (`iggy://u:p@h1:8090,h2:8090,h3`) are the seeds of a
 * cluster, tried in order. A personal access token is the whole user part, as in Iggy's own
 * connection strings (`iggy://iggypat-XXXX@host:port`), or goes in the password slot with an
 * empty user (`iggy://:token@host`) or in `?pat=`. Further query keys: `connectTimeoutMs`,
 * `requestTimeoutMs`, `heartbeatIntervalMs`, `connections`, `reconnectAttempts`,
 * `reconnectDelayMs`, `reconnectMaxDelayMs`, `failoverTimeoutMs`, `discoverCluster`,
 * `servername`, `rejectUnauthorized`.
 */

import { InvalidArgumentError } from '@agdx/transport';
import { MAX_SEEDS } from './options.js';
import type { ClusterPolicy, IggyCredentials, IggyEndpoint, IggyTransportOptions, IggyWireProtocol } from './options.js';

const SCHEMES: Readonly<Record<string, boolean>> = { 'iggy:': false, 'iggy+tcp:': false, 'iggy+tls:': true };

function bad(message: string): InvalidArgumentError {
  return new InvalidArgumentError(`bad Iggy connection string: ${message}`);
}

function decode(part: string, what: string): string {
  try {
    return decodeURIComponent(part);
  } catch (cause) {
    throw new InvalidArgumentError(`bad Iggy connection string: ${what} is not valid percent-encoding`, { cause });
  }
}

function integer(value: string, key: string, min: number, max: number): number {
  if (!/^\d+$/.test(value)) throw bad(`${key} must be an integer`);
  const n = Number(value);
  if (n < min || n > max) throw bad(`${key} must be ${min}..${max}`);
  return n;
}

function bool(value: string, key: string): boolean {
  if (value === 'true' || value === '1' || value === '') return true;
  if (value === 'false' || value === '0') return false;
  throw bad(`${key} must be true or false`);
}

function splitHostPort(hostPort: string): { host?: string; port?: number } {
  if (hostPort === '') return {};
  const bracket = /^\[([^\]]+)\](?::(\d+))?$/.exec(hostPort);
  if (bracket !== null) {
    const port = bracket[2];
    return { host: bracket[1] as string, ...(port === undefined ? {} : { port: integer(port, 'port', 1, 65535) }) };
  }
  const colon = hostPort.lastIndexOf(':');
  if (colon === -1) return { host: hostPort };
  const host = hostPort.slice(0, colon);
  if (host.includes(':')) throw bad('IPv6 hosts must be written in brackets');
  return { ...(host === '' ? {} : { host }), port: integer(hostPort.slice(colon + 1), 'port', 1, 65535) };
}

function credentialsOf(userInfo: string | undefined): IggyCredentials | undefined {
  if (userInfo === undefined) return undefined;
  const colon = userInfo.indexOf(':');
  // Iggy's connection strings carry a personal access token as the whole user part.
  if (colon === -1) {
    const token = decode(userInfo, 'token');
    if (token === '') throw bad('the personal access token is empty');
    return { token };
  }
  const user = decode(userInfo.slice(0, colon), 'user');
  const secret = decode(userInfo.slice(colon + 1), 'password');
  if (user === '' && secret !== '') return { token: secret };
  if (user === '' || secret === '') throw bad('credentials must be user:password, or :token for a personal access token');
  return { username: user, password: secret };
}

/**
 * Parses a connection string into transport options. Unknown query keys are refused so that a
 * typo does not silently fall back to a default.
 */
export function parseConnectionString(text: string): IggyTransportOptions {
  if (typeof text !== 'string' || text.trim() === '') throw bad('it is empty');
  const input = text.trim();
  const scheme = /^([a-z][a-z0-9+.-]*:)\/\//i.exec(input);
  let tls = false;
  let rest = input;
  if (scheme !== null) {
    const name = (scheme[1] as string).toLowerCase();
    if (!(name in SCHEMES)) throw bad(`unknown scheme ${name} (use iggy://, iggy+tcp:// or iggy+tls://)`);
    tls = SCHEMES[name] === true;
    rest = input.slice((scheme[0] as string).length);
  }
  const hashAt = rest.indexOf('#');
  if (hashAt !== -1) rest = rest.slice(0, hashAt);
  const queryAt = rest.indexOf('?');
  const query = queryAt === -1 ? '' : rest.slice(queryAt + 1);
  let authority = queryAt === -1 ? rest : rest.slice(0, queryAt);
  if (authority.endsWith('/')) authority = authority.slice(0, -1);
  if (authority.includes('/')) throw bad('a path is not allowed');
  const at = authority.lastIndexOf('@');
  const userInfo = at === -1 ? undefined : authority.slice(0, at);
  const hostPort = at === -1 ? authority : authority.slice(at + 1);

  let credentials = credentialsOf(userInfo);
  const addresses = hostPort.split(',');
  if (addresses.length > MAX_SEEDS) throw bad(`at most ${MAX_SEEDS} addresses`);
  if (addresses.length > 1 && addresses.some((a) => a === '')) throw bad('an address in the list is empty');
  const parsed = addresses.map(splitHostPort);
  if (addresses.length > 1 && parsed.some((a) => a.host === undefined)) throw bad('every address in a list needs a host');
  const { host, port } = parsed[0] as { host?: string; port?: number };
  const seeds: IggyEndpoint[] | undefined = addresses.length > 1 ? parsed.map((a) => ({ host: a.host as string, ...(a.port === undefined ? {} : { port: a.port }) })) : undefined;
  const cluster: { -readonly [K in keyof ClusterPolicy]: ClusterPolicy[K] } = {};
  let protocol: IggyWireProtocol | undefined;
  const out: { -readonly [K in keyof IggyTransportOptions]: IggyTransportOptions[K] } = {};
  const tlsOptions: { servername?: string; rejectUnauthorized?: boolean } = {};
  const reconnect: { maxAttempts?: number; initialDelayMs?: number; maxDelayMs?: number } = {};
  if (query !== '') {
    for (const pair of query.split('&')) {
      if (pair === '') continue;
      const eq = pair.indexOf('=');
      const key = decode(eq === -1 ? pair : pair.slice(0, eq), 'query key');
      const value = decode(eq === -1 ? '' : pair.slice(eq + 1).replace(/\+/g, ' '), key);
      switch (key) {
        case 'protocol':
          if (value !== 'vsr' && value !== 'classic') throw bad('protocol must be vsr or classic');
          protocol = value;
          break;
        case 'tls':
          tls = bool(value, key);
          break;
        case 'pat':
          if (value === '') throw bad('pat must not be empty');
          credentials = { token: value };
          break;
        case 'servername':
          tlsOptions.servername = value;
          break;
        case 'rejectUnauthorized':
          tlsOptions.rejectUnauthorized = bool(value, key);
          break;
        case 'connectTimeoutMs':
        case 'requestTimeoutMs':
        case 'heartbeatIntervalMs':
          out[key] = integer(value, key, 0, 2_147_483_647);
          break;
        case 'connections':
          out.connections = integer(value, key, 1, 64);
          break;
        case 'reconnectAttempts':
          reconnect.maxAttempts = integer(value, key, 1, 1000);
          break;
        case 'reconnectDelayMs':
          reconnect.initialDelayMs = integer(value, key, 0, 2_147_483_647);
          break;
        case 'reconnectMaxDelayMs':
          reconnect.maxDelayMs = integer(value, key, 0, 2_147_483_647);
          break;
        case 'failoverTimeoutMs':
          cluster.failoverTimeoutMs = integer(value, key, 1, 2_147_483_647);
          break;
        case 'discoverCluster':
          cluster.discover = bool(value, key);
          break;
        default:
          throw bad(`unknown option ${key}`);
      }
    }
  }
  if (seeds !== undefined) out.seeds = seeds;
  else {
    if (host !== undefined) out.host = host;
    if (port !== undefined) out.port = port;
  }
  if (Object.keys(cluster).length > 0) out.cluster = cluster;
  if (credentials !== undefined) out.credentials = credentials;
  if (protocol !== undefined) out.protocol = protocol;
  if (tls) out.tls = Object.keys(tlsOptions).length > 0 ? tlsOptions : true;
  if (Object.keys(reconnect).length > 0) out.reconnect = reconnect;
  return out;
}
