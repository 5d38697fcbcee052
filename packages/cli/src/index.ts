/**
 * The agdx command: demo, Iggy dev server, tail and decode, session timelines, benchmarks.
 * @module
 */
export { runCli, overview, COMMANDS } from './cli.js';
export type { Command } from './commands/command.js';
export type { CommandIo, TextSink } from './io.js';
export { ExitCode, UsageError, errorLine, exitCodeOf, errorKindOf, isUsageError } from './errors.js';
export { runDemo } from './demo/run-demo.js';
export type { DemoOptions } from './demo/run-demo.js';
export { DEMO_STEPS } from './demo/transcript.js';
export { decodeRecord, formatRecord, MAX_READABLE_BODY_BYTES, readableBody } from './decode-record.js';
export type { DecodedRecord } from './decode-record.js';
export { formatPosition, formatLogPosition } from './position.js';
export type { RecordPlace } from './position.js';
export { figuresOf, ratiosOf, formatNumber } from './bench/bench-report.js';
export type { FigureRow, RatioRow } from './bench/bench-report.js';
export { ratioChartSvg } from './bench/bench-chart.js';
