// Test support shared by the bridge-a2a and bridge-mcp suites (private, never published).
export { decode, echoWorker, eventually, FIXTURES, memoryClient, oracle, serveHono, serveWith, STREAM, text, worker } from './harness.js';
export type { FetchHandler, TestServer } from './harness.js';
export { contentTypeOf, envelopeOf, hex, publishedEnvelopes } from './logical.js';
export type { LogicalEnvelope, PublishedBatch } from './logical.js';
export { Divergences } from './expectations.js';
export type { Divergence } from './expectations.js';
export { countingTransport } from './counting-transport.js';
export type { CountingTransport } from './counting-transport.js';
