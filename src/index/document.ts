/** A value kept with a document and returned with hits and by get(). */
export type StoredValue = string | string[] | Uint8Array | number;
export type StoredRecord = Record<string, StoredValue>;

/**
 * One document as the engine indexes it. The collection layer decides what goes where
 * (filters, metadata mapping); the engine only knows fields.
 *
 * - `fields`: text by field name, analysed with that field's analyzer. Names starting with
 *   `$` are keyword fields: each value is one exact term (no analysis, no positions, no
 *   lengths), e.g. `$gscope` or facet values.
 * - `numbers`: one number per numeric field (range filters, dates, sorting).
 * - `stored`: returned as is with hits and by get().
 */
export interface DocumentInput {
  key: string;
  fields: Record<string, string | readonly string[]>;
  numbers?: Record<string, number>;
  stored?: StoredRecord;
}

/** The reserved keyword field holding each document's key (one term per document). */
export const KEY_FIELD = '$key';

export function isKeywordField(field: string): boolean {
  return field.charCodeAt(0) === 36; // '$'
}
