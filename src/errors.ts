/**
 * The one base error of the project. Every error a user can see carries a stable,
 * upper-case `code` (documented, never renamed) and a message that says what to fix.
 * The HTTP status for each code is decided in one place: `src/http/error-status.ts`.
 */
export class SearchError extends Error {
  readonly code: string;
  readonly details: Record<string, unknown> | undefined;

  constructor(code: string, message: string, options?: { cause?: unknown; details?: Record<string, unknown> }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'SearchError';
    this.code = code;
    this.details = options?.details;
  }
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
