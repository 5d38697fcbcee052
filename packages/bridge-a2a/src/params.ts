/**
 * The A2A JSON-RPC params the bridge reads, checked with zod: the untrusted JSON a client sends.
 * Unknown members pass (A2A v1.0 ProtoJSON and the older 0.3 shape both arrive, and the
 * SendMessage params ride to the agent as they are); the members the bridge reads must have the
 * right type. Each reader throws an `InvalidError` naming the first failing field.
 */
import { parseWith } from '@agdx/bridge-kit';
import { z } from 'zod';

// A message part, in either the v1.0 (`{text}`) or the 0.3 (`{kind: "text", text}`) shape.
const Part = z.looseObject({ text: z.string().optional(), kind: z.string().optional() });

const Message = z.looseObject({
  messageId: z.string().optional(),
  role: z.union([z.string(), z.number()]).optional(),
  parts: z.array(Part).optional(),
  contextId: z.string().optional(),
  taskId: z.string().optional(),
});

const SendConfiguration = z.looseObject({
  returnImmediately: z.boolean().optional(),
  blocking: z.boolean().optional(),
  acceptedOutputModes: z.array(z.string()).optional(),
  historyLength: z.number().int().nonnegative().optional(),
});

// Seed 002 accepts a SendMessage without any params.
const SendMessageSchema = z.looseObject({
  message: Message.optional(),
  configuration: SendConfiguration.optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});

const TaskIdSchema = z.looseObject({ id: z.string(), historyLength: z.number().int().nonnegative().optional() });

/** How the client wants SendMessage answered (the members the bridge reads). */
export interface SendConfiguration {
  /** A2A v1.0: answer at once instead of waiting for the task to settle. */
  readonly returnImmediately?: boolean | undefined;
  /** A2A 0.3: `false` answers at once. */
  readonly blocking?: boolean | undefined;
}

/** Checked SendMessage / SendStreamingMessage params (the members the bridge reads). */
export interface SendMessageParams {
  /** The configuration, when the client sent one. */
  readonly configuration?: SendConfiguration | undefined;
}

/** SendMessage and SendStreamingMessage params. @throws InvalidError naming the failing field. */
export function readSendMessageParams(params: unknown, method: string): SendMessageParams {
  return parseWith(SendMessageSchema, params, `${method} params`);
}

/** GetTask, CancelTask and SubscribeToTask params: the task id. @throws InvalidError naming the failing field. */
export function readTaskIdParams(params: unknown, method: string): { readonly id: string } {
  return parseWith(TaskIdSchema, params, `${method} params`);
}

/** Whether the client asked SendMessage to answer at once (v1.0 `returnImmediately`, or 0.3 `blocking: false`). */
export function answersImmediately(params: SendMessageParams): boolean {
  return params.configuration?.returnImmediately === true || params.configuration?.blocking === false;
}
