import { SearchError } from '../errors.js';

/**
 * An error answered by the server (`{"status", "error", "message"}`), or a failure to reach
 * it. `code` is the server's stable upper-case code (e.g. `DOCUMENT_NOT_FOUND`); failures
 * that never got an answer have `status` 0 and code `CONNECTION_FAILED`; an answer that is
 * not the documented error body keeps its status with code `HTTP_<status>`.
 */
export class PushApiError extends SearchError<string> {
  /** HTTP status; 0 when no answer came. */
  readonly status: number;
  /** Seconds the server asked to wait (`Retry-After`), when it did. */
  readonly retryAfterSeconds: number | undefined;
  /** `METHOD path` of the request, for messages and logs (never credentials). */
  readonly request: string;

  constructor(
    code: string,
    message: string,
    options: { status: number; request: string; retryAfterSeconds?: number; cause?: unknown },
  ) {
    super(code, message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'PushApiError';
    this.status = options.status;
    this.request = options.request;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
}

/** Builds the error of a non-2xx answer from its body (the server's JSON error, or anything else). */
export function errorFromResponse(
  status: number,
  body: Buffer,
  request: string,
  retryAfterHeader: string | undefined,
): PushApiError {
  const retryAfterSeconds = parseRetryAfter(retryAfterHeader);
  let code = `HTTP_${status}`;
  let message = `${request} answered ${status}`;
  try {
    const parsed = JSON.parse(body.toString('utf8')) as { error?: unknown; message?: unknown };
    if (typeof parsed.error === 'string' && /^[A-Z0-9_]+$/.test(parsed.error)) code = parsed.error;
    if (typeof parsed.message === 'string') message = parsed.message;
  } catch {
    const text = body.toString('utf8').trim().slice(0, 200);
    if (text !== '') message = `${message}: ${text}`;
  }
  return new PushApiError(code, message, { status, request, retryAfterSeconds });
}

/** `Retry-After` as seconds: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | undefined): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  if (/^\s*\d+\s*$/.test(value)) return Number(value);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, (date - Date.now()) / 1000);
}
