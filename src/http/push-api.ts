import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  preParsingHookHandler,
  RequestPayload,
} from 'fastify';
import { watchBodyIdle } from './body-idle-watch.js';
import { SearchError } from '../errors.js';
import type { CollectionManager } from '../collection/collection-manager.js';
import { canonicalizeKey } from '../collection/key.js';
import type { VacuumType } from '../collection/push-collection.js';
import type { ByteBudget } from './byte-budget.js';
import { readContentAndMetadata } from './content-and-metadata.js';
import { extractPushMetadata } from './metadata-headers.js';
import {
  CLICK_LOGS_RESPONSE,
  COLLECTION_PARAMS,
  COMMIT_QUERY,
  COMMIT_RESPONSE,
  DOCUMENT_RESPONSE,
  ERROR_RESPONSES,
  KEY_FILTERS_QUERY,
  KEY_QUERY,
  MESSAGE_RESPONSE,
  REDIRECT_QUERY,
  SNAPSHOT_LIST_RESPONSE,
  SNAPSHOT_PARAMS,
  SNAPSHOT_RESPONSE,
  STATE_RESPONSE,
  STORED_RESPONSE,
  UPGRADE_RESPONSE,
  VACUUM_QUERY,
  VACUUM_RESPONSE,
} from './push-schemas.js';

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
  /** Bounds the document bodies held in memory at once (shared by both prefixes). */
  bodyBudget: ByteBudget;
  /** Runs first on every push API request; none: no authentication. */
  authenticate?: PushAuthenticator;
}

type CollectionRoute = { Params: { collection: string } };
type SnapshotRoute = { Params: { collection: string; name: string } };
type KeyRoute = CollectionRoute & { Querystring: { key: string; filters?: string } };

const EMPTY = Buffer.alloc(0);
/** Media type stored when a PUT has no Content-Type (what HTTP lets a recipient assume). */
const DEFAULT_CONTENT_TYPE = 'application/octet-stream';
const TAGS = ['push-api'];

