/**
 * The one table from error code (`SearchError.code`) to HTTP status. Every route answers
 * errors as `{"status", "error": code, "message"}` with the status from here, so a code
 * means the same status everywhere. Codes are stable: add new ones, never rename.
 */

/** Every documented error code, with the HTTP status it is answered with. */
const STATUS_BY_CODE = {
  // 400: the request (or a configuration file sent through the admin API) is wrong; the
  // message says what to change.
  KEY_MISSING: 400,
  KEY_INVALID: 400,
  KEY_TOO_LONG: 400,
  METADATA_INVALID: 400,
  BODY_INVALID: 400,
  BODY_TIMEOUT: 408,
  // A document body arriving slower than server.body-min-bytes-per-second.
  BODY_TOO_SLOW: 408,
  REQUEST_TIMEOUT: 408,
  REQUEST_INVALID: 400,
  HEADERS_TOO_LARGE: 431,
  MULTIPART_INVALID: 400,
  FILTER_FAILED: 400,
  CONFIG_INVALID: 400,
  QUERY_INVALID: 400,
  ANALYZER_OPTIONS_INVALID: 400,
  REDIRECT_INVALID: 400,
  NAME_INVALID: 400,
  COLLECTION_NAME_INVALID: 400,
  // A collection name that is one of the home's own files in conf/ (global.cfg, users.json...).
  COLLECTION_NAME_RESERVED: 400,
  SNAPSHOT_NAME_INVALID: 400,
  FILTER_UNKNOWN: 400,
  PARAMETER_INVALID: 400,
  USER_NAME_INVALID: 400,
  // A password too short or too long, or missing for a new user.
  PASSWORD_INVALID: 400,
  // 401/403: authentication and authorisation.
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  // 404: something named in the path or the key does not exist.
  COLLECTION_NOT_FOUND: 404,
  DOCUMENT_NOT_FOUND: 404,
  SNAPSHOT_NOT_FOUND: 404,
  USER_NOT_FOUND: 404,
  API_TOKEN_NOT_FOUND: 404,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  // 409: valid request, but the collection is in a state that does not allow it.
  WRONG_STATE: 409,
  COLLECTION_EXISTS: 409,
  SNAPSHOT_EXISTS: 409,
  // A write to a query processor (mode SLAVE): the message names its master, which takes it.
  COLLECTION_READ_ONLY: 409,
  // push.run=false in the collection's collection.cfg: it does not run (searches still do).
  COLLECTION_DISABLED: 409,
  API_TOKEN_EXISTS: 409,
  // A snapshot folder that holds no complete index (e.g. copied by hand, half-way).
  SNAPSHOT_INVALID: 409,
  // A snapshot file whose checksum does not match (restore refused, live untouched).
  SNAPSHOT_CORRUPT: 409,
  // Deleting or demoting the last user with sec.administer would lock everybody out.
  LAST_ADMINISTRATOR: 409,
  BODY_TOO_LARGE: 413,
  JOURNAL_RECORD_TOO_LARGE: 413,
  // A document's metadata over a limit of metadata-limits.ts (bytes, names, values per name).
  METADATA_TOO_LARGE: 413,
  METADATA_TOO_MANY_NAMES: 413,
  METADATA_TOO_MANY_VALUES: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  // A request body in a Content-Encoding other than gzip, deflate or br (or in several).
  CONTENT_ENCODING_UNSUPPORTED: 415,
  // Too many failed logins for a user or from an address (the route adds Retry-After).
  MERGE_BUSY: 409,
  LOGIN_RATE_LIMITED: 429,
  // More /s/redirect requests from one address than search.clicks.max-per-minute (with Retry-After).
  CLICK_RATE_LIMITED: 429,
  INDEX_CORRUPT: 500,
  COMMIT_FAILED: 500,
  MERGE_FAILED: 500,
  MERGE_ABORTED: 500,
  JOURNAL_BEHIND: 500,
  JOURNAL_BAD_OPTIONS: 500,
  JOURNAL_CORRUPT: 500,
  JOURNAL_RECORDS_RELEASED: 500,
  JOURNAL_UNSUPPORTED_VERSION: 500,
  EVIDENCE_CORRUPT: 500,
  SCORING_OPTIONS_INVALID: 500,
  INDEX_WORKER_FAILED: 500,
  // conf/users.json is damaged: the server does not start.
  USERS_FILE_CORRUPT: 500,
  // Another server holds $SEARCH_HOME: this one does not start.
  HOME_IN_USE: 500,
  INTERNAL: 500,
  // 503: try again later (the route adds Retry-After).
  UPGRADE_PREPARING: 503,
  UPGRADE_NOT_STARTED: 503,
  GENERATION_LIMIT: 503,
  COLLECTION_FAILED: 503,
  // The collection's configuration files on disk do not load (edited by hand): fix them.
  COLLECTION_CONFIG_BROKEN: 503,
  // The collection is stopping or the index closed under the request: retry.
  INDEX_CLOSED: 503,
  JOURNAL_CLOSED: 503,
  // Every search thread is busy and search.queue-size queries wait already.
  SEARCH_OVERLOADED: 503,
  // The query waited for a thread, or ran, past search.timeout-ms without an answer.
  SEARCH_TIMEOUT: 503,
  // The search thread running the query died (it is replaced); the query was not answered.
  SEARCH_THREAD_FAILED: 503,
  INSUFFICIENT_STORAGE: 507,
  // Replication between servers (src/replication/, /replication/v1).
  // A sync request without the signature headers, or signed with another server_secret.
  SYNC_SIGNATURE_MISSING: 401,
  SYNC_SIGNATURE_INVALID: 403,
  // The sync request's time is too far from this server's clock (replayed, or clocks apart).
  SYNC_SIGNATURE_STALE: 403,
  // This server has no server_secret in global.cfg: it cannot serve or sign sync requests.
  SYNC_NOT_CONFIGURED: 503,
  // The state a query processor was copying is no longer kept: it asks for the current one.
  SYNC_STATE_GONE: 410,
  // A query processor asked for a state before it had installed one itself (chains).
  SYNC_NOTHING_TO_SERVE: 409,
  SYNC_BUSY: 409,
  RANGE_NOT_SATISFIABLE: 416,
  // The journal could not make the change durable (disk full, I/O error): nothing was stored.
  JOURNAL_WRITE_FAILED: 507,
  // Never answered by the server: the command line's load source and the client library's
  // own failures (no answer, an answer that is not what the API documents).
  LOAD_SOURCE_INVALID: 400,
  // `load --resume`: the state file is unreadable, or belongs to another source, collection or server.
  LOAD_STATE_INVALID: 400,
  LOAD_STATE_MISMATCH: 409,
  CONNECTION_FAILED: 502,
  RESPONSE_INVALID: 502,
} as const satisfies Record<string, number>;

/** A documented error code. */
export type ErrorCode = keyof typeof STATUS_BY_CODE;

/** Every documented error code, in table order (for the OpenAPI document and tests). */
export const ERROR_CODES: readonly ErrorCode[] = Object.freeze(Object.keys(STATUS_BY_CODE) as ErrorCode[]);

/** True when `code` is one of the documented codes. */
export function isErrorCode(code: string): code is ErrorCode {
  return Object.prototype.hasOwnProperty.call(STATUS_BY_CODE, code);
}

/**
 * The HTTP status for an error code. Unknown codes answer 500: an error nobody documented
 * is a bug of ours, not of the client.
 */
export function statusForCode(code: string): number {
  return isErrorCode(code) ? STATUS_BY_CODE[code] : 500;
}
