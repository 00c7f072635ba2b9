import type { FastifyReply, FastifyRequest, preParsingHookHandler, RequestPayload } from 'fastify';
import type { CollectionManager } from '../../collection/collection-manager.js';
import { canonicalizeKey } from '../../collection/key.js';
import { SearchError } from '../../errors.js';
import { watchBodyIdle } from '../body-idle-watch.js';
import type { ByteBudget } from '../byte-budget.js';

/** What {@link documentAdmission} checks a document body against. */
export interface DocumentAdmissionOptions {
  manager: CollectionManager;
  /** `push.max-request-bytes`: larger document bodies answer 413 before they are read. */
  maxRequestBytes: number;
  /** A document body with no byte for this long fails with 408 BODY_TIMEOUT. */
  bodyIdleTimeoutMs: number;
  /**
   * A document body slower than this on average over a window of `bodyIdleTimeoutMs` fails
   * with 408 BODY_TOO_SLOW; 0: no minimum.
   */
  bodyMinBytesPerSecond: number;
  /** Bounds the document bodies held in memory at once. */
  bodyBudget: ByteBudget;
  /** Whose share of `bodyBudget` a request's body counts against (its user). */
  budgetOwnerOf: (request: FastifyRequest) => string;
}

/**
 * The `preParsing` hook of the document routes: fails a document write before its body is
 * read (collection, key, upgrade guard, declared size), then waits for room for the body in
 * the shared byte budget (within its owner's share); the reservation ends when the response
 * is finished. A body that pauses for longer than `bodyIdleTimeoutMs` fails with 408
 * BODY_TIMEOUT, one slower than `bodyMinBytesPerSecond` with 408 BODY_TOO_SLOW.
 *
 * Callback style: the usual request (room in the budget) goes on without a promise.
 */
export function documentAdmission(options: DocumentAdmissionOptions): preParsingHookHandler {
  const { manager, maxRequestBytes, bodyIdleTimeoutMs, bodyMinBytesPerSecond, bodyBudget, budgetOwnerOf } =
    options;

  /** Waits in line for room for `bytes`; a client that leaves meanwhile gives up its place. */
  const waitForRoom = async (reply: FastifyReply, bytes: number, owner: string): Promise<() => void> => {
    const aborted = new AbortController();
    const left = () =>
      new SearchError('BODY_INVALID', 'the client closed the connection while the request waited');
    let closed = false;
    const onClose = () => {
      closed = true;
      aborted.abort(left());
    };
    reply.raw.once('close', onClose);
    let release: () => void;
    try {
      release = await bodyBudget.acquire(bytes, aborted.signal, owner);
    } finally {
      reply.raw.off('close', onClose);
    }
    if (closed) {
      release();
      throw left();
    }
    return release;
  };

  /** The body to read, once admitted: holds its reservation until the response is finished. */
  const admitted = (
    request: FastifyRequest,
    reply: FastifyReply,
    payload: RequestPayload,
    release: () => void,
  ): RequestPayload => {
    // The reservation ends when the response is finished or the connection dies, whichever
    // comes first: the response's 'close' event covers both.
    reply.raw.once('close', release);
    // The whole body has arrived already (a small body comes with the headers): it cannot stall.
    if (request.raw.complete) return payload;
    return watchBodyIdle(payload, {
      idleMs: bodyIdleTimeoutMs,
      minBytesPerWindow: Math.ceil((bodyMinBytesPerSecond * bodyIdleTimeoutMs) / 1000),
      idleError: () => {
        // The rest of the body may still come: the connection cannot carry another request.
        reply.header('connection', 'close');
        return new SearchError(
          'BODY_TIMEOUT',
          `no byte of the body arrived for ${bodyIdleTimeoutMs / 1000} s: send bodies without pauses ` +
            '(server.body-idle-timeout-seconds in conf/global.cfg)',
        );
      },
      slowError: (bytesInWindow) => {
        reply.header('connection', 'close');
        return new SearchError(
          'BODY_TOO_SLOW',
          `only ${bytesInWindow} bytes of the body arrived in ${bodyIdleTimeoutMs / 1000} s; at least ` +
            `${bodyMinBytesPerSecond} bytes a second are needed (server.body-min-bytes-per-second in conf/global.cfg)`,
        );
      },
    });
  };

  return (request, reply, payload, done) => {
    let bytes: number;
    let owner: string;
    let release: (() => void) | undefined;
    try {
      const { collection } = request.params as { collection: string };
      // This hook runs before the query schema is checked: `?key=a&key=b` arrives as an array here.
      const { key } = request.query as { key?: string | string[] };
      // Refused before the body is read: a query processor or a collection that does not run.
      manager.collection(collection).refuseChanges('documents');
      manager.guardWrite();
      if (Array.isArray(key)) {
        throw new SearchError(
          'PARAMETER_INVALID',
          'the key parameter is given more than once: send one key per request',
        );
      }
      canonicalizeKey(key);
      const declared = Number(request.headers['content-length']);
      if (declared > maxRequestBytes) {
        throw new SearchError(
          'BODY_TOO_LARGE',
          `the body is ${declared} bytes; the limit is ${maxRequestBytes} bytes (push.max-request-bytes in conf/global.cfg)`,
        );
      }
      // Chunked, or compressed (the limit applies to the decoded bytes): the most it may grow to.
      const encoded =
        request.headers['content-encoding'] !== undefined &&
        request.headers['content-encoding'] !== 'identity';
      bytes = Number.isFinite(declared) && !encoded ? declared : maxRequestBytes;
      owner = budgetOwnerOf(request);
      release = bodyBudget.tryAcquire(bytes, owner);
    } catch (error) {
      done(error as Error);
      return;
    }
    if (release !== undefined) {
      done(null, admitted(request, reply, payload, release));
      return;
    }
    waitForRoom(reply, bytes, owner).then(
      (granted) => done(null, admitted(request, reply, payload, granted)),
      (error: Error) => done(error),
    );
  };
}
