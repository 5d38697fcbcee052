import { ChunkAssembler, type AssemblerRecord, type ChunkEvent } from './assembler.js';

interface IdLike {
  toString(): string;
}

/** A record as {@link reassembleChannel} needs it: assembler fields plus its routing ids. */
export interface ChannelRecord<U = unknown> extends AssemblerRecord<U> {
  /** The record's conversation. */
  readonly conversation: IdLike;
  /** The record's chunk channel. */
  readonly channel?: IdLike | undefined;
}

/** What {@link reassembleChannel} produced. */
export interface ReassembledChannel<U = unknown> {
  /** Every event, in order. */
  readonly events: readonly ChunkEvent<U>[];
  /** The delivered bodies concatenated. */
  readonly payload: Uint8Array;
  /** True when the stream reached an end (terminal, error or gap). */
  readonly finished: boolean;
  /** Duplicates dropped. */
  readonly duplicatesDropped: bigint;
  /** Records dropped after the end. */
  readonly lateDropped: bigint;
}

/**
 * Replays a log slice for one channel: keeps the chunks and errors of `conversation` +
 * `channel`, sorts them by sequence (so reordering on the log is tolerated; an error without a
 * sequence goes last) and feeds them to a fresh {@link ChunkAssembler}.
 */
export function reassembleChannel<U = unknown>(
  records: Iterable<ChannelRecord<U>>,
  conversation: { toString(): string },
  channel: { toString(): string },
): ReassembledChannel<U> {
  const conv = conversation.toString();
  const chan = channel.toString();
  const kept = [...records]
    .map((record, index) => ({ record, index }))
    .filter(({ record }) => (record.kind === 'chunk' || record.kind === 'error') && record.conversation.toString() === conv && record.channel?.toString() === chan);
  kept.sort((a, b) => {
    const sa = a.record.sequence;
    const sb = b.record.sequence;
    if (sa === undefined || sb === undefined) return sa === sb ? a.index - b.index : sa === undefined ? 1 : -1;
    return sa < sb ? -1 : sa > sb ? 1 : a.index - b.index;
  });
  const assembler = new ChunkAssembler<U>();
  const events: ChunkEvent<U>[] = [];
  for (const { record } of kept) events.push(...assembler.feed(record));
  const bodies = events.flatMap((e) => (e.kind === 'body' ? [e.payload] : []));
  const payload = new Uint8Array(bodies.reduce((n, b) => n + b.length, 0));
  let at = 0;
  for (const b of bodies) {
    payload.set(b, at);
    at += b.length;
  }
  return { events, payload, finished: assembler.isFinished, duplicatesDropped: assembler.duplicatesDropped, lateDropped: assembler.lateDropped };
}
