import { AgdxError, CodecError, InvalidError } from '../errors.js';
import { AgentId } from '../ids/agent-id.js';
import { LogPosition } from '../ids/log-position.js';
import { adoptIdBytes, ConversationId, idBytesView } from '../ids/machine-id.js';
import { utf8Length } from '../ids/utf8.js';
import { readMetadata, writeMetadata } from '../codec/metadata-codec.js';
import {
  CborFormatError,
  CborReader,
  formatFailure,
  MAJOR_ARRAY,
  MAJOR_BYTES,
  MAJOR_MAP,
  MAJOR_SIMPLE,
  MAJOR_TEXT,
  MAJOR_UINT,
} from '../codec/reader.js';
import { type ByteWriter, encodeWith } from '../codec/writer.js';
import type { Metadata } from './metadata.js';

/** Cap on a session label, in UTF-8 bytes. */
export const MAX_SESSION_LABEL_BYTES = 256;
/** Cap on a session namespace, in UTF-8 bytes. */
export const MAX_SESSION_NAMESPACE_BYTES = 128;
/** Most tags a session may carry. */
export const MAX_SESSION_TAGS = 16;
/** Cap on one session tag, in UTF-8 bytes. */
export const MAX_SESSION_TAG_BYTES = 64;

/** The SDK that wrote a session start. */
export interface SessionSdk {
  /** Language name (`typescript`, `rust`, `python`). */
  readonly language: string;
  /** SDK version. */
  readonly version: string;
}

/** A session's advisory budget (read-time flag; an enforcing SDK ends the session with reason `budget`). */
export interface SessionBudget {
  /** Token ceiling (input + output). */
  readonly tokens?: bigint;
  /** Cost ceiling in micro-units. */
  readonly costMicros?: bigint;
}

/** Body of the `status(session, Submitted | Working)` record that opens a session. */
export interface SessionStart {
  /** Human label (≤ 256 bytes, no control characters). */
  readonly label?: string;
  /** Namespace (≤ 128 bytes, non-empty, no ASCII control characters). */
  readonly namespace?: string;
  /** The agent that owns the session. */
  readonly agent: AgentId;
  /** The SDK that wrote it. */
  readonly sdk: SessionSdk;
  /** Parent session; must equal the envelope's `parent`. */
  readonly parent?: ConversationId;
  /** Root session; requires `parent`; must equal the envelope's `root`. */
  readonly root?: ConversationId;
  /** Idle timeout in microseconds. */
  readonly idleTimeoutMicros?: bigint;
  /** Advisory budget. */
  readonly budget?: SessionBudget;
  /** Tags (≤ 16, each ≤ 64 bytes); omitted on the wire when empty. */
  readonly tags?: readonly string[];
}

/** Body of a non-terminal `status(session, …)` record (pick-up, pause acknowledgement, resume). */
export interface SessionTransition {
  /** The acting agent. */
  readonly actor?: AgentId;
  /** Log position of the control request this acknowledges. */
  readonly acknowledges?: LogPosition;
}

/** The AgentErrorBody carried by a failed session end (same CBOR as an error envelope's body). */
export interface SessionEndError {
  /** AgentErrorCode (u8). */
  readonly code: number;
  /** Human-readable message. */
  readonly message?: string;
  /** Whether a retry may succeed (written only when true). */
  readonly retryable?: boolean;
  /** Structured detail. */
  readonly detail?: Metadata;
}

/** Body of the terminal `status(session, Completed | Canceled | Failed | Rejected)` record (`last = true`). */
export interface SessionEnd {
  /** Why it ended (`budget`, `forced`, …). */
  readonly reason?: string;
  /** The error, for failures. */
  readonly error?: SessionEndError;
}

// --------------------------------------------------------------------------------------------
// Checks
// --------------------------------------------------------------------------------------------

function hasControl(text: string, asciiOnly: boolean): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c <= 0x1f || c === 0x7f || (!asciiOnly && c >= 0x80 && c <= 0x9f)) return true;
  }
  return false;
}

/**
 * Checks a SessionStart's own rules (label, namespace, tags, root needs parent).
 * @throws InvalidError with the upstream message.
 */
