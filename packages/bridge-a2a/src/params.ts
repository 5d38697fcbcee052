/**
 * zod schemas of the A2A JSON-RPC params the bridge reads: the untrusted JSON a client sends.
 * Unknown members pass (A2A v1.0 ProtoJSON and the older 0.3 shape both arrive, and the
 * SendMessage params ride to the agent as they are); the members the bridge reads must have the
 * right type.
 */
import { z } from 'zod';

/** A message part, in either the v1.0 (`{text}`) or the 0.3 (`{kind: "text", text}`) shape. */
const Part = z.looseObject({ text: z.string().optional(), kind: z.string().optional() });

/** The message of a SendMessage (members the bridge does not read are left alone). */
const Message = z.looseObject({
  messageId: z.string().optional(),
  role: z.union([z.string(), z.number()]).optional(),
  parts: z.array(Part).optional(),
  contextId: z.string().optional(),
  taskId: z.string().optional(),
});

/** How the client wants SendMessage answered. */
const SendConfiguration = z.looseObject({
  /** A2A v1.0: answer at once instead of waiting for the task to settle. */
  returnImmediately: z.boolean().optional(),
  /** A2A 0.3: `false` answers at once. */
  blocking: z.boolean().optional(),
  acceptedOutputModes: z.array(z.string()).optional(),
  historyLength: z.number().int().nonnegative().optional(),
});

/** SendMessage and SendStreamingMessage params; seed 002 accepts a call without any. */
export const SendMessageParams = z.looseObject({
  message: Message.optional(),
  configuration: SendConfiguration.optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});
/** Parsed SendMessage params. */
export type SendMessageParams = z.output<typeof SendMessageParams>;

/** GetTask params. */
export const GetTaskParams = z.looseObject({ id: z.string(), historyLength: z.number().int().nonnegative().optional() });

/** CancelTask params. */
export const CancelTaskParams = z.looseObject({ id: z.string() });

/** Whether the client asked SendMessage to answer at once (v1.0 `returnImmediately`, or 0.3 `blocking: false`). */
export function answersImmediately(params: SendMessageParams): boolean {
  return params.configuration?.returnImmediately === true || params.configuration?.blocking === false;
}
