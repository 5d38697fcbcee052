/**
 * The transport conformance suite, for vitest: `describeLogTransportConformance(name, factory)`
 * registers the tests every `LogTransport` must pass.
 * @module
 */
export type { ConformanceFactory, ConformanceSubject } from './conformance.js';
export { describeLogTransportConformance } from './conformance.js';
