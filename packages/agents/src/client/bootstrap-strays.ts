/**
 * What a bootstrap that lost the layout race leaves behind. Bootstrap creates a layout's topics
 * before it declares the layout (a reader that sees a declaration must find its topics), and a log
 * has no compare-and-append, so of two bootstraps racing on an undeclared stream the one whose
 * declaration lands second learns it lost only after creating its topics. Every layout creates the
 * same well-known topics, with the same partition count (a bootstrap with another count stops at
 * the first of them with the transport's ConflictError, having created none); only the per-agent
 * topics of a topic-per-agent layout can be left over. The transport has no way to delete a topic
 * (and another writer may already use it), so the loser names them for the operator instead.
 */
import { AgdxError } from '@agdx/wire';
import type { LogTransport, TopicSettings } from '@agdx/transport';
import { LayoutMismatchError } from '../errors.js';
import { readLayoutDeclaration } from '../layouts/layout-declaration.js';

/**
 * Ensures a topic and says whether it was missing before: `true` means this call (or a writer at
 * the same moment) created it, so a bootstrap may name it as its own if it loses.
 * @throws the transport's errors (ConflictError when it exists with other settings).
 */
export async function ensureTopicCreated(transport: LogTransport, stream: string, topic: string, settings: TopicSettings, signal: AbortSignal | undefined): Promise<boolean> {
  let existed = true;
  try {
    await transport.describeTopic({ stream, topic }, { signal });
  } catch (error) {
    if (!AgdxError.is(error, 'not-found')) throw error;
    existed = false;
  }
  await transport.ensureTopic({ stream, topic }, settings, { signal });
  return !existed;
}

/**
 * The error a losing bootstrap throws: `refusal` itself when it created no topic the declared
 * layout leaves out, else a LayoutMismatchError that names them (`strayTopics` in its context) and
 * says to delete them, with `refusal` as its cause. When the declaration cannot be read back the
 * refusal goes out as it is: naming a topic the winner may use as one to delete would be worse.
 */
export async function losingBootstrapError(refusal: unknown, transport: LogTransport, stream: string, created: readonly string[], signal: AbortSignal | undefined): Promise<unknown> {
  if (created.length === 0 || !(refusal instanceof LayoutMismatchError)) return refusal;
  let declared;
  try {
    declared = await readLayoutDeclaration(transport, stream, signal);
  } catch {
    return refusal;
  }
  if (declared === undefined) return refusal;
  const winner = declared.layout;
  const used = winner.kind === 'perAgentTopic' ? new Set(winner.topics.values()) : new Set<string>();
  const strays = created.filter((topic) => !used.has(topic));
  if (strays.length === 0) return refusal;
  const named = strays.map((topic) => `\`${topic}\``).join(', ');
  return new LayoutMismatchError(
    `${refusal.message}. This bootstrap created ${named} on \`${stream}\` for its own layout, which the declared layout does not use: delete ${strays.length === 1 ? 'it' : 'them'} once nothing else uses ${strays.length === 1 ? 'it' : 'them'}`,
    { context: { ...refusal.context, strayTopics: strays }, cause: refusal },
  );
}
