import { isSearchError } from '../errors.js';
import { UPGRADE_RETRY_AFTER_SECONDS } from '../collection/collection-manager.js';
import { statusForCode } from '../error-status.js';

/** The JSON body of every error answer. */
export interface ErrorBody {
  status: number;
  error: string;
  message: string;
}

/** How to answer an error: status, body, extra headers, and whether it is our bug. */
export interface ErrorReply {
  status: number;
  body: ErrorBody;
  headers: Record<string, string>;
  /** True for failures that are not the client's (5xx, except the planned refusals of an upgrade preparation): they go to push.log with the request id. */
  internal: boolean;
}

/** Fastify's own error codes that are the client's doing, with our stable code for each. */
const FASTIFY_CODES: Readonly<Record<string, { code: string; message?: string }>> = {
  FST_ERR_CTP_BODY_TOO_LARGE: { code: 'BODY_TOO_LARGE' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: {
    code: 'UNSUPPORTED_MEDIA_TYPE',
    message: 'the Content-Type of the request is not accepted by this endpoint',
  },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: {
    code: 'BODY_INVALID',
    message: 'the body is not as long as its Content-Length says',
  },
  FST_ERR_CTP_EMPTY_JSON_BODY: {
    code: 'BODY_INVALID',
    message: 'the body is empty but the Content-Type says JSON: send a JSON body',
  },
  FST_ERR_CTP_INVALID_JSON_BODY: { code: 'BODY_INVALID', message: 'the body is not valid JSON' },
  FST_ERR_BAD_URL: {
    code: 'PARAMETER_INVALID',
    message: 'the URL is malformed (check its percent-encoding)',
  },
  FST_ERR_MAX_PARAM_LENGTH: {
    code: 'PARAMETER_INVALID',
    message:
      'a name in the path is longer than 256 characters (collection and snapshot names have at most 128, user names 64)',
  },
  FST_ERR_ASYNC_CONSTRAINT: { code: 'PARAMETER_INVALID' },
};

/**
 * 5xx codes that are planned refusals, not failures: an installation prepared for an upgrade
 * refuses writes, and its status call answers 503 until preparation starts. They are not
 * written to push.log (a client retrying would fill it with stacks).
 */
const PLANNED_REFUSALS: ReadonlySet<string> = new Set([
  'UPGRADE_PREPARING',
  'UPGRADE_NOT_STARTED',
  'SEARCH_OVERLOADED',
  'SEARCH_TIMEOUT',
]);

/** Seconds a client is told to wait, per code, when the error itself does not say. */
const DEFAULT_RETRY_AFTER: Readonly<Record<string, number>> = {
  UPGRADE_PREPARING: UPGRADE_RETRY_AFTER_SECONDS,
};

/**
 * Turns anything a route throws into the answer the API contract fixes:
 * `{"status", "error": CODE, "message"}`.
 * - `SearchError`: its code, the status from `statusForCode`, its message; `Retry-After` from
 *   `details.retryAfter` (503 while preparing for an upgrade); `WWW-Authenticate` on 401.
 * - Fastify's schema validation errors: `KEY_MISSING` when the `key` parameter is missing,
 *   else `PARAMETER_INVALID` with Fastify's description of the bad parameter.
 * - Fastify's body and URL errors: the stable codes of {@link FASTIFY_CODES}.
 * - Anything else: `500 INTERNAL` with a message that names the request id but never the
 *   error's own text or stack (they can hold paths and internals); the caller logs it.
 */
export function errorReply(error: unknown, requestId: string, maxRequestBytes?: number): ErrorReply {
  if (isSearchError(error)) {
    const status = statusForCode(error.code);
    const headers: Record<string, string> = {};
    const retryAfter =
      error.details?.retryAfter ?? (status === 503 ? DEFAULT_RETRY_AFTER[error.code] : undefined);
    if (typeof retryAfter === 'number' && retryAfter >= 0)
      headers['retry-after'] = String(Math.ceil(retryAfter));
    if (status === 401) headers['www-authenticate'] = 'Basic realm="search"';
    return {
      status,
      body: { status, error: error.code, message: error.message },
      headers,
      internal: status >= 500 && !PLANNED_REFUSALS.has(error.code),
    };
  }

  const e = error as {
    code?: unknown;
    statusCode?: unknown;
    validation?: unknown;
    validationContext?: unknown;
    message?: unknown;
  };
  if (Array.isArray(e?.validation)) {
    const items = e.validation as { params?: { missingProperty?: unknown; allowedValues?: unknown } }[];
    const missingKey = items.some((v) => v.params?.missingProperty === 'key');
    const code = missingKey ? 'KEY_MISSING' : 'PARAMETER_INVALID';
    const allowed = items.find((v) => Array.isArray(v.params?.allowedValues))?.params?.allowedValues as
      unknown[] | undefined;
    const message = missingKey
      ? 'the key is missing: pass the document URI, URL-encoded, as the key query parameter, e.g. ?key=https%3A%2F%2Fexample.com%2Fpage'
      : `invalid request: ${String(e.message)}${allowed === undefined ? '' : ` (${allowed.join(', ')})`}`;
    return { status: 400, body: { status: 400, error: code, message }, headers: {}, internal: false };
  }

  const known = typeof e?.code === 'string' ? FASTIFY_CODES[e.code] : undefined;
  if (known !== undefined) {
    const status = statusForCode(known.code);
    const message =
      known.code === 'BODY_TOO_LARGE'
        ? `the body is larger than ${maxRequestBytes === undefined ? 'the limit' : `${maxRequestBytes} bytes`} (push.max-request-bytes in conf/global.cfg)`
        : (known.message ?? String(e.message));
    return { status, body: { status, error: known.code, message }, headers: {}, internal: false };
  }

  // Other client errors Fastify or Node raise (an aborted body, a bad header): a 4xx of
  // theirs stays a 4xx, with a generic code.
  const statusCode = typeof e?.statusCode === 'number' ? e.statusCode : 500;
  if (statusCode >= 400 && statusCode < 500) {
    const code =
      statusCode === 404
        ? 'NOT_FOUND'
        : statusCode === 413
          ? 'BODY_TOO_LARGE'
          : statusCode === 415
            ? 'UNSUPPORTED_MEDIA_TYPE'
            : 'BODY_INVALID';
    const status = statusForCode(code);
    return {
      status,
      body: { status, error: code, message: `bad request: ${String(e.message)}` },
      headers: {},
      internal: false,
    };
  }

  return {
    status: 500,
    body: {
      status: 500,
      error: 'INTERNAL',
      message: `internal error (request ${requestId}); the details are in web/log/push.log`,
    },
    headers: {},
    internal: true,
  };
}
