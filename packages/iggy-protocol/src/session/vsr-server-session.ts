/**
 * The server half of one VSR connection as a pure state machine, for development servers. It
 * classifies each request header the way Iggy's server does (sheet §2.3, audit §1.4, §2.3 and
 * "other points"), binds the session after a successful Register, builds reply and eviction
 * frames, and keeps the last reply per request number so a repeated metadata request gets the
 * same bytes back.
 */

import { CommandCode, isKnownCommandCode } from '../commands/command-codes.js';
import { IggyInvalidError } from '../errors.js';
import { checkU64 } from '../internal/checks.js';
import { Operation, codeForOperation, isMetadataOperation, isPartitionOperation, isResultFramedOperation } from '../framing/operations.js';
import { encodeResultSection } from '../framing/result-section.js';
import type { ResultEntry } from '../framing/result-section.js';
import type { VsrRequestHeader } from '../framing/vsr-header.js';
import { EvictionReason, encodeVsrEvictionFrame, encodeVsrReplyFrame, vsrRequestChecksumMatches, vsrRequestHeaderProblem } from '../framing/vsr-header.js';

/** What the server should do with a request. */
export type VsrServerAdmission =
  /** Send nothing (the real server only logs): the header broke a validation rule. */
  | { readonly action: 'drop'; readonly reason: string }
  /** Write `frame` (an eviction, a denial or a replayed reply) and do nothing else. */
  | { readonly action: 'respond'; readonly frame: Uint8Array; readonly closes: boolean }
  /** Authenticate the Register body, then call `bind()` or `evict()`. */
  | { readonly action: 'register' }
  /** Run the command `code` and answer with `reply()`. */
  | { readonly action: 'execute'; readonly code: number };

/** Options of a {@link VsrServerSession}. */
export interface VsrServerSessionOptions {
  /** How many replies to keep for deduplication of metadata requests (default 64). */
  readonly replyCacheSize?: number;
  /**
   * How many bytes of those replies to keep at most (default 256 KiB); the oldest go first, and
   * the newest is kept even when it alone is larger. Without a byte bound, 64 large replies (a
   * CreateTopic of 1000 partitions answers about 40 KB) would stay in memory per connection.
   */
  readonly replyCacheBytes?: number;
}

/** Default of {@link VsrServerSessionOptions.replyCacheBytes}. */
const DEFAULT_REPLY_CACHE_BYTES = 256 * 1024;

const REPLICATED_CODES: ReadonlySet<number> = new Set(
  [128, 129, 130, 131, 132, 133, 134, 135, 136, 137, 138, 139, 140, 141, 142, 143, 144, 145, 146, 147, 148, 149, 160, 161, 162]
    .map((op) => codeForOperation(op))
    .filter((c): c is number => c !== undefined),
);

/** The server half of a VSR connection. */
export class VsrServerSession {
  #state: 'unbound' | 'bound' | 'closed' = 'unbound';
  #client = 0n;
  #session = 0n;
  #userId = 0;
  #watermark = 0n;
  readonly #replies = new Map<bigint, Uint8Array>();
  readonly #checksums = new Map<bigint, bigint>();
  readonly #cacheSize: number;
  readonly #cacheBytes: number;
  /** Bytes of the cached replies other than the Register reply. */
  #cachedBytes = 0;

  constructor(options: VsrServerSessionOptions = {}) {
    this.#cacheSize = options.replyCacheSize ?? 64;
    this.#cacheBytes = options.replyCacheBytes ?? DEFAULT_REPLY_CACHE_BYTES;
  }

  /** Bytes of metadata replies kept for deduplication (the Register reply aside). */
  get cachedReplyBytes(): number {
    return this.#cachedBytes;
  }

  /** `unbound` until a Register succeeds; `closed` after Logout or an eviction. */
  get state(): 'unbound' | 'bound' | 'closed' {
    return this.#state;
  }

  /** The bound session number (0 before). */
  get session(): bigint {
    return this.#session;
  }

  /** The client id the session was registered with (0 before). */
  get clientId(): bigint {
    return this.#client;
  }

  /** The authenticated user (meaningful once bound). */
  get userId(): number {
    return this.#userId;
  }

