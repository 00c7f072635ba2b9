/**
 * Names shared by click-log processing and ranking. Clicks become evidence in two ways:
 * the queries that led to clicks on a result are indexed into its `K` class (so it rises for
 * those queries), and their decayed total is a query-independent boost (`$clicks`).
 */
export const CLICK_FIELD = 'K';
export const CLICK_SCORE_FIELD = '$clicks';
/** Anchor text of links pointing at a document is indexed into class `k`. */
export const ANCHOR_FIELD = 'k';
