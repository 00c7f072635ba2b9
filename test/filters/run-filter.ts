import assert from 'node:assert/strict';
import { isSearchError, type SearchError } from '../../src/errors.js';
import { runFilterChain } from '../../src/collection/filters/filter-chain.js';
import type { FilteredDocument } from '../../src/collection/filters/filtered-document.js';
import type { XmlConfigLike } from '../../src/collection/filters/xml-config-like.js';

/** The key test documents live at unless a test says otherwise. */
export const KEY = 'http://example.com/a/b/page.html';

/** Runs the filter chain on a string (UTF-8 encoded) or bytes. */
export function runFilters(
  content: string | Uint8Array,
  contentType: string,
  options: {
    chain?: string;
    xmlConfig?: XmlConfigLike;
    htmlElements?: ReadonlySet<string>;
    key?: string;
    onSkipped?: (filter: string, reason: string) => void;
  } = {},
): FilteredDocument {
  const bytes = typeof content === 'string' ? new TextEncoder().encode(content) : content;
  return runFilterChain(
    { key: options.key ?? KEY, content: bytes, contentType, metadata: {} },
    options.chain,
    { xmlConfig: options.xmlConfig, htmlElements: options.htmlElements, onSkipped: options.onSkipped },
  );
}

/** Asserts that `fn` throws a SearchError with `code`, and returns it for further checks. */
export function expectSearchError(fn: () => unknown, code: string): SearchError<string> {
  let thrown: unknown;
  try {
    fn();
  } catch (e) {
    thrown = e;
  }
  assert.ok(isSearchError(thrown), `expected a SearchError ${code}, got ${String(thrown)}`);
  assert.equal(thrown.code, code, thrown.message);
  return thrown;
}
