import type { LogTransport, TopicDescription } from '@agdx/transport';
import { AgdxError } from '@agdx/wire';
import { LayoutMismatchError } from '../errors.js';
import { describeLayout } from './describe-layout.js';
import { declarationInForce } from './declaration-in-force.js';
import { encodeDeclarationRecord, encodeLayoutDeclaration, LAYOUT_DECLARATION_TOPIC, type LayoutDeclaration } from './declaration-record.js';
import type { StreamLayout } from './stream-layout.js';

export {
  decodeLayoutDeclaration,
  encodeLayoutDeclaration,
  LAYOUT_DECLARATION_TOPIC,
  MAX_LAYOUT_DECLARATION_BYTES,
  type LayoutDeclaration,
} from './declaration-record.js';

/** The declaration topic's description, `undefined` when the stream has none (or no such stream). */
export async function describeDeclarationTopic(transport: LogTransport, stream: string, signal?: AbortSignal): Promise<TopicDescription | undefined> {
  try {
    return await transport.describeTopic({ stream, topic: LAYOUT_DECLARATION_TOPIC }, { signal });
  } catch (error) {
    if (AgdxError.is(error, 'not-found')) return undefined;
    throw error;
  }
}

/**
 * The layout `stream` declares: the declaration in force (its newest record that did not lose a
 * race, see `declaration-in-force.ts`), read with one `describeTopic` and normally one one-record
 * read whatever the log's size. `undefined` when the stream declares none (no declaration topic,
 * an empty one, or a newest record that does not decode, which is ignored).
 * @throws the transport's errors other than `not-found`.
 */
export async function readLayoutDeclaration(transport: LogTransport, stream: string, signal?: AbortSignal): Promise<LayoutDeclaration | undefined> {
  const topic = await describeDeclarationTopic(transport, stream, signal);
  if (topic === undefined) return undefined;
  return readDeclarationOf(transport, stream, topic, signal);
}

