import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { JsonSchemaToTsProvider } from '@fastify/type-provider-json-schema-to-ts';
import type { CollectionManager } from '../../collection/collection-manager.js';
import type { ByteBudget } from '../byte-budget.js';
import { commitAndVacuumRoutes } from './commit-and-vacuum.js';
import { documentAdmission } from './document-admission.js';
import { documentRoutes } from './documents.js';
import { snapshotRoutes } from './snapshots.js';
import { replicationApiRoutes } from './replication-api.js';
import { stateAndUpgradeRoutes } from './state-and-upgrade.js';

/**
 * Checks who is calling before a push API route runs (the auth issue plugs in here): throw a
 * `SearchError` (`UNAUTHENTICATED`, `FORBIDDEN`) to refuse. `collection` is the collection
 * named in the path, undefined for installation-wide routes (upgrade preparation).
 */
export type PushAuthenticator = (
  request: FastifyRequest,
  collection: string | undefined,
) => Promise<void> | void;

/** Options of the {@link pushApi} plugin. */
export interface PushApiOptions {
  manager: CollectionManager;
  /** `push.max-request-bytes`: larger document bodies answer 413 before they are read. */
  maxRequestBytes: number;
  /** A document body with no byte for this long fails with 408 BODY_TIMEOUT. Default 30 s. */
  bodyIdleTimeoutMs?: number;
  /**
   * A document body slower than this on average over a window of `bodyIdleTimeoutMs` fails
   * with 408 BODY_TOO_SLOW. Default 0: no minimum.
   */
  bodyMinBytesPerSecond?: number;
  /** Whose share of `bodyBudget` a request's body counts against (its user). Default: the client address. */
  budgetOwnerOf?: (request: FastifyRequest) => string;
  /** Bounds the document bodies held in memory at once (shared by both prefixes). */
  bodyBudget: ByteBudget;
  /** Runs first on every push API request; none: no authentication. */
  authenticate?: PushAuthenticator;
}

/**
 * The push API of the API contract, registered once per prefix (`/push-api/v1`,
 * `/push-api/v2`), one module per resource with its schemas beside it: documents and
 * redirects (`documents.ts`), commit, vacuum and click logs (`commit-and-vacuum.ts`),
 * snapshots and restore (`snapshots.ts`), state, stop and upgrade preparation
 * (`state-and-upgrade.ts`), collection mode and the sync of query processors
 * (`replication-api.ts`).
 *
 * Collection start: every route that reads or writes documents or the index (documents,
 * redirects, commit, vacuum, snapshot creation) starts a stopped collection first, as the
 * spec says. `GET state`, `POST state/stop`, the snapshot list and delete, and restore do
 * not: they must work on a STOPPED or FAILED collection, which is when an operator needs them.
 *
 * Bodies: every content type is read as raw bytes (a JSON document is content, not a
 * request to parse). Document routes accept bodies up to `maxRequestBytes` (413 before
 * reading when Content-Length says more, and as soon as a chunked body goes over). Before a
 * document body is read, the route checks what it can without it (collection, key,
 * upgrade guard) and then reserves the body's size in `bodyBudget`; the reservation ends
 * when the response is finished (`document-admission.ts`). Other routes take at most
 * Fastify's default 1 MiB, ignored.
 */
export async function pushApi(app: FastifyInstance, options: PushApiOptions): Promise<void> {
  const { manager, maxRequestBytes, bodyBudget, authenticate } = options;
  const bodyIdleTimeoutMs = options.bodyIdleTimeoutMs ?? 30_000;

  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

  if (authenticate !== undefined) {
    // Callback style: an authenticator that answers at once (a token) costs no promise.
    app.addHook('onRequest', (request, _reply, done) => {
      const params = request.params as { collection?: string } | undefined;
      let pending: Promise<void> | void;
      try {
        pending = authenticate(request, params?.collection);
      } catch (error) {
        done(error as Error);
        return;
      }
      if (pending === undefined) done();
      else pending.then(() => done(), done);
    });
  }

  const typed = app.withTypeProvider<JsonSchemaToTsProvider>();
  const admitBody = documentAdmission({
    manager,
    maxRequestBytes,
    bodyIdleTimeoutMs,
    bodyMinBytesPerSecond: options.bodyMinBytesPerSecond ?? 0,
    bodyBudget,
    budgetOwnerOf: options.budgetOwnerOf ?? ((request) => request.ip),
  });
  documentRoutes(typed, { manager, maxRequestBytes, admitBody });
  commitAndVacuumRoutes(typed, manager);
  snapshotRoutes(typed, manager);
  stateAndUpgradeRoutes(typed, manager);
  replicationApiRoutes(typed, manager);
}
