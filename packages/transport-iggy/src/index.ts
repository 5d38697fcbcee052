/**
 * An Apache Iggy client over TCP and TLS (VSR and classic protocols) implementing the AGDX
 * LogTransport. Node only (node:net, node:tls).
 * @module
 */
export { IggyTransport } from './iggy-transport.js';
export { IggyGroupMember } from './group-member.js';
export type { GroupTarget } from './group-member.js';
export { parseConnectionString } from './connection-string.js';
export { resolveOptions } from './options.js';
export type { ClusterPolicy, IggyCredentials, IggyEndpoint, IggyTransportOptions, IggyWireProtocol, ReconnectPolicy, ResolvedIggyOptions } from './options.js';
export { MAX_SEEDS } from './options.js';
export { OutcomeUnknownError, isOutcomeUnknown } from './outcome-unknown.js';
export type { Endpoint } from './cluster-directory.js';
export { iggyCodeOf, kindOfIggyCode, toTransportError } from './error-mapping.js';
export type { IggyCodeKind } from './error-mapping.js';
export { IggyAdmin, IggyUsers, IggyTokens } from './admin.js';
export type { AdminChannel, IggyUser, IggyUserDetails, IggyUserStatus, IggyToken, CreateUserInput, UpdateUserInput, CreateTokenInput } from './admin.js';
export type { Permissions, GlobalPermissions, StreamPermissions, TopicPermissions } from '@agdx/iggy-protocol';
export { ChecksumMismatchError, UnexpectedReplyError } from './integrity-errors.js';
export type { ChecksumScope, UnexpectedReplyReason } from './integrity-errors.js';
