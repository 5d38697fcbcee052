import jsonpatch from 'fast-json-patch';
import { DEFAULT_MAX_CBOR_DEPTH } from '../cbor/strict.js';
import { AgdxError, InvalidError } from '../errors.js';
import { utf8Length } from '../ids/utf8.js';
import { isJsonObject, jsonEqual, nestsDeeperThan, type JsonValue } from './json-value.js';

/**
 * Most levels of arrays and objects a state document may nest (the root object is one): the deepest
 * document a state snapshot capsule still decodes with. A patch that would nest it deeper is
 * refused, so every document a fold reaches can be snapshotted, copied and serialized.
 */
export const MAX_STATE_DEPTH: number = DEFAULT_MAX_CBOR_DEPTH;

/**
 * Largest compact-JSON size (UTF-8 bytes) a patch with a `copy` may leave a state document at: the
 * size a state snapshot may hold. A `copy` is the one operation whose growth its own bytes do not
 * pay for: a 521-byte delta of twenty `{"op":"copy","from":"","path":"/kN"}` doubled the document
 * twenty times (7.8 MB), and a few more exhaust the heap. Checked before the copy is made.
 */
export const MAX_STATE_DOCUMENT_BYTES: number = 8 * 1024 * 1024;

/** One RFC 6902 operation. */
export interface JsonPatchOperation {
  /** `add`, `remove`, `replace`, `move`, `copy` or `test`. */
  readonly op: 'add' | 'remove' | 'replace' | 'move' | 'copy' | 'test';
  /** JSON Pointer of the target. */
  readonly path: string;
  /** Source pointer (`move`, `copy`). */
  readonly from?: string;
  /** Operand (`add`, `replace`, `test`). */
  readonly value?: JsonValue;
}

const OPS = new Set(['add', 'remove', 'replace', 'move', 'copy', 'test']);
// Writing through these would reach Object.prototype in a naive applier; refuse them outright.
const RESERVED = new Set(['__proto__', 'constructor', 'prototype']);

function fail(message: string, path?: string): InvalidError {
  return new InvalidError(message, { context: path === undefined ? {} : { path } });
}

/** Parses a JSON Pointer into unescaped tokens (InvalidError `invalid JSON Pointer `p``). */
export function parseJsonPointer(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw fail(`invalid JSON Pointer \`${pointer}\``, pointer);
  return pointer
    .slice(1)
    .split('/')
    .map((token) => {
      if (/~(?![01])/.test(token)) throw fail(`invalid JSON Pointer \`${pointer}\``, pointer);
      return token.replace(/~1/g, '/').replace(/~0/g, '~');
    });
}

function checkReserved(tokens: readonly string[], pointer: string): void {
  if (tokens.some((t) => RESERVED.has(t))) throw fail(`JSON Patch path \`${pointer}\` addresses a reserved property`, pointer);
}

function arrayIndex(token: string): number | undefined {
  return /^(0|[1-9][0-9]*)$/.test(token) ? Number(token) : undefined;
}

// Steps into an existing child; `pointer` is the whole operation path, which every message names.
function child(container: unknown, token: string, pointer: string): unknown {
  if (Array.isArray(container)) {
    if (token === '-') throw fail(`JSON Patch path \`${pointer}\` does not exist`, pointer);
    const index = arrayIndex(token);
    if (index === undefined) throw fail(`invalid JSON Patch array index \`${token}\``, pointer);
    if (index >= container.length) throw fail(`JSON Patch path \`${pointer}\` does not exist`, pointer);
    return container[index];
  }
  if (isJsonObject(container)) {
    if (!Object.prototype.hasOwnProperty.call(container, token)) throw fail(`JSON Patch path \`${pointer}\` does not exist`, pointer);
    return container[token];
  }
  throw fail(`JSON Patch path \`${pointer}\` does not address a container`, pointer);
}

function walk(doc: unknown, tokens: readonly string[], pointer: string): unknown {
  let current = doc;
  for (const token of tokens) current = child(current, token, pointer);
  return current;
}

function checkExists(doc: unknown, tokens: readonly string[], pointer: string): unknown {
  return walk(doc, tokens, pointer);
}

