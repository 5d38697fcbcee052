import { CAPSULE_LIMITS } from '../cbor/capsule-limits.js';
import { FieldReader } from '../cbor/fields.js';
import { encodeCbor, type CborValue } from '../cbor/strict.js';
import { CodecError, InvalidError } from '../errors.js';
import { AgentId } from '../ids/agent-id.js';

/** Version written in `v`. */
export const AGENT_PRESENCE_VERSION = 1;
/** Largest inbox name, in UTF-8 bytes. */
export const MAX_PRESENCE_INBOX_BYTES = 256;

/** Connection metadata announcing that an agent is online (not an envelope). */
export interface AgentPresence {
  /** The agent. */
  readonly agent: AgentId;
  /** Where it reads its work, when not the default inbox. */
  readonly inbox?: string | undefined;
}

const encoder = new TextEncoder();

/** Checks the inbox cap (InvalidError `inbox is NB, exceeds cap 256B`). */
export function validateAgentPresence(presence: AgentPresence): void {
  if (presence.inbox === undefined) return;
  const bytes = encoder.encode(presence.inbox).length;
  if (bytes > MAX_PRESENCE_INBOX_BYTES) {
    throw new InvalidError(`inbox is ${bytes}B, exceeds cap ${MAX_PRESENCE_INBOX_BYTES}B`, { context: { field: 'inbox' } });
  }
}

/** Encodes presence: `v` (1), `agent`, `inbox`. */
export function encodeAgentPresence(presence: AgentPresence): Uint8Array {
  const map = new Map<CborValue, CborValue>([
    ['v', BigInt(AGENT_PRESENCE_VERSION)],
    ['agent', presence.agent.toString()],
  ]);
  if (presence.inbox !== undefined) map.set('inbox', presence.inbox);
  return encodeCbor(map);
}

/** Decodes presence (surface `body`); the agent id follows the wire rule (InvalidError). */
export function decodeAgentPresence(bytes: Uint8Array): AgentPresence {
  const r = FieldReader.decode(bytes, 'body', CAPSULE_LIMITS.agentPresence);
  const v = r.u32('v');
  if (v !== AGENT_PRESENCE_VERSION) {
    throw new CodecError(`unsupported agent presence version ${v}`, { context: { surface: 'body', operation: 'v' } });
  }
  const agent = AgentId.parse(r.text('agent'));
  const inbox = r.textOpt('inbox');
  return inbox === undefined ? { agent } : { agent, inbox };
}
