/**
 * A development server that speaks the Apache Iggy TCP protocol, both generations (VSR of the
 * 0.9 line and classic of 0.8) on one port, in memory or on disk. For development and tests
 * only: production runs Apache Iggy.
 * @module
 */

export type { DevServer } from './dev-server.js';
export { startDevServer } from './dev-server.js';
export type { BatchHashing, DevServerOptions } from './options.js';
export type { DevCluster, DevClusterNode, DevClusterOptions } from './cluster/dev-cluster.js';
export { startDevCluster } from './cluster/dev-cluster.js';
export type { FsyncPolicy } from './storage/disk-storage.js';
export type { RecoveryNotice } from './storage/recovery-notice.js';
export { describeRecovery } from './storage/recovery-notice.js';
export type { DevServerErrorKind } from './errors.js';
export { DevServerError } from './errors.js';
export type { LimitFlag, LimitOption } from './limit-flags.js';
export { LIMIT_FLAGS, limitFlagSpecs, limitFlagsHelp, limitOptionsFromFlags } from './limit-flags.js';