export function validateSessionStart(start: SessionStart): void {
  if (start.label !== undefined && (utf8Length(start.label) > MAX_SESSION_LABEL_BYTES || hasControl(start.label, false))) {
    throw new InvalidError('session label exceeds its cap or contains a control character', { context: { field: 'label' } });
  }
  if (
    start.namespace !== undefined &&
    (start.namespace.length === 0 || utf8Length(start.namespace) > MAX_SESSION_NAMESPACE_BYTES || hasControl(start.namespace, true))
  ) {
    throw new InvalidError('session namespace is empty, exceeds its cap or contains a control character', {
      context: { field: 'namespace' },
    });
  }
  const tags = start.tags ?? [];
  if (tags.length > MAX_SESSION_TAGS) throw new InvalidError('session has too many tags', { context: { field: 'tags' } });
  for (const tag of tags) {
    if (utf8Length(tag) > MAX_SESSION_TAG_BYTES) throw new InvalidError('session tag exceeds its byte cap', { context: { field: 'tags' } });
  }
  if (start.root !== undefined && start.parent === undefined) {
    throw new InvalidError('`root`: root requires parent', { context: { field: 'root' } });
  }
}

// --------------------------------------------------------------------------------------------
// Encoding
// --------------------------------------------------------------------------------------------

function key(w: ByteWriter, k: string): void {
  w.text(k);
}

/** Canonical CBOR of a SessionStart (fields in declaration order, absent ones omitted); a slab view, as from `encodeEnvelope`. */
export function encodeSessionStart(start: SessionStart): Uint8Array {
  return encodeWith((w: ByteWriter, start: SessionStart) => {
    const tags = start.tags ?? [];
    const n =
      2 +
      (start.label !== undefined ? 1 : 0) +
      (start.namespace !== undefined ? 1 : 0) +
      (start.parent !== undefined ? 1 : 0) +
      (start.root !== undefined ? 1 : 0) +
      (start.idleTimeoutMicros !== undefined ? 1 : 0) +
      (start.budget !== undefined ? 1 : 0) +
      (tags.length > 0 ? 1 : 0);
    w.head(5, n);
    if (start.label !== undefined) (key(w, 'label'), w.text(start.label));
    if (start.namespace !== undefined) (key(w, 'namespace'), w.text(start.namespace));
    key(w, 'agent');
    w.text(start.agent.value);
    key(w, 'sdk');
    w.head(5, 2);
    key(w, 'language');
    w.text(start.sdk.language);
    key(w, 'version');
    w.text(start.sdk.version);
    if (start.parent !== undefined) (key(w, 'parent'), w.bytes(idBytesView(start.parent)));
    if (start.root !== undefined) (key(w, 'root'), w.bytes(idBytesView(start.root)));
    if (start.idleTimeoutMicros !== undefined) (key(w, 'idle_timeout_micros'), w.uint(start.idleTimeoutMicros));
    if (start.budget !== undefined) {
      key(w, 'budget');
      const b = start.budget;
      w.head(5, (b.tokens !== undefined ? 1 : 0) + (b.costMicros !== undefined ? 1 : 0));
      if (b.tokens !== undefined) (key(w, 'tokens'), w.uint(b.tokens));
      if (b.costMicros !== undefined) (key(w, 'cost_micros'), w.uint(b.costMicros));
    }
    if (tags.length > 0) {
      key(w, 'tags');
      w.head(4, tags.length);
      for (const t of tags) w.text(t);
    }
  }, start);
}

/** Canonical CBOR of a SessionTransition; a slab view, as from `encodeEnvelope`. */
export function encodeSessionTransition(t: SessionTransition): Uint8Array {
  return encodeWith((w: ByteWriter, t: SessionTransition) => {
    w.head(5, (t.actor !== undefined ? 1 : 0) + (t.acknowledges !== undefined ? 1 : 0));
    if (t.actor !== undefined) (key(w, 'actor'), w.text(t.actor.value));
    if (t.acknowledges !== undefined) (key(w, 'acknowledges'), w.bytes(t.acknowledges.toBytes()));
  }, t);
}

/** Canonical CBOR of a SessionEnd; a slab view, as from `encodeEnvelope`. */
export function encodeSessionEnd(end: SessionEnd): Uint8Array {
  return encodeWith((w: ByteWriter, end: SessionEnd) => {
    w.head(5, (end.reason !== undefined ? 1 : 0) + (end.error !== undefined ? 1 : 0));
    if (end.reason !== undefined) (key(w, 'reason'), w.text(end.reason));
    if (end.error !== undefined) {
      const e = end.error;
      key(w, 'error');
      w.head(5, 1 + (e.message !== undefined ? 1 : 0) + (e.retryable === true ? 1 : 0) + (e.detail !== undefined ? 1 : 0));
      key(w, 'code');
      w.head(0, e.code);
      if (e.message !== undefined) (key(w, 'message'), w.text(e.message));
      if (e.retryable === true) (key(w, 'retryable'), w.bool(true));
      if (e.detail !== undefined) (key(w, 'detail'), writeMetadata(w, e.detail));
    }
  }, end);
}

