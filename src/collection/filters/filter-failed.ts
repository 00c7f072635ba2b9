import { SearchError } from '../../errors.js';

/**
 * The error every filter throws when it cannot read a document: code `FILTER_FAILED`, the
 * message names the filter and what is wrong with the document, `details.filter` the filter.
 */
export function filterFailed(
  filter: string,
  problem: string,
  options?: { cause?: unknown; details?: Record<string, unknown> },
): SearchError {
  return new SearchError('FILTER_FAILED', `${filter} filter cannot read the document: ${problem}`, {
    cause: options?.cause,
    details: { filter, ...options?.details },
  });
}
