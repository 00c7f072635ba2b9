import { SearchError } from '../errors.js';

/**
 * Limits on the metadata of one document, the same for metadata headers and the metadata part
 * of content-and-metadata. They bound the memory and event-loop time one push can cost: a
 * metadata part of a million names once took 8.7 s of event loop and 1.2 GB. Each limit is
 * checked before the work it bounds (the byte limit before the JSON is decoded, the others
 * while names and values are collected), and each has its own stable code, all answered 413.
 */
export const METADATA_LIMITS = Object.freeze({
  /** Bytes of metadata: the metadata part's size, or the sum of header names and values. */
  maxBytes: 1024 * 1024,
  /** Distinct metadata names. */
  maxNames: 1000,
  /** Values of one name. */
  maxValuesPerName: 1000,
});

/** Throws `METADATA_TOO_LARGE` when `bytes` of metadata exceed the limit. */
export function checkMetadataBytes(bytes: number, where: string): void {
  if (bytes > METADATA_LIMITS.maxBytes) {
    throw new SearchError(
      'METADATA_TOO_LARGE',
      `${where} holds ${bytes} bytes of metadata; at most ${METADATA_LIMITS.maxBytes} are allowed`,
      { details: { limit: METADATA_LIMITS.maxBytes } },
    );
  }
}

/** Throws `METADATA_TOO_MANY_NAMES` when a document would get more than the allowed names. */
export function checkMetadataNameCount(count: number): void {
  if (count > METADATA_LIMITS.maxNames) {
    throw new SearchError(
      'METADATA_TOO_MANY_NAMES',
      `the metadata has more than ${METADATA_LIMITS.maxNames} names; at most ${METADATA_LIMITS.maxNames} are allowed`,
      { details: { limit: METADATA_LIMITS.maxNames } },
    );
  }
}

/** Throws `METADATA_TOO_MANY_VALUES` when `name` would get more than the allowed values. */
export function checkMetadataValueCount(name: string, count: number): void {
  if (count > METADATA_LIMITS.maxValuesPerName) {
    throw new SearchError(
      'METADATA_TOO_MANY_VALUES',
      `the metadata name ${JSON.stringify(name.slice(0, 100))} has more than ${METADATA_LIMITS.maxValuesPerName} values; ` +
        `at most ${METADATA_LIMITS.maxValuesPerName} are allowed`,
      { details: { name: name.slice(0, 100), limit: METADATA_LIMITS.maxValuesPerName } },
    );
  }
}
