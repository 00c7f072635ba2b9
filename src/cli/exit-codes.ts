import { PushApiError } from '../client/push-api-error.js';
import { SearchError, isSearchError } from '../errors.js';

/**
 * Exit codes of every `pushsearch` command. Scripts rely on them: never renumber, only add.
 */
export const EXIT = Object.freeze({
  /** Done. */
  OK: 0,
  /** The server refused or failed the request (any error not listed below), or a local failure. */
  ERROR: 1,
  /** Wrong command line: unknown command or option, missing argument, bad value. */
  USAGE: 2,
  /** Something named does not exist: collection, document, snapshot, user (HTTP 404). */
  NOT_FOUND: 3,
  /** Not authenticated or not allowed (HTTP 401, 403). */
  AUTH: 4,
  /** The collection's state or an existing name forbids it (HTTP 409). */
  CONFLICT: 5,
  /** The server cannot be reached, or is unavailable (connection failure, HTTP 503). */
  UNAVAILABLE: 6,
  /** `load` finished, but some documents were not stored. */
  PARTIAL: 7,
  /** Stopped by Ctrl-C (SIGINT) or SIGTERM after reporting what was done (`load`). */
  INTERRUPTED: 130,
});

/** A command-line mistake: printed with the command's help, exit {@link EXIT.USAGE}. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** The exit code for an error a command threw. */
export function exitCodeFor(error: unknown): number {
  if (error instanceof UsageError) return EXIT.USAGE;
  if (error instanceof PushApiError) {
    if (error.status === 0 || error.status === 503) return EXIT.UNAVAILABLE;
    if (error.status === 404) return EXIT.NOT_FOUND;
    if (error.status === 401 || error.status === 403) return EXIT.AUTH;
    if (error.status === 409) return EXIT.CONFLICT;
    return EXIT.ERROR;
  }
  if (isSearchError(error) && /_NOT_FOUND$/.test(error.code)) return EXIT.NOT_FOUND;
  if (isSearchError(error) && /_EXISTS$/.test(error.code)) return EXIT.CONFLICT;
  return EXIT.ERROR;
}

/** One line for stderr. */
export function describeError(error: unknown): string {
  if (error instanceof PushApiError)
    return `${error.code} (${error.status === 0 ? 'no answer' : `HTTP ${error.status}`}): ${error.message}`;
  if (error instanceof SearchError) return `${error.code}: ${error.message}`;
  return (error as Error)?.message ?? String(error);
}