// The value an operation places at `tokens` may nest at most what is left under the cap there.
function checkPlacedDepth(value: unknown, tokens: readonly string[], pointer: string): void {
  if (nestsDeeperThan(value, MAX_STATE_DEPTH - tokens.length)) {
    throw fail(`JSON Patch value at \`${pointer}\` would nest the document deeper than ${MAX_STATE_DEPTH} levels`, pointer);
  }
}

function checkAddTarget(doc: unknown, tokens: readonly string[], pointer: string): void {
  if (tokens.length === 0) return;
  const parent = walk(doc, tokens.slice(0, -1), pointer);
  const last = tokens[tokens.length - 1] as string;
  if (Array.isArray(parent)) {
    if (last === '-') return;
    const index = arrayIndex(last);
    if (index === undefined) throw fail(`invalid JSON Patch array index \`${last}\``, pointer);
    if (index > parent.length) throw fail(`JSON Patch array index \`${last}\` is out of bounds`, pointer);
    return;
  }
  if (!isJsonObject(parent)) throw fail(`JSON Patch path \`${pointer}\` does not address a container`, pointer);
}

function readOperation(raw: unknown): { op: JsonPatchOperation; path: string[]; from: string[] | undefined } {
  if (!isJsonObject(raw) || typeof raw['op'] !== 'string' || typeof raw['path'] !== 'string') {
    throw fail('a JSON Patch operation requires string `op` and `path`');
  }
  const name = raw['op'];
  if (!OPS.has(name)) throw fail(`unknown JSON Patch operation \`${name}\``);
  const path = parseJsonPointer(raw['path']);
  checkReserved(path, raw['path']);
  let from: string[] | undefined;
  if (name === 'move' || name === 'copy') {
    if (typeof raw['from'] !== 'string') throw fail(`a JSON Patch \`${name}\` operation requires string \`from\``);
    from = parseJsonPointer(raw['from']);
    checkReserved(from, raw['from']);
  }
  if ((name === 'add' || name === 'replace' || name === 'test') && !Object.prototype.hasOwnProperty.call(raw, 'value')) {
    throw fail(`a JSON Patch \`${name}\` operation requires \`value\``);
  }
  return { op: raw as unknown as JsonPatchOperation, path, from };
}

/** Checks that `patch` is a well-formed RFC 6902 array (shape only; no document needed). */
export function parseJsonPatch(patch: unknown): JsonPatchOperation[] {
  if (!Array.isArray(patch)) throw fail('a JSON Patch document must be an array');
  return patch.map((raw) => readOperation(raw).op);
}

// A caller's document nested past what structuredClone can recurse through is refused, typed.
function copyDocument(document: JsonValue): unknown {
  try {
    return structuredClone(document);
  } catch (error) {
    throw new InvalidError('the JSON document to patch cannot be copied (nested too deep, or not JSON)', { cause: error });
  }
}

/** Compact-JSON UTF-8 size of a value, as the state caps count it. */
function jsonSize(value: unknown): number {
  return utf8Length(JSON.stringify(value) ?? '');
}

/**
 * What an operation may add to the document's compact-JSON size, counted generously (a member's
 * key, quotes, colon and comma; nothing subtracted for what it replaces or removes), so the
 * running total never falls below the document's real size.
 */
function growthOf(op: JsonPatchOperation, path: readonly string[], working: unknown, from: readonly string[] | undefined, tracking: boolean): number {
  if (!tracking && op.op !== 'copy') return 0;
  const member = path.length === 0 ? 0 : jsonSize(path[path.length - 1]) + 2;
  switch (op.op) {
    case 'add':
    case 'replace':
      return jsonSize(op.value) + member;
    case 'copy':
      return jsonSize(walk(working, from as string[], op.from as string)) + member;
    case 'move':
      return member;
    default:
      return 0;
  }
}

/**
 * Tracks the document's size through a patch from its first `copy` on (before it, every byte added
 * came with the patch, and a patch without a copy pays no measuring): an upper bound, replaced by
 * the measured size whenever it passes the cap, so a patch is refused only when the document
 * really would be too large.
 */
class SizeBudget {
  #size: number | undefined;

  /** Whether a `copy` has started the count (growth is only worked out from then on). */
  get tracking(): boolean {
    return this.#size !== undefined;
  }

