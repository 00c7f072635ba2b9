import type { StoredRecord } from '../index/document.js';
import type { Searcher } from '../index/searcher.js';
import { documentView, type DocumentView } from './stored-document.js';

/** Where committed documents are read: an admin's index, or a query processor's replica. */
interface CommittedDocuments {
  acquireSearcher(): Searcher;
}

/** An admin's index: committed documents, and the changes staged since its last commit. */
interface StagedDocuments extends CommittedDocuments {
  /** The staged record of `key`; null when a delete is staged; undefined when nothing is. */
  stagedDocument(key: string): StoredRecord | null | undefined;
}

/**
 * The document `key` as pushed (`GET documents` on an admin): its staged version first
 * (`committed: false`), else the committed one; null when absent or when its delete is staged.
 */
export function lookUpDocument(index: StagedDocuments, key: string): DocumentView | null {
  const staged = index.stagedDocument(key);
  if (staged === null) return null;
  if (staged !== undefined) return documentView(key, staged, false);
  return lookUpCommitted(index, key);
}

/**
 * The committed document `key` as pushed; null when absent. What a query processor answers:
 * it has only the documents its master published.
 */
export function lookUpCommitted(source: CommittedDocuments, key: string): DocumentView | null {
  const searcher = source.acquireSearcher();
  try {
    const found = searcher.getDocument(key);
    return found === null ? null : documentView(key, found.record, true);
  } finally {
    searcher.release();
  }
}
