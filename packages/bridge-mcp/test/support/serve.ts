import { serveWith, type FetchHandler, type TestServer } from '@agdx/bridge-testing';
import { toNodeListener } from '@agdx/bridge-mcp/node';

/** Serves a fetch-style handler on 127.0.0.1 through this bridge's own `/node` adapter. */
export const serve: (handler: FetchHandler) => Promise<TestServer> = serveWith(toNodeListener);
