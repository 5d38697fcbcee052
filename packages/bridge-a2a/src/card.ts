import { SDK_VERSION } from '@agdx/agents';
import { ContentType, type CapabilityDescriptor, type ContentRef } from '@agdx/wire';

/** The A2A protocol version the bridge speaks. */
export const A2A_PROTOCOL_VERSION: '1.0' = '1.0';
/** The A2A protocol binding the bridge serves. */
export const A2A_JSONRPC_BINDING: 'JSONRPC' = 'JSONRPC';
/** Where A2A clients look for the card, relative to the agent's base URL. */
export const AGENT_CARD_PATH: '.well-known/agent-card.json' = '.well-known/agent-card.json';
/** The description every bridge card carries. */
export const A2A_CARD_DESCRIPTION: string = 'LaserData AGDX bridge over the durable log';

/** An A2A v1.0 AgentInterface. */
export interface A2aAgentInterface {
  /** Endpoint URL (`/` on `card()`, absolute on the served card). */
  readonly url: string;
  /** `JSONRPC`. */
  readonly protocolBinding: string;
  /** `1.0`. */
  readonly protocolVersion: string;
}

/** An A2A v1.0 AgentSkill built from a capability descriptor. */
export interface A2aAgentSkill {
  /** The capability's skill id. */
  readonly id: string;
  /** The skill id again (capabilities carry no display name). */
  readonly name: string;
  /** Empty: capability descriptors carry no description (left out of a signed card, see `a2aSignableCard`). */
  readonly description?: string;
  /** Empty (left out of a signed card). */
  readonly tags?: readonly string[];
  /** The input media type, when the capability declares an input. */
  readonly inputModes?: readonly string[];
  /** The output media type, when the capability declares an output. */
  readonly outputModes?: readonly string[];
}

/** An A2A v1.0 Agent Card (the required members plus the capability flags). */
export interface A2aAgentCard {
  /** The bridge's agent id. */
  readonly name: string;
  /** {@link A2A_CARD_DESCRIPTION}. */
  readonly description: string;
  /** The SDK version. */
  readonly version: string;
  /** One JSON-RPC interface. */
  readonly supportedInterfaces: readonly A2aAgentInterface[];
  /** What the bridge supports. */
  readonly capabilities: {
    readonly streaming: boolean;
    readonly pushNotifications: boolean;
    /** A2A 0.3's flag, always false; left out of a signed card (A2A v1.0 no longer defines it). */
    readonly stateTransitionHistory?: boolean;
    readonly extendedAgentCard: boolean;
  };
  /** `text/plain`. */
  readonly defaultInputModes: readonly string[];
  /** `text/plain`. */
  readonly defaultOutputModes: readonly string[];
  /** One skill per capability descriptor. */
  readonly skills: readonly A2aAgentSkill[];
  /** Detached JWS signatures, on a signed card. */
  readonly signatures?: readonly { readonly protected: string; readonly signature: string }[];
}

const CONTENT_TYPE_MODES: ReadonlyMap<number, string> = new Map([
  [ContentType.raw, 'application/octet-stream'],
  [ContentType.json, 'application/json'],
  [ContentType.msgpack, 'application/msgpack'],
  [ContentType.cbor, 'application/cbor'],
  [ContentType.bson, 'application/bson'],
  [ContentType.avro, 'application/avro'],
  [ContentType.protobuf, 'application/protobuf'],
  [ContentType.arrow, 'application/vnd.apache.arrow.stream'],
  [ContentType.ref, 'application/x-agdx-ref'],
  [ContentType.any, '*/*'],
]);

/** The A2A media type of a capability's content reference. */
export function contentRefMode(ref: ContentRef): string {
  if (ref.kind === 'schemaId') return `application/x-agdx-schema;id=${ref.schemaId}`;
  return CONTENT_TYPE_MODES.get(ref.contentType) ?? `application/x-agdx-ct;code=${ref.contentType}`;
}

/** An A2A skill for a capability descriptor. */
export function skillFromCapability(capability: CapabilityDescriptor): A2aAgentSkill {
  return {
    id: capability.skillId,
    name: capability.skillId,
    description: '',
    tags: [],
    ...(capability.input !== undefined ? { inputModes: [contentRefMode(capability.input)] } : {}),
    ...(capability.output !== undefined ? { outputModes: [contentRefMode(capability.output)] } : {}),
  };
}

/** The card of a bridge named `name`, advertising `capabilities` as skills. */
export function buildAgentCard(name: string, capabilities: readonly CapabilityDescriptor[], url: string = '/'): A2aAgentCard {
  return {
    name,
    description: A2A_CARD_DESCRIPTION,
    version: SDK_VERSION,
    supportedInterfaces: [{ url, protocolBinding: A2A_JSONRPC_BINDING, protocolVersion: A2A_PROTOCOL_VERSION }],
    capabilities: { streaming: true, pushNotifications: false, stateTransitionHistory: false, extendedAgentCard: false },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: capabilities.map(skillFromCapability),
  };
}