/**
 * The push API of the API contract, registered once per prefix (`/push-api/v1`,
 * `/push-api/v2`): documents, content-and-metadata, redirects, commit, vacuum, click logs,
 * snapshots, restore, state, stop and upgrade preparation.
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
 * when the response is finished. Other routes take at most Fastify's default 1 MiB, ignored.
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

  /**
   * Fails a document write before its body is read, then waits for room for the body.
   * Callback style: the usual request (room in the budget) goes on without a promise.
   */
  const admitDocumentBody: preParsingHookHandler = (request, reply, payload, done) => {
    let bytes: number;
    let release: (() => void) | undefined;
    try {
      const { collection } = request.params as { collection: string };
      // This hook runs before the query schema is checked: `?key=a&key=b` arrives as an array here.
      const { key } = request.query as { key?: string | string[] };
      manager.collection(collection);
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
      bytes = Number.isFinite(declared) ? declared : maxRequestBytes; // chunked: the most it may grow to
      release = bodyBudget.tryAcquire(bytes);
    } catch (error) {
      done(error as Error);
      return;
    }
    if (release !== undefined) {
      done(null, admitted(request, reply, payload, release));
      return;
    }
    waitForRoom(reply, bytes).then(
      (granted) => done(null, admitted(request, reply, payload, granted)),
      (error: Error) => done(error),
    );
  };

  /** Waits in line for room for `bytes`; a client that leaves meanwhile gives up its place. */
  const waitForRoom = async (reply: FastifyReply, bytes: number): Promise<() => void> => {
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
      release = await bodyBudget.acquire(bytes, aborted.signal);
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
    return watchBodyIdle(payload, bodyIdleTimeoutMs, () => {
      // The rest of the body may still come: the connection cannot carry another request.
      reply.header('connection', 'close');
      return new SearchError(
        'BODY_TIMEOUT',
        `no byte of the body arrived for ${bodyIdleTimeoutMs / 1000} s: send bodies without pauses ` +
          '(server.body-idle-timeout-seconds in conf/global.cfg)',
      );
    });
  };

  const documentRoute = { bodyLimit: maxRequestBytes, preParsing: admitDocumentBody };

  // -------------------------------------------------------------------------------------
  // Documents

  app.put<KeyRoute>(
    '/collections/:collection/documents',
    {
      ...documentRoute,
      schema: {
        tags: TAGS,
        summary: 'Add or replace a document',
        description:
          'Body: the content; Content-Type: its type. Metadata from X-Service-Push-Metadata-{name} headers (also X-Funnelback-Push-Meta-Data-{name}); names keep their case. The change is durable when the answer comes, searchable after the next commit.',
        params: COLLECTION_PARAMS,
        querystring: KEY_FILTERS_QUERY,
        response: { 200: STORED_RESPONSE, ...ERROR_RESPONSES },
      },
    },
    async (request) => {
      const collection = manager.collection(request.params.collection);
      const metadata = extractPushMetadata(request.raw.rawHeaders);
      const key = await collection.putDocument({
        key: request.query.key,
        content: (request.body as Buffer | undefined) ?? EMPTY,
        contentType: request.headers['content-type'] ?? DEFAULT_CONTENT_TYPE,
        metadata,
        filters: request.query.filters,
      });
      return stored(`document ${key} stored; searchable after the next commit`, key);
    },
  );

  const contentAndMetadata = async (request: FastifyRequest<KeyRoute>) => {
    const collection = manager.collection(request.params.collection);
    const fromHeaders = extractPushMetadata(request.raw.rawHeaders);
    const parsed = readContentAndMetadata(
      (request.body as Buffer | undefined) ?? EMPTY,
      request.headers['content-type'],
    );
    // Header metadata (rare here) comes first, the metadata part adds to it.
    const metadata = fromHeaders;
    for (const [name, values] of Object.entries(parsed.metadata)) {
      metadata[name] = [...(metadata[name] ?? []), ...values];
    }
    const key = await collection.putDocument({
      key: request.query.key,
      content: parsed.content,
      contentType: parsed.contentType,
      metadata,
      filters: request.query.filters,
    });
    return stored(`document ${key} stored; searchable after the next commit`, key);
  };
  const contentAndMetadataSchema = {
    tags: TAGS,
    summary: 'Add or replace a document with content and metadata in one multipart body',
    description:
      'multipart/form-data or multipart/mixed. Part "content": the document, with its own Content-Type. Part "metadata" (optional): a UTF-8 JSON object, name → string or array of strings; names keep their case and may hold any Unicode, values may hold line breaks. Parts without a name: the application/json one is the metadata, the other the content.',
    params: COLLECTION_PARAMS,
    querystring: KEY_FILTERS_QUERY,
    response: { 200: STORED_RESPONSE, ...ERROR_RESPONSES },
  };
  app.post<KeyRoute>(
    '/collections/:collection/documents/content-and-metadata',
    { ...documentRoute, schema: contentAndMetadataSchema },
    contentAndMetadata,
  );
  app.put<KeyRoute>(
    '/collections/:collection/documents/content-and-metadata',
    { ...documentRoute, schema: contentAndMetadataSchema },
    contentAndMetadata,
  );

  app.get<KeyRoute>(
    '/collections/:collection/documents',
    {
      schema: {
        tags: TAGS,
        summary: 'Read a document as pushed',
        description:
          'The staged version when there is one (committed: false), else the committed one. Metadata holds only what the push set, plus the received time. An absent key answers 200 with pushContent null (as the original does).',
        params: COLLECTION_PARAMS,
        querystring: KEY_QUERY,
        response: { 200: DOCUMENT_RESPONSE, ...ERROR_RESPONSES },
      },
    },
    async (request) => {
      const collection = manager.collection(request.params.collection);
      const view = await collection.getDocument(request.query.key);
      // compat: the original answers an absent key with 200 and a null pushContent, and real
      // clients treat any other status as a failure.
      return view ?? { key: canonicalizeKey(request.query.key), pushContent: null };
    },
  );

  app.delete<KeyRoute>(
    '/collections/:collection/documents',
    {
      schema: {
        tags: TAGS,
        summary: 'Delete a document',
        description:
          'Staged: the document leaves search results at the next commit. Answers 200 also when the key was absent.',
        params: COLLECTION_PARAMS,
        querystring: KEY_QUERY,
        response: { 200: STORED_RESPONSE, ...ERROR_RESPONSES },
      },
    },
    async (request) => {
      const key = await manager.collection(request.params.collection).deleteDocument(request.query.key);
      return stored(`document ${key} deleted; gone from searches after the next commit`, key);
    },
  );

  // -------------------------------------------------------------------------------------
  // Redirects

  app.put<CollectionRoute & { Querystring: { key: string; target: string } }>(
    '/collections/:collection/redirects',
    {
      schema: {
        tags: TAGS,
        summary: 'Make a key redirect to another',
        description:
          'Staged. The key is no result of its own; links and anchor text aimed at it count for the target. Replaces content or a redirect at the key.',
        params: COLLECTION_PARAMS,
        querystring: REDIRECT_QUERY,
        response: { 200: STORED_RESPONSE, ...ERROR_RESPONSES },
      },
    },
    async (request) => {
      const key = await manager
        .collection(request.params.collection)
        .putRedirect(request.query.key, request.query.target);
      return stored(`redirect from ${key} stored; live after the next commit`, key);
    },
  );

  app.delete<KeyRoute>(
    '/collections/:collection/redirects',
    {
      schema: {
        tags: TAGS,
        summary: 'Remove a redirect',
        description:
          'Staged. Removes whatever is stored at the key (redirect or document), like the document DELETE.',
        params: COLLECTION_PARAMS,
        querystring: KEY_QUERY,
        response: { 200: STORED_RESPONSE, ...ERROR_RESPONSES },
      },
    },
    async (request) => {
      const key = await manager.collection(request.params.collection).deleteDocument(request.query.key);
      return stored(`redirect at ${key} removed; effective after the next commit`, key);
    },
  );

  // -------------------------------------------------------------------------------------
  // Commit and vacuum

  app.post<CollectionRoute & { Querystring: { wait: boolean } }>(
    '/collections/:collection/commit',
    {
      schema: {
        tags: TAGS,
        summary: 'Make staged changes searchable',
        description:
          'wait=true (default): 200 once the new generation is live. wait=false: 202 at once. 503 GENERATION_LIMIT when merging failed and the generation limit is reached.',
        params: COLLECTION_PARAMS,
        querystring: COMMIT_QUERY,
        response: { 200: COMMIT_RESPONSE, 202: COMMIT_RESPONSE, ...ERROR_RESPONSES },
      },
    },
    async (request, reply) => {
      const wait = request.query.wait;
      const result = await manager.collection(request.params.collection).commit(wait, request.id);
      if (!wait) {
        reply.code(202);
        return { message: 'commit started', changes: result.changes };
      }
      return { generation: result.generation, manifest: result.manifest, changes: result.changes };
    },
  );

  app.post<CollectionRoute & { Querystring: { 'vacuum-type': VacuumType; wait: boolean } }>(
    '/collections/:collection/vacuum',
    {
      schema: {
        tags: TAGS,
        summary: 'Merge generations or re-index every document',
        description:
          'MERGE: all generations into one, killed documents dropped. RE_INDEX: every stored document indexed again under the current configuration (after a metadata mapping change). Progress is in the state call.',
        params: COLLECTION_PARAMS,
        querystring: VACUUM_QUERY,
        response: { 200: VACUUM_RESPONSE, 202: VACUUM_RESPONSE, ...ERROR_RESPONSES },
      },
    },
    async (request, reply) => {
      const { wait } = request.query;
      const progress = await manager
        .collection(request.params.collection)
        .vacuum(request.query['vacuum-type'], wait, request.id);
      if (!wait) reply.code(202);
      return progress;
    },
  );

  // -------------------------------------------------------------------------------------
  // Click logs (ranking evidence; see src/search/evidence/collection-evidence.ts)

  app.post<CollectionRoute>(
    '/collections/:collection/click-logs',
    {
      schema: {
        tags: TAGS,
        summary: 'Process the click logs now',
        description:
          'Counts the clicks logged since the last run (otherwise processed every push.click-logs.interval-seconds, hourly by default): a clicked result rises for the queries that led to it and, more weakly, for every query; clicks lose half their weight every push.click-logs.half-life-days (30). Answers once the documents with new click evidence are re-indexed and committed. Processing twice counts nothing twice.',
        params: COLLECTION_PARAMS,
        response: { 200: CLICK_LOGS_RESPONSE, ...ERROR_RESPONSES },
      },
    },
    async (request) => {
      const result = await manager.collection(request.params.collection).processClickLogs();
      return {
        message: `${result.clicksProcessed} clicks processed; ${result.documentsUpdated} documents re-indexed`,
        clicksProcessed: result.clicksProcessed,
        documentsUpdated: result.documentsUpdated,
      };
    },
  );

  // -------------------------------------------------------------------------------------
  // Snapshots and restore

  app.put<SnapshotRoute>(
    '/collections/:collection/snapshot/:name',
    {
      schema: {
        tags: TAGS,
        summary: 'Snapshot the last commit',
        description:
          'Hard links of the files of the last commit into data/{collection}/snapshot/{name}. 409 when the name is taken.',
        params: SNAPSHOT_PARAMS,
        response: { 200: SNAPSHOT_RESPONSE, ...ERROR_RESPONSES },
      },
    },
    async (request) => manager.collection(request.params.collection).createSnapshot(request.params.name),
  );

  app.get<CollectionRoute>(
    '/collections/:collection/snapshot',
    {
      schema: {
        tags: TAGS,
        summary: 'List snapshots',
        description: 'Does not start the collection.',
        params: COLLECTION_PARAMS,
        response: { 200: SNAPSHOT_LIST_RESPONSE, ...ERROR_RESPONSES },
      },
    },
    async (request) => ({ snapshots: manager.collection(request.params.collection).listSnapshots() }),
  );

  app.delete<SnapshotRoute>(
    '/collections/:collection/snapshot/:name',
    {
      schema: {
        tags: TAGS,
        summary: 'Delete a snapshot',
        description: 'Does not start the collection.',
        params: SNAPSHOT_PARAMS,
        response: { 200: MESSAGE_RESPONSE, ...ERROR_RESPONSES },
      },
    },
    async (request) => {
      manager.collection(request.params.collection).deleteSnapshot(request.params.name);
      return { message: `snapshot ${request.params.name} deleted` };
    },
  );

  app.post<SnapshotRoute>(
    '/collections/:collection/restore/from-snapshot/:name',
    {
      schema: {
        tags: TAGS,
        summary: 'Replace the live index by a snapshot',
        description:
          'Needs the collection STOPPED (POST state/stop first; 409 otherwise). Staged changes are discarded; the next request starts the collection on the snapshot.',
        params: SNAPSHOT_PARAMS,
        response: { 200: MESSAGE_RESPONSE, ...ERROR_RESPONSES },
      },
    },
    async (request) => {
      const { collection, name } = request.params;
      await manager.collection(collection).restoreSnapshot(name);
      return {
        message: `collection ${collection} restored from snapshot ${name}; the next request starts it`,
      };
    },
  );

  // -------------------------------------------------------------------------------------
  // State

  app.get<CollectionRoute>(
    '/collections/:collection/state',
    {
      schema: {
        tags: TAGS,
        summary: 'Collection state',
        description:
          'STOPPED, STARTING, RUNNING, STOPPING or FAILED (with the reason); counts and vacuum progress while running. Does not start the collection.',
        params: COLLECTION_PARAMS,
        response: { 200: STATE_RESPONSE, ...ERROR_RESPONSES },
      },
    },
    async (request) => manager.collection(request.params.collection).stateView(),
  );

  app.post<CollectionRoute>(
    '/collections/:collection/state/stop',
    {
      schema: {
        tags: TAGS,
        summary: 'Stop the collection',
        description:
          'Waits for running requests, closes the index and journal: STOPPED. Staged changes stay durable. Any other push request starts it again.',
        params: COLLECTION_PARAMS,
        response: { 200: STATE_RESPONSE, ...ERROR_RESPONSES },
      },
    },
    async (request) => {
      const collection = manager.collection(request.params.collection);
      await collection.stop();
      return collection.stateView();
    },
  );

  // -------------------------------------------------------------------------------------
  // Upgrade preparation (installation-wide)

  app.post(
    '/upgrade/prepare',
    {
      schema: {
        tags: TAGS,
        summary: 'Prepare the installation for an upgrade',
        description:
          'Writes refused (503 + Retry-After), every collection committed, merges finished, files synced. In memory only: a restart undoes it.',
        response: { 200: UPGRADE_RESPONSE, ...ERROR_RESPONSES },
      },
    },
    async () => manager.prepareUpgrade(),
  );

  app.post(
    '/upgrade/prepare/status',
    {
      schema: {
        tags: TAGS,
        summary: 'Upgrade preparation status',
        description: '503 UPGRADE_NOT_STARTED until prepare was called; then IN_PROGRESS or PREPARED.',
        response: { 200: UPGRADE_RESPONSE, ...ERROR_RESPONSES },
      },
    },
    async () => {
      const status = manager.upgradeStatus();
      if (status === undefined) {
        throw new SearchError(
          'UPGRADE_NOT_STARTED',
          'the upgrade preparation has not been started: POST /push-api/v1/upgrade/prepare first',
        );
      }
      return status;
    },
  );
}

function stored(message: string, key: string): { message: string; storedKeys: string[] } {
  return { message, storedKeys: [key] };
}