  /**
   * Classifies one request. With the `body`, a stamped request checksum is verified first (a
   * mismatch gets status 4; requires `initChecksums()`).
   */
  admit(header: VsrRequestHeader, body?: Uint8Array): VsrServerAdmission {
    const problem = vsrRequestHeaderProblem(header);
    if (problem !== undefined) return { action: 'drop', reason: problem };
    const op = header.operation;
    if (body !== undefined && !vsrRequestChecksumMatches(header, body)) return this.#deny(header, 4);
    if (op === Operation.Register) {
      if (this.#state === 'bound') {
        // A re-Register on a bound connection replays the existing session.
        const cached = this.#replies.get(0n);
        if (cached !== undefined) return { action: 'respond', frame: cached, closes: false };
      }
      return { action: 'register' };
    }
    if (op === Operation.NonReplicated) {
      const code = header.code;
      if (code === CommandCode.LoginUser || code === CommandCode.LoginWithPersonalAccessToken) {
        return { action: 'respond', frame: this.evict(header.client, EvictionReason.MalformedLogin), closes: true };
      }
      if (this.#state !== 'bound' && code !== CommandCode.Ping) return this.#deny(header, 40);
      if (code === CommandCode.LogoutUser || code === CommandCode.LoginRegister || code === CommandCode.LoginRegisterWithPersonalAccessToken) {
        return { action: 'respond', frame: this.reply(header), closes: false };
      }
      if (REPLICATED_CODES.has(code)) return this.#deny(header, 5);
      if (!isKnownCommandCode(code)) return this.#deny(header, 3);
      return { action: 'execute', code };
    }
    if (op === Operation.Logout) {
      if (this.#state !== 'bound') return { action: 'respond', frame: this.reply(header), closes: false };
      return { action: 'execute', code: CommandCode.LogoutUser };
    }
    const code = codeForOperation(op);
    if (code === undefined) return { action: 'drop', reason: `operation ${op} is not sent by clients` };
    if (this.#state !== 'bound') return { action: 'respond', frame: this.evict(header.client, EvictionReason.NoSession), closes: true };
    if (isMetadataOperation(op) && header.request <= this.#watermark) {
      const cached = this.#replies.get(header.request);
      if (cached !== undefined) {
        // The same number with a different stamped checksum is a different request: dropped.
        const was = this.#checksums.get(header.request) ?? 0n;
        if (was !== 0n && header.requestChecksum !== 0n && was !== header.requestChecksum) return { action: 'drop', reason: 'request number reused with another checksum' };
        return { action: 'respond', frame: cached, closes: false };
      }
      return { action: 'respond', frame: this.reply(header, { results: [{ index: 0, code: 59 }] }), closes: false };
    }
    return { action: 'execute', code };
  }

  /**
   * Drops the oldest cached replies (never the Register reply under 0, never `newest`) while more
   * than `replyCacheSize` replies or `replyCacheBytes` bytes are kept; a request whose reply went
   * is answered 59 (RequestAlreadyApplied) if sent again.
   */
  #trimReplies(newest: bigint): void {
    for (const [key, frame] of this.#replies) {
      if (this.#replies.size <= this.#cacheSize + 1 && this.#cachedBytes <= this.#cacheBytes) return;
      if (key === 0n || key === newest) continue;
      this.#replies.delete(key);
      this.#checksums.delete(key);
      this.#cachedBytes -= frame.length;
    }
  }

  #deny(header: VsrRequestHeader, status: number): VsrServerAdmission {
    return { action: 'respond', frame: this.reply(header, { status }), closes: false };
  }

  /**
   * Binds the session after the caller authenticated a Register and returns the reply frame
   * (result section then `registerReply`, already encoded by the caller).
   */
  bind(header: VsrRequestHeader, userId: number, session: bigint, registerReply: Uint8Array): Uint8Array {
    if (header.operation !== Operation.Register) throw new IggyInvalidError('bind() needs the Register request header');
    checkU64(session, 'session');
    if (session === 0n) throw new IggyInvalidError('session must be non-zero', { context: { field: 'session' } });
    this.#state = 'bound';
    this.#client = header.client;
    this.#session = session;
    this.#userId = userId;
    this.#watermark = 0n;
    this.#replies.clear();
    this.#checksums.clear();
    this.#cachedBytes = 0;
    const frame = encodeVsrReplyFrame(
      { client: header.client, request: 0n, operation: Operation.Register, op: session, release: header.release, requestChecksum: header.requestChecksum },
      encodeResultSection([], registerReply),
    );
    this.#replies.set(0n, frame);
    return frame;
  }

  /**
   * Builds the reply to an executed request. Result-framed operations get the result section
   * (empty = success, or the given `results`); a `status` denies before commit with an empty
   * body. Metadata replies are cached for deduplication; a Logout reply closes the session.
   */
  reply(header: VsrRequestHeader, outcome: { readonly payload?: Uint8Array; readonly status?: number; readonly results?: readonly ResultEntry[]; readonly operation?: number } = {}): Uint8Array {
    // A reply may travel under another operation than its request (DeleteSegments commits as
    // TruncatePartition, 68); framing follows the reply's byte, caching the request's.
    const op = outcome.operation ?? header.operation;
    const status = outcome.status ?? 0;
    const payload = outcome.payload ?? new Uint8Array(0);
    let body: Uint8Array;
    if (status !== 0) body = new Uint8Array(0);
    else if (isResultFramedOperation(op)) body = outcome.results !== undefined && outcome.results.length > 0 ? encodeResultSection(outcome.results) : encodeResultSection([], payload);
    else body = payload;
    const request = isPartitionOperation(header.operation) && header.request < 1n ? 1n : header.request;
    const frame = encodeVsrReplyFrame(
      {
        client: header.client,
        request,
        operation: op,
        status,
        op: op === Operation.NonReplicated || op === Operation.Register ? this.#session : 0n,
        release: header.release,
        requestChecksum: header.requestChecksum,
      },
      body,
    );
    if (status === 0 && isMetadataOperation(header.operation) && this.#state === 'bound') {
      if (header.request > this.#watermark) this.#watermark = header.request;
      this.#cachedBytes -= this.#replies.get(header.request)?.length ?? 0;
      this.#replies.set(header.request, frame);
      this.#checksums.set(header.request, header.requestChecksum);
      this.#cachedBytes += frame.length;
      this.#trimReplies(header.request);
    }
    if (op === Operation.Logout && status === 0) this.#state = 'closed';
    return frame;
  }

  /** Builds an eviction frame and closes the session (reasons in `EvictionReason`). */
  evict(client: bigint, reason: number, window?: { readonly serverProtocolVersion: number; readonly serverProtocolVersionMin: number }): Uint8Array {
    this.#state = 'closed';
    return encodeVsrEvictionFrame({ client: client === 0n ? 1n : client, reason, ...(window ?? {}) });
  }
}
