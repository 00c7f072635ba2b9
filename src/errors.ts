// The codes are the keys of the status table, so a code missing from it
// fails to compile.
import type { ErrorCode } from './error-status.js';

export type { ErrorCode };

/**
 * The one base error of the project. Every error a user can see carries a stable,
 * upper-case `code` (documented, never renamed) and a message that says what to fix.
 * The HTTP status for each code is decided in one place: `src/error-status.ts`, whose
 * keys are the type of `code` (`Code` is wider only for the client's {@link PushApiError}-like
 * errors, which carry codes a newer server may send).
 */
export class SearchError<Code extends string = ErrorCode> extends Error {
  readonly code: Code;
  readonly details: Record<string, unknown> | undefined;

  constructor(code: Code, message: string, options?: { cause?: unknown; details?: Record<string, unknown> }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'SearchError';
    this.code = code;
    this.details = options?.details;
  }
}

/**
 * `error instanceof SearchError`, with the code typed: `instanceof` on a generic class
 * narrows to `SearchError<any>`. The code is a `string`, not an {@link ErrorCode}: a client's
 * error (a `SearchError<string>`) carries whatever code the server sent.
 */
export function isSearchError(error: unknown): error is SearchError<string> {
  return error instanceof SearchError;
}

/** A file of the index is unreadable: wrong header, bad checksum, truncated. Names the file. */
export class CorruptIndexError extends SearchError {
  readonly file: string;
  constructor(file: string, problem: string, options?: { cause?: unknown }) {
    super('INDEX_CORRUPT', `index file ${file} is corrupt: ${problem}`, { ...options, details: { file } });
    this.name = 'CorruptIndexError';
    this.file = file;
  }
}

/** Error codes of a full disk or an exhausted quota. */
const DISK_FULL_CODES = new Set(['ENOSPC', 'EDQUOT']);

/** True when an error (or one of its causes) says the disk is full. */
export function isDiskFull(error: unknown): boolean {
  for (let e = error, depth = 0; e !== undefined && e !== null && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && DISK_FULL_CODES.has(code)) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

/**
 * The error a user sees when `action` failed because the disk is full (507): nothing
 * half-written is kept, and the same call works again once there is space.
 */
export function diskFullError(action: string, cause: unknown): SearchError {
  return new SearchError(
    'INSUFFICIENT_STORAGE',
    `${action} failed: the disk is full (no space left on the device of SEARCH_HOME). ` +
      'Nothing was half-written; free some space and retry.',
    { cause },
  );
}