// --------------------------------------------------------------------------------------------
// Decoding (strict, same reader as the envelope; unknown keys ignored)
// --------------------------------------------------------------------------------------------

function bad(surface: string, field: string, what: string): CodecError {
  return new CodecError(`field \`${field}\` in ${surface} must be ${what}`, { context: { surface, operation: field, field } });
}

function missing(surface: string, field: string): CodecError {
  return new CodecError(`missing required field \`${field}\` in ${surface}`, { context: { surface, operation: field, field } });
}

function mapEntries(r: CborReader, surface: string, depth: number, onKey: (k: string) => boolean): void {
  r.head();
  if (r.major !== MAJOR_MAP) throw new CodecError(`expected a CBOR map for ${surface}`, { context: { surface, operation: 'expect-map' } });
  const count = r.arg;
  const seen = new Set<string>();
  const entry = (): void => {
    const start = r.pos;
    r.head();
    if (r.major === MAJOR_TEXT) {
      const k = r.textPayload();
      if (seen.has(`t${k}`)) throw new CborFormatError('found repeat map key');
      seen.add(`t${k}`);
      if (!onKey(k)) r.skip(depth + 1);
      return;
    }
    r.pos = start;
    r.skip(depth + 1);
    const raw = `r${r.rawKeyOf(start, r.pos)}`;
    if (seen.has(raw)) throw new CborFormatError('found repeat map key');
    seen.add(raw);
    r.skip(depth + 1);
  };
  if (count < 0) while (!r.takeBreak()) entry();
  else {
    r.fits(count * 2);
    for (let i = 0; i < count; i++) entry();
  }
}

function text(r: CborReader, surface: string, field: string): string {
  r.head();
  if (r.major !== MAJOR_TEXT) throw bad(surface, field, 'a string');
  return r.textPayload();
}

function bytes(r: CborReader, surface: string, field: string): Uint8Array {
  r.head();
  if (r.major !== MAJOR_BYTES) throw bad(surface, field, 'bytes');
  return r.bytesPayload();
}

function u64(r: CborReader, surface: string, field: string): bigint {
  r.head();
  if (r.major !== MAJOR_UINT) throw bad(surface, field, 'an unsigned integer');
  return r.argBig();
}

function decodeWith<T>(input: Uint8Array, surface: string, read: (r: CborReader) => T): T {
  if (!(input instanceof Uint8Array) || input.length === 0) {
    throw formatFailure(surface, new CborFormatError('did not find any content to decode'));
  }
  const r = new CborReader(input);
  try {
    const out = read(r);
    if (!r.atEnd()) throw new CborFormatError('too many terminals');
    return out;
  } catch (e) {
    if (AgdxError.is(e)) throw e;
    throw formatFailure(surface, e);
  }
}

/** True when the body is a CBOR map with an `agent` or `sdk` key (how a Working start is told from a transition). */
export function sessionBodyLooksLikeStart(body: Uint8Array): boolean {
  try {
    let found = false;
    decodeWith(body, 'session body', (r) =>
      mapEntries(r, 'session body', 0, (k) => {
        if (k === 'agent' || k === 'sdk') found = true;
        return false;
      }),
    );
    return found;
  } catch {
    return false;
  }
}

/**
 * Strictly decodes a SessionStart (unknown keys ignored).
 * @throws CodecError / InvalidError.
 */
