import { chainExtractsBinary, parseFilterChain } from '../filter-chain.js';
import { sharedBinaryExtractor } from './binary-extractor.js';
import { binaryKindOf } from './binary-kind.js';

/**
 * The extracted HTML of a pushed PDF or Office Open XML document whose filter chain extracts
 * binary documents (`TikaFilterProvider`, or `Auto`); undefined for every other document.
 * Runs in a worker thread; rejects with `FILTER_FAILED` when the file cannot be read.
 */
export async function extractBinary(
  key: string,
  input: { content: Uint8Array; contentType: string },
  chainSpec: string | undefined,
): Promise<string | undefined> {
  const kind = binaryKindOf(input.contentType, key, input.content);
  if (kind === undefined || !chainExtractsBinary(parseFilterChain(chainSpec))) return undefined;
  return sharedBinaryExtractor().extract(kind, input.content);
}
