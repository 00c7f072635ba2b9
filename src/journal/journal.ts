/**
 * The journal holds every accepted change that is not yet committed into the index. It is
 * the one place that decides "durable": a push API request gets its 200 only after
 * {@link Journal.append} resolved. The contract, for every implementation (the file journal
 * today, a PostgreSQL journal for scale-out later):
 *
 * - Records are opaque bytes; the collection layer encodes and decodes them.
 * - Sequence numbers are assigned in append order, start after the journal's first
 *   sequence number and are contiguous: a record that was not made durable (its append
 *   rejected) leaves no hole, its number is reused by the next record.
 * - `append` resolves only once the record is durable; a rejected append was not
 *   acknowledged and must not be reported as accepted. Many concurrent appends share one
 *   flush to disk (group commit), so callers should not batch on their own.
 * - Each published index manifest records the last sequence number it contains. At start
 *   the owner replays from there ({@link Journal.replay}), so committed changes are never
 *   applied twice, and after publishing a manifest it calls {@link Journal.releaseThrough}
 *   so the journal may drop what the index now holds.
 * - The owner checks `lastSeq >= manifestSeq` at start: a smaller value means the journal
 *   folder was replaced or lost, and new numbers would collide with indexed ones.
 */
export interface Journal {
  /** Appends; resolves with the record's sequence number once it is durable (fsynced). */
  append(payload: Uint8Array): Promise<number>;
  /** Calls onRecord for every durable record with seq > afterSeq, in order. */
  replay(afterSeq: number, onRecord: (seq: number, payload: Uint8Array) => void): Promise<void>;
  /** Everything with seq <= seq is in a published index manifest: whole segments at or below it may be deleted. */
  releaseThrough(seq: number): Promise<void>;
  /** Highest sequence number made durable. */
  readonly lastSeq: number;
  readonly stats: JournalStats;
  close(): Promise<void>;
}

/**
 * Counters since the journal was opened (bleve's `Tot*` style), shown by the admin UI.
 * `appends / fsyncs` is the group-commit factor: records made durable per flush.
 */
export interface JournalStats {
  /** Records made durable (acknowledged). */
  appends: number;
  /** Flushes to disk that made at least one batch of records durable. */
  fsyncs: number;
  /** Bytes made durable, record framing included. */
  bytes: number;
  /** Duration of the last flush to disk in milliseconds (a gauge, for slow-disk alerts). */
  lastFsyncMs: number;
}