  /** Charges `growth` for `op`, about to be applied to `working` (InvalidError past the cap). */
  charge(working: unknown, op: JsonPatchOperation, growth: number, pointer: string): void {
    if (growth === 0 || (this.#size === undefined && op.op !== 'copy')) return;
    this.#size ??= jsonSize(working);
    if (this.#size + growth > MAX_STATE_DOCUMENT_BYTES) this.#size = jsonSize(working);
    if (this.#size + growth > MAX_STATE_DOCUMENT_BYTES) {
      throw fail(`JSON Patch operation at \`${pointer}\` would grow the document past ${MAX_STATE_DOCUMENT_BYTES} bytes`, pointer);
    }
    this.#size += growth;
  }
}

/**
 * Applies an RFC 6902 patch atomically: the input document is never modified, and the result is
 * returned only when every operation succeeded. Every failure is an InvalidError naming the
 * path (`JSON Patch path `/a` does not exist`, `JSON Patch test failed at `/a``, ...). Paths through
 * `__proto__`, `constructor` or `prototype` are refused, and so is an operation that would nest the
 * document deeper than {@link MAX_STATE_DEPTH} levels, or (from the patch's first `copy` on) grow
 * it past {@link MAX_STATE_DOCUMENT_BYTES}, checked before the copy is made.
 */
export function applyJsonPatch(document: JsonValue, patch: unknown): JsonValue {
  if (!Array.isArray(patch)) throw fail('a JSON Patch document must be an array');
  let working: unknown = copyDocument(document);
  const budget = new SizeBudget();
  for (const raw of patch) {
    const { op, path, from } = readOperation(raw);
    // Before anything copies the operand (structuredClone recurses).
    if (op.op === 'add' || op.op === 'replace') checkPlacedDepth(op.value, path, op.path);
    switch (op.op) {
      case 'add':
        checkAddTarget(working, path, op.path);
        break;
      case 'remove':
        if (path.length === 0) throw fail('JSON Patch cannot remove the document root', op.path);
        checkExists(working, path, op.path);
        break;
      case 'replace':
        checkExists(working, path, op.path);
        break;
      case 'test':
        // An operand deeper than the document may nest there cannot equal it (and would make the
        // recursive comparison as deep as the operand).
        if (nestsDeeperThan(op.value, MAX_STATE_DEPTH - path.length) || !jsonEqual(checkExists(working, path, op.path), op.value)) throw fail(`JSON Patch test failed at \`${op.path}\``, op.path);
        continue;
      case 'move':
      case 'copy': {
        const source = op.from as string;
        checkPlacedDepth(checkExists(working, from as string[], source), path, op.path);
        if (op.op === 'move' && (op.path === source || op.path.startsWith(`${source}/`))) {
          if (op.path === source) continue;
          throw fail(`JSON Patch cannot move \`${source}\` into its own child \`${op.path}\``, op.path);
        }
        // A move's target is checked after its removal (below), against the document as it is then.
        if (op.op === 'copy') checkAddTarget(working, path, op.path);
        break;
      }
    }
    budget.charge(working, op, growthOf(op, path, working, from, budget.tracking), op.path);
    try {
      if (op.op === 'move') {
        // A move adds into the document as it is after the removal (RFC 6902 §4.4). `working` is
        // this call's own copy and is thrown away on any failure, so the removal is made in place
        // and the target checked after it: a clone of the whole document per move let a 6 KB
        // delta of 256 moves cost 2.6 s of CPU on a 640 KB document.
        const value = walk(working, from as string[], op.from as string);
        working = jsonpatch.applyOperation(working, { op: 'remove', path: op.from as string }, false, true, true).newDocument;
        checkAddTarget(working, path, op.path);
        working = jsonpatch.applyOperation(working, { op: 'add', path: op.path, value }, false, true, true).newDocument;
        continue;
      }
      const operand = { ...op, value: op.value === undefined ? undefined : structuredClone(op.value) } as jsonpatch.Operation;
      working = jsonpatch.applyOperation(working, operand, false, true, true).newDocument;
    } catch (error) {
      if (AgdxError.is(error)) throw error;
      throw new InvalidError(`JSON Patch operation \`${op.op}\` failed at \`${op.path}\``, { context: { path: op.path }, cause: error });
    }
  }
  return working as JsonValue;
}
