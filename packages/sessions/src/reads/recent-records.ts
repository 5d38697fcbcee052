import type { RecordId } from '@agdx/wire';

/**
 * Envelope record ids a session fold remembers per session to recognise a redelivered record: a
 * producer that retries an append after a timeout writes the same envelope (the same record id)
 * again, usually before it writes anything else for the session. Kept small so a fold of many
 * sessions stays small and each record costs a few id comparisons; a copy that arrives after this
 * many newer records of its session is counted again.
 */
export const RECENT_RECORDS_PER_SESSION = 16;

/** The newest {@link RECENT_RECORDS_PER_SESSION} record ids of one session. */
export class RecentRecords {
  // the ids themselves, compared word by word: no text is made per record
  readonly #ring: RecordId[] = [];
  #next = 0;

  /** Remembers `id` and says whether it was already among the newest ids. */
  seen(id: RecordId): boolean {
    const ring = this.#ring;
    for (let i = 0; i < ring.length; i++) if ((ring[i] as RecordId).equals(id)) return true;
    if (ring.length < RECENT_RECORDS_PER_SESSION) ring.push(id);
    else {
      ring[this.#next] = id;
      this.#next = (this.#next + 1) % RECENT_RECORDS_PER_SESSION;
    }
    return false;
  }
}
