/**
 * Names shared by evidence processing (`src/collection/evidence/`), the document mapper and
 * ranking. Clicks become evidence in two ways: the queries that led to clicks on a result
 * are indexed into its `K` class (so it rises for those queries), and their decayed total is
 * a query-independent boost (`$clicks`). Anchor text of links pointing at a document is
 * indexed into class `k` (used in ranking with `-anniemode=3`).
 */
export const CLICK_FIELD = 'K';
export const CLICK_SCORE_FIELD = '$clicks';
/** Anchor text of links pointing at a document is indexed into class `k`. */
export const ANCHOR_FIELD = 'k';
/**
 * Stored value: a fingerprint of the evidence a document was indexed with. Evidence updates
 * compare it with today's evidence and re-index only the documents whose evidence changed;
 * absent when the document was indexed without evidence.
 */
export const EVIDENCE_STORED_FIELD = 'evidence';

/** Clicks lose half their weight in this many days (`push.click-logs.half-life-days`). */
export const DEFAULT_CLICK_HALF_LIFE_DAYS = 30;
