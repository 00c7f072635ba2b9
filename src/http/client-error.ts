import type { Socket } from 'node:net';
import { statusForCode } from '../error-status.js';

/** Node's parser errors (and its request timeout) → our code and a message that says what to fix. */
const PARSER_ERRORS: Readonly<Record<string, { code: string; message: string }>> = {
  HPE_HEADER_OVERFLOW: {
    code: 'HEADERS_TOO_LARGE',
    message:
      'the request line and headers are larger than 64 KiB: send a shorter URL (keys of at most 2000 characters) and fewer or shorter headers',
  },
  ERR_HTTP_REQUEST_TIMEOUT: {
    code: 'REQUEST_TIMEOUT',
    message: 'the request was not received in time (server.request-timeout-seconds in conf/global.cfg)',
  },
  ERR_HTTP_HEADERS_TIMEOUT: {
    code: 'REQUEST_TIMEOUT',
    message: 'the request headers were not received in time',
  },
};

const REASONS: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  408: 'Request Timeout',
  431: 'Request Header Fields Too Large',
};

/**
 * Answers a request that never reached a route because it is not valid HTTP (a broken
 * request line, bad header syntax, oversized headers, a timeout while receiving it), with the
 * same `{status, error, message}` body as every other error, then closes the connection: what
 * follows on it cannot be trusted to be a request boundary.
 */
export function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const known = error.code === undefined ? undefined : PARSER_ERRORS[error.code];
  const code = known?.code ?? 'REQUEST_INVALID';
  const message =
    known?.message ??
    `the request is not valid HTTP/1.1 (${error.code ?? error.message}): check the request line, header syntax and body framing`;
  const status = statusForCode(code);
  const body = JSON.stringify({ status, error: code, message });
  socket.end(
    `HTTP/1.1 ${status} ${REASONS[status] ?? 'Error'}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
