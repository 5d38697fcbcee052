import { AgentId, IdempotencyKey, InvalidError, LogPosition, TaskState, type BlobStore, type TaskStateName } from '@agdx/wire';

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

/**
 * Checks a text argument. Wire's validator assumes typed fields, so a non-string would surface as
 * a platform TypeError from its UTF-8 length count; this keeps the error typed.
 * @throws InvalidError when it is not a string.
 */
export function checkText(value: unknown, field: string): string {
  if (typeof value !== 'string') throw new InvalidError(`\`${field}\` must be a string`, { context: { field } });
  return value;
}

/**
 * Checks an instance argument (ids, log positions). Wire's encoder reads their private bytes, so a
 * foreign object would surface as a platform TypeError.
 * @throws InvalidError naming the field.
 */
export function checkInstance<T>(value: unknown, cls: abstract new (...args: never[]) => T, field: string): T {
  if (!(value instanceof cls)) throw new InvalidError(`\`${field}\` must be a ${cls.name}`, { context: { field } });
  return value;
}

/** Checks a cause position. @throws InvalidError when it is not a LogPosition. */
export function checkLogPosition(value: unknown): LogPosition {
  return checkInstance(value, LogPosition, 'cause_at');
}

/** Checks a plain-object argument (usage). @throws InvalidError otherwise. */
export function checkObject<T>(value: unknown, field: string): T {
  if (typeof value !== 'object' || value === null) throw new InvalidError(`\`${field}\` must be an object`, { context: { field } });
  return value as T;
}

/** Checks an object that has the named methods (signer, blob store). @throws InvalidError otherwise. */
export function checkMethods<T>(value: unknown, field: string, methods: readonly string[]): T {
  const object = checkObject<Record<string, unknown>>(value, field);
  for (const m of methods) {
    if (typeof object[m] !== 'function') throw new InvalidError(`\`${field}\` must have a ${m}() method`, { context: { field } });
  }
  return object as T;
}

/**
 * Checks a `signal` option: absent, or an AbortSignal (anything with `aborted` and
 * `addEventListener`, so a signal of another realm passes). Something else would surface as a
 * platform TypeError only once a wait or a queued send starts watching it.
 * @throws InvalidError otherwise.
 */
export function checkSignal(value: unknown): AbortSignal | undefined {
  if (value === undefined) return undefined;
  const signal = value as { readonly aborted?: unknown; readonly addEventListener?: unknown } | null;
  if (typeof signal !== 'object' || signal === null || typeof signal.aborted !== 'boolean' || typeof signal.addEventListener !== 'function') {
    throw new InvalidError('`signal` must be an AbortSignal', { context: { field: 'signal' } });
  }
  return value as AbortSignal;
}

/** Checks a BlobStore argument. */
export function checkBlobStore(value: unknown): BlobStore {
  return checkMethods<BlobStore>(value, 'blob store', ['put', 'get']);
}
