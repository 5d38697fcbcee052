/** Test support: a bootstrapped client over MemoryLog and readers for what a model call wrote. */
import { AgdxClient, readAgentMessage, type AgdxClientOptions } from '@agdx/agents';
import { MemoryLog, type LogRecord, type LogTransport } from '@agdx/transport';
import { ChunkAssembler, type AgentEnvelope } from '@agdx/wire';

export const STREAM = 'demo';
export const text = new TextEncoder();
export const decode = (bytes: Uint8Array): string => new TextDecoder().decode(bytes);

/** A client over a fresh MemoryLog (stream `demo`, 2 partitions). */
export async function memoryClient(options: AgdxClientOptions = {}, transport: LogTransport = new MemoryLog()): Promise<{ laser: AgdxClient; log: LogTransport }> {
  const laser = AgdxClient.from(transport, { stream: STREAM, ...options });
  await laser.bootstrap(2);
  return { laser, log: transport };
}

/** Every record of a topic, partition by partition, in offset order. */
export async function readAll(log: LogTransport, topic: string): Promise<LogRecord[]> {
  const description = await log.describeTopic({ stream: STREAM, topic });
  const out: LogRecord[] = [];
  for (const p of description.partitions) out.push(...(await log.read({ stream: STREAM, topic, partition: p.partition, offset: 0n, maxCount: 100_000 })));
  return out;
}

/** The envelopes of a topic, in log order. */
export async function envelopes(log: LogTransport, topic: string): Promise<AgentEnvelope[]> {
  return (await readAll(log, topic)).map((record) => readAgentMessage(record, { stream: STREAM, topic }).envelope!);
}

/** One reassembled chunk stream. */
export interface Channel {
  readonly purpose: string | undefined;
  readonly tool: string | undefined;
  readonly text: string;
  readonly chunks: number;
  readonly finishReason: string | undefined;
  readonly usage: unknown;
  readonly failed: Uint8Array | undefined;
}

/** The chunk streams among `all`, by channel, reassembled with wire's assembler (opening order). */
export function channels(all: readonly AgentEnvelope[]): Channel[] {
  const byChannel = new Map<string, AgentEnvelope[]>();
  for (const envelope of all) {
    if (envelope.channel === undefined) continue;
    const key = envelope.channel.toString();
    byChannel.set(key, [...(byChannel.get(key) ?? []), envelope]);
  }
  return [...byChannel.values()].map((list) => {
    const assembler = new ChunkAssembler();
    let body = '';
    let finishReason: string | undefined;
    let usage: unknown;
    let failed: Uint8Array | undefined;
    for (const envelope of list) {
      for (const event of assembler.feed(envelope)) {
        if (event.kind === 'body') body += decode(event.payload);
        if (event.kind === 'finished') {
          finishReason = event.finishReason;
          usage = event.usage;
        }
        if (event.kind === 'failed') failed = event.body;
      }
    }
    const opening = list.find((envelope) => envelope.sequence === 0n);
    return { purpose: opening?.operation, tool: opening?.tool, text: body, chunks: list.filter((e) => e.kind === 'chunk').length, finishReason, usage, failed };
  });
}
