/**
 * Runtime environments over Iggy TCP: @agdx/transport-iggy against a running
 * @agdx/iggy-dev-server. Each environment gets a stream of its own; every `connect()` is a new
 * IggyTransport (another process, as far as the server can tell).
 */
import type { AgdxClientOptions } from '@agdx/agents';
import type { DevServer } from '@agdx/iggy-dev-server';
import { IggyTransport, type IggyWireProtocol } from '@agdx/transport-iggy';
import { openEnv, type RuntimeEnvFactory } from './env.js';

let streams = 0;

/**
 * Environments on `server` speaking `protocol`. The transports' waits poll every 2..20 ms
 * (instead of 10..200 ms) so the scenarios stay quick.
 */
export function iggyEnv(server: DevServer, protocol: IggyWireProtocol): RuntimeEnvFactory {
  return (partitions = 1, options: AgdxClientOptions = {}) => {
    const stream = `runtime-${protocol}-${++streams}-${Date.now().toString(36)}`;
    return openEnv(() => IggyTransport.connect(server.url, { protocol, waitPollMs: { min: 2, max: 20 } }), stream, partitions, options);
  };
}
