import { Transform, type Readable, type TransformCallback } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { FastifyInstance, FastifyRequest, preParsingHookHandler, RouteOptions } from 'fastify';
import { SearchError } from '../errors.js';

/** The request body encodings decoded (`Content-Encoding`), and the decoder of each. */
const DECODERS: Readonly<Record<string, () => Transform>> = {
  gzip: () => createGunzip(),
  'x-gzip': () => createGunzip(),
  deflate: () => createInflate(),
  br: () => createBrotliDecompress(),
};

/** The coding a request's body was sent with (lower case), undefined for none or `identity`. */
export function bodyEncodingOf(request: FastifyRequest): string | undefined {
  const header = request.headers['content-encoding'];
  if (header === undefined) return undefined;
  const codings = header
    .split(',')
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== '' && coding !== 'identity');
  if (codings.length === 0) return undefined;
  if (codings.length > 1 || DECODERS[codings[0]!] === undefined) {
    throw new SearchError(
      'CONTENT_ENCODING_UNSUPPORTED',
      `Content-Encoding ${JSON.stringify(header)} is not supported: send the body as it is, or compressed once with gzip, deflate or br`,
    );
  }
  return codings[0];
}

/**
 * Decodes request bodies sent with `Content-Encoding: gzip`, `deflate` or `br` before any
 * route reads them (a `preParsing` hook put first on every route that takes a body, so that a
 * compressed document is stored as what it decodes to, and a compressed JSON or form body
 * parses). Any other coding is refused with 415 `CONTENT_ENCODING_UNSUPPORTED` before the body
 * is read. Routes of methods without a body (GET, HEAD, TRACE: Fastify never reads one) run no
 * such hook: a query pays nothing for it. Register before the routes.
 *
 * Bomb-safe: the body is decompressed as a stream, and the route's body limit (for documents
 * `push.max-request-bytes`) applies to the decoded bytes: the first decoded byte past it fails
 * the request with 413 `BODY_TOO_LARGE`, so a small body that inflates to gigabytes costs at
 * most the limit in memory and time. Corrupt compressed data is 400 `BODY_INVALID`.
 */
export function installBodyDecoding(app: FastifyInstance): void {
  const decode: preParsingHookHandler = (request, _reply, payload, done) => {
    let coding: string | undefined;
    try {
      coding = bodyEncodingOf(request);
    } catch (error) {
      done(error as Error);
      return;
    }
    if (coding === undefined || !hasBody(request)) {
      done(null, payload);
      return;
    }
    done(null, decodeBody(payload, coding, request.routeOptions.bodyLimit));
  };
  app.addHook('onRoute', (route: RouteOptions) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (methods.every((method) => BODYLESS_METHODS.has(method.toUpperCase()))) return;
    // First: the route's own hooks and its parser see the decoded body.
    const own = route.preParsing;
    route.preParsing = own === undefined ? [decode] : [decode, ...(Array.isArray(own) ? own : [own])];
  });
}

/** Methods whose requests Fastify answers without reading a body. */
const BODYLESS_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'TRACE']);

function hasBody(request: FastifyRequest): boolean {
  return request.headers['transfer-encoding'] !== undefined || Number(request.headers['content-length']) > 0;
}

/**
 * The decoded body, at most `limit` bytes. Carries `receivedEncodedLength` (compressed bytes
 * read so far), which Fastify compares with Content-Length (the size of the encoded body).
 */
function decodeBody(payload: Readable, coding: string, limit: number): Readable {
  const decoder = DECODERS[coding]!();
  let decoded = 0;
  const capped = new Transform({
    transform(chunk: Buffer, _encoding, callback: TransformCallback) {
      decoded += chunk.length;
      if (decoded > limit) {
        callback(
          new SearchError(
            'BODY_TOO_LARGE',
            `the body decodes (Content-Encoding: ${coding}) to more than ${limit} bytes, the limit of this request` +
              ' (for documents push.max-request-bytes in conf/global.cfg)',
          ),
        );
        return;
      }
      callback(null, chunk);
    },
  }) as Transform & { receivedEncodedLength: number };
  capped.receivedEncodedLength = 0;
  payload.on('data', (chunk: Buffer) => {
    capped.receivedEncodedLength += chunk.length;
  });
  const fail = (error: Error) => {
    payload.unpipe(decoder);
    decoder.unpipe(capped);
    decoder.destroy();
    capped.destroy(error);
  };
  payload.on('error', fail);
  decoder.on('error', (error: Error) => {
    fail(
      error instanceof SearchError
        ? error
        : new SearchError('BODY_INVALID', `the body is not valid ${coding} data (${error.message})`),
    );
  });
  // Whoever reads the body listens for errors; until then (or if nobody does) none may go unheard.
  capped.on('error', () => {});
  capped.once('close', () => decoder.destroy());
  payload.pipe(decoder).pipe(capped);
  return capped;
}
