/**
 * A minimal HTTP/1.1 client over a raw TCP socket, so that a test can send bytes no
 * well-behaved client would (invalid UTF-8 in headers, lying Content-Length, broken chunked
 * framing, control characters in the target) and still read what the server answers.
 */
import { connect } from 'node:net';

/** What came back for one raw request. */
export type RawOutcome =
  | {
      kind: 'answer';
      status: number;
      headers: Record<string, string>;
      body: Buffer;
      /** The bytes as received (status line and headers), for failure messages. */
      head: string;
    }
  /** The server closed the connection without a (complete) status line. */
  | { kind: 'closed'; received: Buffer }
  /** Nothing conclusive within the time limit: the client gave up and closed. */
  | { kind: 'timeout'; received: Buffer };

/** Options of {@link rawRequest}. */
export interface RawRequestOptions {
  /** Give up (and destroy the socket) after this long. Default 15 s. */
  timeoutMs?: number;
  /** The request was HEAD: the answer has no body whatever its headers say. */
  head?: boolean;
}

/**
 * Sends `bytes` on a fresh connection to 127.0.0.1:`port` and resolves with the first
 * response (complete by its Content-Length, chunked framing, or the close), a close without
 * one, or a timeout. Never rejects: a reset counts as a close.
 */
export function rawRequest(
  port: number,
  bytes: Buffer,
  options: RawRequestOptions = {},
): Promise<RawOutcome> {
  const timeoutMs = options.timeoutMs ?? 15_000;
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let received = Buffer.alloc(0);
    let settled = false;
    const finish = (outcome: RawOutcome): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(outcome);
    };
    const timer = setTimeout(() => finish({ kind: 'timeout', received }), timeoutMs);
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const parsed = parseResponse(received, options.head === true, false);
      if (parsed !== undefined) finish(parsed);
    });
    socket.on('close', () =>
      finish(parseResponse(received, options.head === true, true) ?? { kind: 'closed', received }),
    );
    // The server may close while we still write (it answered early, e.g. 413): not an error here.
    socket.on('error', () => {});
    socket.write(bytes);
  });
}

/** A complete first response in `data`, or undefined while more is needed (`closed`: no more comes). */
function parseResponse(data: Buffer, head: boolean, closed: boolean): RawOutcome | undefined {
  const end = data.indexOf('\r\n\r\n');
  if (end === -1) return undefined;
  const headText = data.subarray(0, end).toString('latin1');
  const [statusLine, ...lines] = headText.split('\r\n');
  const match = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? '');
  if (match === null) return undefined;
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const status = Number(match[1]);
  const rest = data.subarray(end + 4);
  const answer = (body: Buffer): RawOutcome => ({ kind: 'answer', status, headers, body, head: headText });
  if (head || status === 204 || status === 304 || (status >= 100 && status < 200))
    return answer(Buffer.alloc(0));
  if (/chunked/i.test(headers['transfer-encoding'] ?? '')) {
    const body = dechunk(rest);
    if (body !== undefined) return answer(body);
    return closed ? answer(rest) : undefined;
  }
  const length = headers['content-length'];
  if (length !== undefined) {
    const n = Number(length);
    if (rest.length >= n) return answer(rest.subarray(0, n));
    return closed ? answer(rest) : undefined;
  }
  return closed ? answer(rest) : undefined;
}

/** The body of a complete chunked encoding, or undefined while incomplete. */
function dechunk(data: Buffer): Buffer | undefined {
  const parts: Buffer[] = [];
  let pos = 0;
  for (;;) {
    const lineEnd = data.indexOf('\r\n', pos);
    if (lineEnd === -1) return undefined;
    const size = parseInt(data.subarray(pos, lineEnd).toString('latin1'), 16);
    if (!Number.isFinite(size)) return undefined;
    if (size === 0) return Buffer.concat(parts);
    const start = lineEnd + 2;
    if (data.length < start + size + 2) return undefined;
    parts.push(data.subarray(start, start + size));
    pos = start + size + 2;
  }
}

/** A short printable rendering of bytes for failure messages (control and non-ASCII bytes escaped). */
export function printable(bytes: Buffer, max = 1500): string {
  const text = bytes.subarray(0, max).toString('latin1');
  const escaped = text.replace(
    /[^\x20-\x7e\n]/g,
    (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`,
  );
  return bytes.length > max ? `${escaped}… (${bytes.length} bytes)` : escaped;
}
