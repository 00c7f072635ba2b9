import assert from 'node:assert/strict';
import { SearchError } from '../../src/errors.js';
import type { SearchIndex } from '../../src/index/search-index.js';

/** The keys among `keys` that the index's current point in time holds, in the order given. */
export function committedKeys(index: SearchIndex, keys: readonly string[]): string[] {
  const searcher = index.acquireSearcher();
  try {
    return keys.filter((key) => searcher.getDocument(key) !== undefined);
  } finally {
    searcher.release();
  }
}

/** The `SearchError` a promise rejects with; fails the test when it resolves or rejects with anything else. */
export async function searchErrorOf(promise: Promise<unknown>): Promise<SearchError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof SearchError, String(error));
    return error;
  }
  return assert.fail('expected a rejection');
}
