/**
 * VSR operation bytes (offset 176 of a request header, 208 of a reply header) and the mapping
 * from classic command codes to operations.
 */

import { CommandCode } from '../commands/command-codes.js';

/** VSR operations a client sends or receives. 64..68 are server-internal but appear in replies. */
export const Operation = {
  Register: 1,
  NonReplicated: 2,
  Logout: 3,
  /** Server-internal: the committed form of DeleteSegments, the operation byte of its reply. */
  TruncatePartition: 68,
  CreateStream: 128,
  UpdateStream: 129,
  DeleteStream: 130,
  PurgeStream: 131,
  CreateTopic: 132,
  UpdateTopic: 133,
  DeleteTopic: 134,
  PurgeTopic: 135,
  CreatePartitions: 136,
  DeletePartitions: 137,
  DeleteSegments: 138,
  CreateConsumerGroup: 139,
  DeleteConsumerGroup: 140,
  CreateUser: 141,
  UpdateUser: 142,
  DeleteUser: 143,
  ChangePassword: 144,
  UpdatePermissions: 145,
  CreatePersonalAccessToken: 146,
  DeletePersonalAccessToken: 147,
  JoinConsumerGroup: 148,
  LeaveConsumerGroup: 149,
  SendMessages: 160,
  StoreConsumerOffset: 161,
  DeleteConsumerOffset: 162,
} as const;

/** An operation byte value of {@link Operation}. */
export type Operation = (typeof Operation)[keyof typeof Operation];

/** True when the operation byte is declared by the protocol (the server rejects the rest). */
export function isDeclaredOperation(op: number): boolean {
  return (op >= 1 && op <= 3) || (op >= 64 && op <= 68) || (op >= 128 && op <= 149) || (op >= 160 && op <= 162);
}

/** True for the replicated metadata operations (128..149), which advance the request counter. */
export function isMetadataOperation(op: number): boolean {
  return op >= 128 && op <= 149;
}

/** True for the partition-plane operations (160..162), which reuse the current request number. */
export function isPartitionOperation(op: number): boolean {
  return op >= 160 && op <= 162;
}

/**
 * True when a reply carrying this operation byte starts with a result section. Keyed on the
 * reply's byte: DeleteSegments (138) is answered under operation 68 and is itself not framed.
 * Register (1) is framed only when its body is non-empty; callers check that.
 */
export function isResultFramedOperation(op: number): boolean {
  return (op >= 64 && op <= 68) || (op >= 128 && op <= 149 && op !== 138) || op === 161 || op === 162;
}

const CODE_TO_OPERATION: ReadonlyMap<number, Operation> = new Map<number, Operation>([
  [CommandCode.LoginRegister, Operation.Register],
  [CommandCode.LoginRegisterWithPersonalAccessToken, Operation.Register],
  [CommandCode.LogoutUser, Operation.Logout],
  [CommandCode.CreateStream, Operation.CreateStream],
  [CommandCode.UpdateStream, Operation.UpdateStream],
  [CommandCode.DeleteStream, Operation.DeleteStream],
  [CommandCode.PurgeStream, Operation.PurgeStream],
  [CommandCode.CreateTopic, Operation.CreateTopic],
  [CommandCode.UpdateTopic, Operation.UpdateTopic],
  [CommandCode.DeleteTopic, Operation.DeleteTopic],
  [CommandCode.PurgeTopic, Operation.PurgeTopic],
  [CommandCode.CreatePartitions, Operation.CreatePartitions],
  [CommandCode.DeletePartitions, Operation.DeletePartitions],
  [CommandCode.DeleteSegments, Operation.DeleteSegments],
  [CommandCode.CreateConsumerGroup, Operation.CreateConsumerGroup],
  [CommandCode.DeleteConsumerGroup, Operation.DeleteConsumerGroup],
  [CommandCode.CreateUser, Operation.CreateUser],
  [CommandCode.UpdateUser, Operation.UpdateUser],
  [CommandCode.DeleteUser, Operation.DeleteUser],
  [CommandCode.ChangePassword, Operation.ChangePassword],
  [CommandCode.UpdatePermissions, Operation.UpdatePermissions],
  [CommandCode.CreatePersonalAccessToken, Operation.CreatePersonalAccessToken],
  [CommandCode.DeletePersonalAccessToken, Operation.DeletePersonalAccessToken],
  [CommandCode.JoinConsumerGroup, Operation.JoinConsumerGroup],
  [CommandCode.LeaveConsumerGroup, Operation.LeaveConsumerGroup],
  [CommandCode.SendMessages, Operation.SendMessages],
  [CommandCode.StoreConsumerOffset, Operation.StoreConsumerOffset],
  [CommandCode.DeleteConsumerOffset, Operation.DeleteConsumerOffset],
]);

const OPERATION_TO_CODE: ReadonlyMap<number, number> = new Map(
  [...CODE_TO_OPERATION].filter(([code]) => code !== CommandCode.LoginRegisterWithPersonalAccessToken).map(([code, op]) => [op, code]),
);

/** The operation a command travels under in VSR; every unlisted code is NonReplicated (2). */
export function operationForCode(code: number): Operation {
  return CODE_TO_OPERATION.get(code) ?? Operation.NonReplicated;
}

/**
 * The classic command code a replicated operation stands for (the server's view of a request),
 * or `undefined` for NonReplicated (whose code is in the header) and undeclared operations.
 */
export function codeForOperation(op: number): number | undefined {
  return OPERATION_TO_CODE.get(op);
}

/**
 * The classic command code a VSR request stands for (server side): the header's code for
 * NonReplicated, LoginRegister (40) for Register (the body tells password from token), and the
 * mapped code for every replicated operation; `undefined` for an operation no client sends.
 */
export function commandCodeOfRequest(header: { readonly operation: number; readonly code: number }): number | undefined {
  if (header.operation === Operation.NonReplicated) return header.code;
  return codeForOperation(header.operation);
}
