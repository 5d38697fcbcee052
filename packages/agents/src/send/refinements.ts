import { AgentId, IdempotencyKey, InvalidError, TaskState, type TaskStateName } from '@agdx/wire';

/** An agent id, or its text (checked with `AgentId.new`). */
export type AgentIdLike = AgentId | string;

/** A task state: its wire code or its name (`Working`, `Completed`, ...). */
export type TaskStateLike = number | TaskStateName;

/** Resolves an agent id argument. @throws InvalidError for an invalid id. */
export function toAgentId(value: AgentIdLike): AgentId {
  if (value instanceof AgentId) return value;
  if (typeof value === 'string') return AgentId.new(value);
  // An AgentId from another installed copy of @agdx/wire: re-check its text.
  const text = (value as { readonly value?: unknown } | null)?.value;
  if (typeof text === 'string') return AgentId.parse(text);
  throw new InvalidError('an agent id must be an AgentId or a string', { context: { field: 'agent' } });
}

/** Resolves a task state argument to its u8 code. @throws InvalidError for an unknown name. */
export function toTaskState(value: TaskStateLike): number {
  if (typeof value === 'number') return value;
  const code = (TaskState as Readonly<Record<string, number>>)[value];
  if (code === undefined) throw new InvalidError(`unknown task state \`${String(value)}\``, { context: { field: 'task_state' } });
  return code;
}

/** Resolves an idempotency key argument. @throws InvalidError outside 1..64 bytes. */
export function toIdempotencyKey(value: IdempotencyKey | string): IdempotencyKey {
  return value instanceof IdempotencyKey ? value : IdempotencyKey.new(value);
}

/** Resolves microseconds given as bigint or a safe integer. @throws InvalidError otherwise. */
export function toMicros(value: bigint | number, field: string): bigint {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return BigInt(value);
  throw new InvalidError(`\`${field}\` must be a bigint or a safe integer`, { context: { field } });
}

/** Checks a body argument. @throws InvalidError when it is not a Uint8Array. */
export function checkBytes(value: unknown, field: string): Uint8Array {
  if (!(value instanceof Uint8Array)) throw new InvalidError(`\`${field}\` must be a Uint8Array`, { context: { field } });
  return value;
}