/** {@link readLayoutDeclaration} for an already described declaration topic. */
export function readDeclarationOf(transport: LogTransport, stream: string, topic: TopicDescription, signal?: AbortSignal): Promise<LayoutDeclaration | undefined> {
  return declarationInForce(transport, stream, topic, signal);
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** True when the declaration in force declares the layout whose canonical payload is `payload`. */
function declares(declaration: LayoutDeclaration | undefined, payload: Uint8Array): boolean {
  return declaration !== undefined && sameBytes(encodeLayoutDeclaration(declaration.layout), payload);
}

/** Options of {@link declareLayout}. */
export interface DeclareLayoutOptions {
  /**
   * Replace a different layout the stream already declares: a deliberate migration, after which
   * readers and agents still given the old layout fail with LayoutMismatchError. Default `false`:
   * a different declaration is refused.
   */
  readonly replaceLayout?: boolean | undefined;
  /** Aborts the reads and the append. */
  readonly signal?: AbortSignal | undefined;
}

/**
 * Why declaring `layout` (canonical `payload`) over the declaration in force is refused: it
 * declares another layout. No declaration, or the same layout, may be declared over.
 */
function replacementRefusal(stream: string, layout: StreamLayout, payload: Uint8Array, declared: LayoutDeclaration | undefined): LayoutMismatchError | undefined {
  if (declared === undefined || declares(declared, payload)) return undefined;
  return new LayoutMismatchError(
    `stream \`${stream}\` already declares the ${describeLayout(declared.layout)} layout; declaring the ${describeLayout(layout)} layout instead would make the readers and agents of the declared one fail: pass \`replaceLayout: true\` to replace it on purpose`,
    { context: { stream, declaredLayout: declared.layout.kind, requestedLayout: layout.kind, declarationOffset: declared.offset } },
  );
}

/**
 * Refuses, before anything is created, a declaration of `layout` that would replace another
 * layout `stream` declares (what {@link declareLayout} refuses without `replaceLayout`): one
 * `describeTopic`, plus the declaration's read when the stream has a declaration topic.
 * @throws LayoutMismatchError naming both layouts; InvalidError for a bad layout; the transport's
 * errors other than `not-found`.
 */
export async function checkLayoutReplacement(transport: LogTransport, stream: string, layout: StreamLayout, signal?: AbortSignal): Promise<void> {
  const payload = encodeLayoutDeclaration(layout);
  const topic = await describeDeclarationTopic(transport, stream, signal);
  if (topic === undefined) return;
  const refusal = replacementRefusal(stream, layout, payload, await declarationInForce(transport, stream, topic, signal));
  if (refusal !== undefined) throw refusal;
}

// The fourth argument was a bare signal before it became an options object; both are accepted.
function declareOptions(options: DeclareLayoutOptions | AbortSignal | undefined): DeclareLayoutOptions {
  if (options === undefined) return {};
  return typeof AbortSignal !== 'undefined' && options instanceof AbortSignal ? { signal: options } : (options as DeclareLayoutOptions);
}

/** Appends a `replaceLayout` declaration may make before giving up on a topic that keeps moving. */
const MAX_REPLACE_ATTEMPTS = 8;

/**
 * Declares `layout` for `stream` (the stream must exist): creates the one-partition declaration
 * topic when missing and appends a declaration unless the one in force already declares this
 * layout, so repeating it writes nothing. A different readable declaration is refused unless
 * `replaceLayout` is set; a newest record that does not decode is declared over.
 *
 * Writers racing on one stream are settled by the rule every reader applies (see
 * `declaration-in-force.ts`): each record names the offset it expects to land at, and one that
 * lands elsewhere does not count. So of two writers that both saw no declaration, the first to
 * append wins; the other reads the winner back after its append and, for another layout, gets
 * LayoutMismatchError (or, with `replaceLayout`, declares again after it, at most 8 times).
 * @param options the options, or (as before they existed) a bare abort signal.
 * @returns whether this call's record is the declaration in force (false when the layout was
 * already declared, or a racing writer declared the same layout first).
 * @throws LayoutMismatchError when the stream declares another layout (or a racing writer
 * declared one first) and `replaceLayout` is not set, or when with it the declaration kept being
 * replaced by other writers; InvalidError for a bad layout; the transport's errors.
 */
export async function declareLayout(transport: LogTransport, stream: string, layout: StreamLayout, options?: DeclareLayoutOptions | AbortSignal): Promise<boolean> {
  const { signal, replaceLayout = false } = declareOptions(options);
  const payload = encodeLayoutDeclaration(layout);
  let topic = await transport.ensureTopic({ stream, topic: LAYOUT_DECLARATION_TOPIC }, { partitions: 1 }, { signal });
  let lastRefusal: LayoutMismatchError | undefined;
  for (let attempt = 0; attempt < MAX_REPLACE_ATTEMPTS; attempt++) {
    if (attempt > 0) topic = await transport.describeTopic({ stream, topic: LAYOUT_DECLARATION_TOPIC }, { signal });
    const declared = await declarationInForce(transport, stream, topic, signal);
    if (declares(declared, payload)) return false;
    lastRefusal = replacementRefusal(stream, layout, payload, declared);
    if (lastRefusal !== undefined && !replaceLayout) throw lastRefusal;
    const at = topic.partitions[0]?.nextOffset ?? 0n;
    const appended = await transport.append({ stream, topic: LAYOUT_DECLARATION_TOPIC, records: [{ payload: encodeDeclarationRecord(layout, at) }], routing: { partition: 0 }, signal });
    if (appended.baseOffset === at) return true;
    // Another writer appended first: this record does not count. Look again at what does.
  }
  throw new LayoutMismatchError(
    `stream \`${stream}\`: other writers kept declaring while the ${describeLayout(layout)} layout was being declared (${MAX_REPLACE_ATTEMPTS} attempts); the declaration was not replaced`,
    { context: { stream, requestedLayout: layout.kind }, cause: lastRefusal },
  );
}