export function decodeSessionStart(input: Uint8Array): SessionStart {
  const S = 'session start';
  return decodeWith(input, S, (r) => {
    const out: {
      label?: string;
      namespace?: string;
      agent?: AgentId;
      sdk?: SessionSdk;
      parent?: ConversationId;
      root?: ConversationId;
      idleTimeoutMicros?: bigint;
      budget?: SessionBudget;
      tags?: string[];
    } = {};
    mapEntries(r, S, 0, (k) => {
      switch (k) {
        case 'label':
          out.label = text(r, S, k);
          return true;
        case 'namespace':
          out.namespace = text(r, S, k);
          return true;
        case 'agent':
          out.agent = AgentId.parse(text(r, S, k));
          return true;
        case 'sdk': {
          let language: string | undefined;
          let version: string | undefined;
          mapEntries(r, `${S}.sdk`, 1, (sk) => {
            if (sk === 'language') language = text(r, `${S}.sdk`, sk);
            else if (sk === 'version') version = text(r, `${S}.sdk`, sk);
            else return false;
            return true;
          });
          if (language === undefined) throw missing(`${S}.sdk`, 'language');
          if (version === undefined) throw missing(`${S}.sdk`, 'version');
          out.sdk = { language, version };
          return true;
        }
        case 'parent':
          out.parent = adoptIdBytes(ConversationId, bytes(r, S, k));
          return true;
        case 'root':
          out.root = adoptIdBytes(ConversationId, bytes(r, S, k));
          return true;
        case 'idle_timeout_micros':
          out.idleTimeoutMicros = u64(r, S, k);
          return true;
        case 'budget': {
          const b: { tokens?: bigint; costMicros?: bigint } = {};
          mapEntries(r, `${S}.budget`, 1, (bk) => {
            if (bk === 'tokens') b.tokens = u64(r, `${S}.budget`, bk);
            else if (bk === 'cost_micros') b.costMicros = u64(r, `${S}.budget`, bk);
            else return false;
            return true;
          });
          out.budget = b;
          return true;
        }
        case 'tags': {
          r.head();
          if (r.major !== MAJOR_ARRAY) throw bad(S, k, 'an array of strings');
          const tags: string[] = [];
          const n = r.arg;
          // The tag cap is checked as the count is read, before any tag is decoded.
          const tooMany = (): InvalidError => new InvalidError('session has too many tags', { context: { field: 'tags' } });
          if (n < 0) {
            while (!r.takeBreak()) {
              if (tags.length === MAX_SESSION_TAGS) throw tooMany();
              tags.push(text(r, S, k));
            }
          } else {
            if (n > MAX_SESSION_TAGS) throw tooMany();
            r.fits(n);
            for (let i = 0; i < n; i++) tags.push(text(r, S, k));
          }
          out.tags = tags;
          return true;
        }
        default:
          return false;
      }
    });
    if (out.agent === undefined) throw missing(S, 'agent');
    if (out.sdk === undefined) throw missing(S, 'sdk');
    return out as SessionStart;
  });
}

/**
 * Strictly decodes a SessionTransition (unknown keys ignored).
 * @throws CodecError / InvalidError.
 */
export function decodeSessionTransition(input: Uint8Array): SessionTransition {
  const S = 'session transition';
  return decodeWith(input, S, (r) => {
    const out: { actor?: AgentId; acknowledges?: LogPosition } = {};
    mapEntries(r, S, 0, (k) => {
      if (k === 'actor') out.actor = AgentId.parse(text(r, S, k));
      else if (k === 'acknowledges') out.acknowledges = LogPosition.fromBytes(bytes(r, S, k));
      else return false;
      return true;
    });
    return out;
  });
}

/**
 * Strictly decodes a SessionEnd (unknown keys ignored).
 * @throws CodecError / InvalidError.
 */
export function decodeSessionEnd(input: Uint8Array): SessionEnd {
  const S = 'session end';
  return decodeWith(input, S, (r) => {
    const out: { reason?: string; error?: SessionEndError } = {};
    mapEntries(r, S, 0, (k) => {
      if (k === 'reason') {
        out.reason = text(r, S, k);
        return true;
      }
      if (k !== 'error') return false;
      const E = `${S}.error`;
      const err: { code?: number; message?: string; retryable?: boolean; detail?: Metadata } = {};
      mapEntries(r, E, 1, (ek) => {
        switch (ek) {
          case 'code':
            r.head();
            if (r.major !== MAJOR_UINT || r.bigArg !== undefined || r.arg > 255) {
              throw bad(E, ek, 'an unsigned integer at most 255');
            }
            err.code = r.arg;
            return true;
          case 'message':
            err.message = text(r, E, ek);
            return true;
          case 'retryable':
            r.head();
            if (r.major !== MAJOR_SIMPLE || (r.info !== 20 && r.info !== 21)) throw bad(E, ek, 'a boolean');
            err.retryable = r.info === 21;
            return true;
          case 'detail': {
            // readMetadata expects the map head itself; it reports under `<surface>.metadata`.
            err.detail = readMetadata(r, E, 2);
            return true;
          }
          default:
            return false;
        }
      });
      if (err.code === undefined) throw missing(E, 'code');
      out.error = err as SessionEndError;
      return true;
    });
    return out;
  });
}
