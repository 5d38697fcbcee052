import { authorizeEdge, edgeDenialChallenge, type EdgeClaims } from '@agdx/agents';
import { PublicErrorMessage, rpcError, type JsonRpcId } from './json-rpc.js';

// One strict decoder for every request body (decoding is not streamed, so it holds no state). The
// default drops one leading byte order mark, which JSON lets a parser ignore (Request.json() does
// too), so a client that writes one is not refused.
const jsonRequestText = new TextDecoder('utf-8', { fatal: true });

/** Default cap on a request body (1 MiB); a larger body gets 413 before it is parsed. */
export const DEFAULT_MAX_BODY_BYTES: number = 1024 * 1024;

/**
 * Optional edge authorization. Your HTTP layer decodes the token (the SDK never parses tokens);
 * `claims` hands the decoded audience and scopes over, each as a list of strings (split a
 * token's space-separated `scope`, wrap a single `aud`), and the handler checks them with
 * `authorizeEdge` before the bridge runs. Claims of another shape are treated as none (401).
 */
export interface EdgeAuthorization {
  /** The decoded claims of the request, or undefined when it carries none (401). */
  claims(request: Request): EdgeClaims | undefined | Promise<EdgeClaims | undefined>;
  /** The audience this endpoint serves. */
  readonly audience: string;
  /** The scope a call needs: one for every method, or chosen by the JSON-RPC method. */
  readonly scope: string | ((method: string) => string);
}

/** A JSON response. */
export function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
}

/** A JSON-RPC error with the fixed public message, carried by an HTTP status. */
export function rpcErrorResponse(status: number, id: JsonRpcId, message: PublicErrorMessage, headers: Record<string, string> = {}): Response {
  return jsonResponse(status, rpcError(id, message), headers);
}

/** The outcome of reading a JSON body: the value, or the 4xx answer to send instead. */
export type JsonBody = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly response: Response };

function isJsonMediaType(contentType: string | null): boolean {
  if (contentType === null) return false;
  const type = contentType.split(';', 1)[0]?.trim().toLowerCase() ?? '';
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
}

/** The body's bytes, or undefined past `maxBytes` (declared or read); never more than the cap is held. */
export async function readCapped(request: Request, maxBytes: number): Promise<Uint8Array | undefined> {
  const declared = request.headers.get('content-length');
  if (declared !== null && Number(declared) > maxBytes) return undefined;
  if (request.body === null) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      return undefined;
    }
    chunks.push(value);
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.byteLength;
  }
  return out;
}

/**
 * Reads a JSON request body, answering 415 for another media type, 413 over `maxBytes` and 400
 * for bytes that are not UTF-8 JSON, so a bad body never reaches the bridge.
 */
export async function readJsonBody(request: Request, maxBytes: number): Promise<JsonBody> {
  if (!isJsonMediaType(request.headers.get('content-type'))) {
    return { ok: false, response: rpcErrorResponse(415, null, PublicErrorMessage.InvalidRequest) };
  }
  let bytes: Uint8Array | undefined;
  try {
    bytes = await readCapped(request, maxBytes);
  } catch {
    return { ok: false, response: rpcErrorResponse(400, null, PublicErrorMessage.InvalidRequest) };
  }
  if (bytes === undefined) return { ok: false, response: rpcErrorResponse(413, null, PublicErrorMessage.InvalidRequest) };
  try {
    const text = jsonRequestText.decode(bytes);
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false, response: rpcErrorResponse(400, null, PublicErrorMessage.InvalidRequest) };
  }
}

// One claims lookup per request: the header check before the body and the scope check after
// it share the hook's answer (a hook may verify a signature or call an introspection endpoint).
const claimsOf = new WeakMap<Request, Promise<EdgeClaims | undefined>>();

function isStringList(value: unknown): value is readonly string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

/**
 * The claims a hook returned when they have the declared shape, else undefined (401). A token's
 * `aud` may be one string and its OAuth `scope` is one space-separated string: handed over as
 * they are, `includes` would match substrings, so an audience `api.example.com.evil` or a scope
 * `tool:writer` would pass for `api.example.com` or `tool:write`.
 */
function wellFormed(claims: EdgeClaims | undefined): EdgeClaims | undefined {
  if (typeof claims !== 'object' || claims === null) return undefined;
  const { audience, scopes } = claims as { readonly audience?: unknown; readonly scopes?: unknown };
  return isStringList(audience) && isStringList(scopes) ? { audience, scopes } : undefined;
}

function claimsFor(authorization: EdgeAuthorization, request: Request): Promise<EdgeClaims | undefined> {
  let claims = claimsOf.get(request);
  if (claims === undefined) {
    claims = (async () => {
      try {
        return wellFormed(await authorization.claims(request));
      } catch {
        return undefined;
      }
    })();
    claimsOf.set(request, claims);
  }
  return claims;
}

/**
 * The authorization checks that need only the request's headers, run before its body is read:
 * 401 when the hook finds no claims or the audience is wrong, and, when `scope` is one fixed
 * string, 403 (with the step-up challenge) when the claims lack it. Undefined when the request
 * may go on; a scope chosen by JSON-RPC method is checked by {@link authorizeRequest} after the
 * body is parsed. An unauthenticated caller therefore never gets a body read or parsed.
 */
export async function authenticateRequest(authorization: EdgeAuthorization | undefined, request: Request): Promise<Response | undefined> {
  if (authorization === undefined) return undefined;
  const claims = await claimsFor(authorization, request);
  if (claims === undefined || !claims.audience.includes(authorization.audience)) return rpcErrorResponse(401, null, PublicErrorMessage.Unauthenticated);
  if (typeof authorization.scope !== 'string') return undefined;
  return authorizeRequest(authorization, request, '', null);
}

/**
 * Runs the authorization hook: undefined when the call may go on, else the 401 (no claims or a
 * wrong audience, no challenge) or 403 (missing scope, with the step-up challenge) answer.
 */
export async function authorizeRequest(
  authorization: EdgeAuthorization | undefined,
  request: Request,
  method: string,
  id: JsonRpcId,
): Promise<Response | undefined> {
  if (authorization === undefined) return undefined;
  const claims = await claimsFor(authorization, request);
  if (claims === undefined) return rpcErrorResponse(401, id, PublicErrorMessage.Unauthenticated);
  const scope = typeof authorization.scope === 'function' ? authorization.scope(method) : authorization.scope;
  const denial = authorizeEdge(claims, authorization.audience, scope);
  if (denial === undefined) return undefined;
  const challenge = edgeDenialChallenge(denial);
  if (challenge === undefined) return rpcErrorResponse(401, id, PublicErrorMessage.Unauthenticated);
  return rpcErrorResponse(403, id, PublicErrorMessage.StepUpRequired, { 'www-authenticate': challenge });
}
