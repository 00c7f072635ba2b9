import { answerClientError } from './client-error.js';
import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { join } from 'node:path';
import Fastify, {
  LogController,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
} from 'fastify';
import { CollectionManager } from '../collection/collection-manager.js';
import { loadGlobalConfig } from '../collection/collection-settings.js';
import type { GlobalConfig } from '../collection/config/collection-config.js';
import { HomeLock } from '../collection/home-lock.js';
import { createPushLog, errorForLog, type PushLog } from '../collection/push-log.js';
import { SearchHome } from '../collection/search-home.js';
import type { Authenticator } from '../security/authenticator.js';
import type { InitialAdmin } from '../security/initial-admin.js';
import { openSecurity, type SecurityOptions } from '../security/open-security.js';
import { adminApi } from './admin-api.js';
import { adminUi } from './admin-ui/admin-ui.js';
import { UiSessions } from './admin-ui/ui-session.js';
import { registerApiUi } from './api-ui.js';
import { registerOpenApi } from './openapi-document.js';
import { principalOf, pushAuthenticator, searchAuthorizer } from './auth-hooks.js';
import { authRoutes } from './auth-routes.js';
import { ByteBudget } from './byte-budget.js';
import { installCors } from './cors.js';
import { errorReply } from './error-reply.js';
import { faviconRoute } from './favicon.js';
import { healthRoutes } from './health.js';
import { landingPageRoutes } from './landing-page.js';
import { installMetrics } from './metrics.js';
import { pushApi, type PushAuthenticator } from './push-api/push-api.js';
import { replicationRoutes } from './replication-routes.js';
import { ClickReceiver } from '../replication/click-forwarder.js';
import { REPLICATION_PREFIX } from '../replication/sync-client.js';
import { searchRoutes, type SearchAuthorizer } from './search-routes.js';
import { installSecurityHeaders } from './security-headers.js';
import { installBodyDecoding } from './content-encoding.js';
import { homePathHider } from './home-paths.js';
import { SearchService } from '../search/search-service.js';
import type { SearchPoolEvent } from '../search/threads/search-thread-pool.js';

/** Options of {@link buildApp}. */
export interface BuildAppOptions {
  /** `$SEARCH_HOME`; its layout is created when missing. */
  home: string;
  /** Fastify's request log (pino): false (default) for none, true or pino options for stdout. */
  logger?: boolean | Record<string, unknown>;
  /**
   * Users, tokens and first-start admin (`conf/users.json`, see `src/security/`); its
   * `adminPassword` defaults to `SEARCH_ADMIN_PASSWORD`.
   */
  security?: SecurityOptions;
  /** Replaces the push API's authentication (default: users of `conf/users.json`, Basic or token). */
  authenticate?: PushAuthenticator;
  /** Replaces who may search collections with `search.public=false` (default: users with access to the collection). */
  authorizeSearch?: SearchAuthorizer;
  /**
   * Bytes of document bodies held in memory at once, over all requests (default 256 MiB,
   * never less than `push.max-request-bytes`). Requests beyond it wait in line.
   */
  bodyBudgetBytes?: number;
  /** Replaces `search.thread-count` of global.cfg (tests: 0 runs queries on the event loop). */
  searchThreads?: number;
  /** Observes the search thread pool (tests). */
  onSearchPoolEvent?: (event: SearchPoolEvent) => void;
}

/** What {@link buildApp} returns: the app (not listening) and the collections behind it. */
export interface BuiltApp {
  app: FastifyInstance;
  manager: CollectionManager;
  /** The installation-wide configuration read from conf/global.cfg at build time. */
  globalConfig: GlobalConfig;
  /** The document body budget (its gauges are useful in tests and stats). */
  bodyBudget: ByteBudget;
  /** Users, tokens and permission checks. */
  auth: Authenticator;
  /** What the start did about the first user and `SEARCH_ADMIN_PASSWORD` (for the start-up message). */
  initialAdmin: InitialAdmin;
  /** The query processor and its search threads. */
  searchService: SearchService;
}

/** Default of {@link BuildAppOptions.bodyBudgetBytes}. */
export const DEFAULT_BODY_BUDGET_BYTES = 256 * 1024 * 1024;

/** Version prefixes the push API answers under (the same routes under each). */
export const PUSH_API_PREFIXES: readonly string[] = Object.freeze(['/push-api/v1', '/push-api/v2']);

/** Bodies of routes that take no documents: small, read and ignored. */
const SMALL_BODY_LIMIT = 1024 * 1024;
/**
 * Node's default (16 KiB) is too small for a 2000-character key of non-ASCII characters
 * (up to 9 bytes each once percent-encoded) plus metadata headers.
 */
const MAX_HEADER_BYTES = 64 * 1024;
/** The fraction of the body budget one user's document bodies may hold at once. */
const BODY_BUDGET_USER_SHARE = 0.5;
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;

/**
 * Builds the HTTP application without listening (`app.listen()` is the caller's; tests use
 * `app.inject()`): creates the `$SEARCH_HOME` layout, locks the home for this server
 * (`HOME_IN_USE` when another one holds it; see `home-lock.ts`), opens `web/log/push.log`, reads
 * `conf/global.cfg` (a bad value stops here with `CONFIG_INVALID`), opens the users of
 * `conf/users.json` (creating `admin` on first start, see `src/security/`), and registers the
 * push API under every prefix of {@link PUSH_API_PREFIXES}, the account routes under
 * `/admin-api/account/v1`, the admin API under `/admin-api/v1` and the search routes under
 * `/s` (`search-routes.ts`). Push and admin routes need a user (HTTP Basic or
 * `X-Security-Token`); search needs one only for collections with `search.public=false`.
 *
 * Every error answers `{"status", "error", "message"}` (see `error-reply.ts`); failures that
 * are ours (5xx) are written to push.log with the request id, never to the client. Request
 * ids come from a valid `X-Request-Id` request header, else are generated, and are echoed
 * in the `X-Request-Id` response header and in every log line. Closing the app (after the
 * in-flight requests) stops every collection, then unlocks the home.
 */
export async function buildApp(options: BuildAppOptions): Promise<BuiltApp> {
  const home = new SearchHome(options.home);
  home.ensureLayout();
  // One server per home (HOME_IN_USE otherwise): held until every collection is closed.
  const lock = await HomeLock.acquire(home.serverLockFile, home.root);
  try {
    return await buildOnLockedHome(home, lock, options);
  } catch (error) {
    await lock.release();
    throw error;
  }
}

async function buildOnLockedHome(
  home: SearchHome,
  lock: HomeLock,
  options: BuildAppOptions,
): Promise<BuiltApp> {
  const globalConfig = loadGlobalConfig(home);
  const pushLog = createPushLog(home.pushLogFile);
  for (const warning of globalConfig.warnings) pushLog.warn({ file: 'conf/global.cfg' }, warning);
  const manager = new CollectionManager(home, pushLog);
  // Failed logins, first-start admin and token issues: a log of their own, read by operators.
  const securityLog = createPushLog(join(home.webLogFolder, 'security.log'));
  // One user holds at most half of it: another user's pushes always find room.
  const bodyBudget = new ByteBudget(
    Math.max(options.bodyBudgetBytes ?? DEFAULT_BODY_BUDGET_BYTES, globalConfig.maxRequestBytes),
    { ownerShare: BODY_BUDGET_USER_SHARE },
  );

  const hidePaths = homePathHider(home.root);

  /** Answers any error in the contract's form (the error handler, and the router's own errors). */
  const answerError = (error: unknown, request: FastifyRequest, reply: FastifyReply): void => {
    const answer = errorReply(error, request.id, globalConfig.maxRequestBytes);
    // Paths relative to the home, except for administrators (every /admin-api/v1/ answer past
    // authentication is theirs); push.log below keeps the error as it is.
    if (!request.url.startsWith('/admin-api/v1/')) answer.body.message = hidePaths(answer.body.message);
    if (answer.internal) {
      const collection = (request.params as { collection?: unknown } | undefined)?.collection;
      logInternal(
        pushLog,
        { requestId: request.id, method: request.method, url: request.url, collection },
        error,
      );
      request.log.error({ err: error }, 'request failed');
    } else {
      // The request line (onResponse) says the status; the reason is for whoever looks closer.
      request.log.debug({ code: answer.body.error }, answer.body.message);
    }
    // A request refused before its body was read: the rest of it may still be coming.
    if (answer.status === 413) reply.header('connection', 'close');
    void reply.code(answer.status).headers(answer.headers).send(answer.body);
  };

  const app = Fastify({
    logger: (options.logger ?? false) as FastifyServerOptions['logger'],
    // One line per request (the onResponse hook below), not Fastify's two.
    logController: new LogController({ disableRequestLogging: true }),
    genReqId: requestIdGenerator(),
    bodyLimit: SMALL_BODY_LIMIT,
    http: { maxHeaderSize: MAX_HEADER_BYTES },
    // Receiving a whole request may take this long; a body that pauses fails sooner (push-api.ts).
    requestTimeout: globalConfig.requestTimeoutSeconds * 1000,
    // Requests that are not valid HTTP get the same error body as every other error.
    clientErrorHandler: answerClientError,
    routerOptions: { maxParamLength: 256 },
    // A path Fastify's router rejects (bad percent-encoding, an over-long name) is answered
    // here, not with Fastify's own body; these run before any hook, so the request id header
    // is set here too.
    frameworkErrors: (error, request, reply) => {
      reply.header('x-request-id', request.id);
      answerError(error, request, reply);
    },
  });

  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
  // The request log: one line per answered request, at info (LOG_LEVEL=warn silences it).
  app.addHook('onResponse', (request, reply, done) => {
    request.log.info(
      {
        method: request.method,
        url: request.url,
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime * 10) / 10,
      },
      'request',
    );
    done();
  });

  const { auth, initialAdmin } = await openSecurity(home, options.security ?? {}, {
    info: (object, message) => {
      securityLog.info(object, message);
      app.log.info(object, message);
    },
    warn: (object, message) => {
      securityLog.warn(object, message);
      app.log.warn(object, message);
    },
  });

  app.setErrorHandler((error, request, reply) => answerError(error, request, reply));

  app.setNotFoundHandler((request, reply) => {
    void reply.code(404).send({
      status: 404,
      error: 'NOT_FOUND',
      message: `no route ${request.method} ${request.url.split('?')[0]}; the push API is under ${PUSH_API_PREFIXES.join(' and ')}`,
    });
  });

  // Queries run on search threads (search.* of global.cfg); they stop with the app.
  const searchService = new SearchService(manager, {
    threads: options.searchThreads ?? globalConfig.searchThreadCount,
    timeoutMs: globalConfig.searchTimeoutMs,
    maxPrefixTerms: globalConfig.searchMaxPrefixTerms,
    queueSize: globalConfig.searchQueueSize,
    ...(options.onSearchPoolEvent !== undefined ? { onPoolEvent: options.onSearchPoolEvent } : {}),
  });
  app.addHook('onClose', () => searchService.close());

  // Before every route (and the 404 handler's answers): nosniff, frame and referrer policies.
  installSecurityHeaders(app);
  // Before every route's own preParsing hooks: they and the parsers see the decoded body.
  installBodyDecoding(app);
  // Before every documented route: the OpenAPI document collects routes as they are registered.
  await registerOpenApi(app);
  // Before the routes: plugins get the hooks (request counting) their parent had at registration.
  const metrics = installMetrics(app, {
    manager,
    auth,
    public: globalConfig.metricsPublic,
    searchStats: () => searchService.threads?.stats() ?? null,
  });
  await installCors(app, globalConfig.corsOrigins);
  // Every page's icon, the browser's default request included.
  await app.register(faviconRoute);
  const readyMaxLag = globalConfig.readyMaxLagSeconds;
  await app.register(healthRoutes, {
    manager,
    hidePaths,
    ...(readyMaxLag !== undefined ? { maxLagSeconds: readyMaxLag } : {}),
  });
  landingPageRoutes(app);

  // The API UI and the admin UI at /search/admin/.
  const uiSessions = new UiSessions(auth);
  await registerApiUi(app, { sessions: uiSessions });
  await app.register(adminUi, { manager, sessions: uiSessions, metrics });

  for (const prefix of PUSH_API_PREFIXES) {
    await app.register(pushApi, {
      prefix,
      manager,
      maxRequestBytes: globalConfig.maxRequestBytes,
      bodyIdleTimeoutMs: globalConfig.bodyIdleTimeoutSeconds * 1000,
      bodyMinBytesPerSecond: globalConfig.bodyMinBytesPerSecond,
      // The push routes authenticate in onRequest, before the body is admitted.
      budgetOwnerOf: (request) => {
        const user = principalOf(request)?.user;
        return user === undefined ? `address ${request.ip}` : `user ${user}`;
      },
      bodyBudget,
      authenticate: options.authenticate ?? pushAuthenticator(auth),
    });
  }

  // The master side of replication: query processors copy committed states from here
  // (signed with server_secret, no user; see docs/replication.md).
  const clickReceivers = new Map<string, ClickReceiver>();
  await app.register(replicationRoutes, {
    prefix: REPLICATION_PREFIX,
    secret: manager.replication.secret,
    masterFor: (name) => manager.collection(name).replicationMaster(),
    receiveClicks: (name, batch, lines) => {
      manager.collection(name); // an unknown or meta collection is refused
      let receiver = clickReceivers.get(name);
      if (receiver === undefined) {
        receiver = new ClickReceiver(home.clickLogFolder(name), {
          maxLogBytes: globalConfig.clicksMaxLogBytes,
          onLogFull: () =>
            pushLog.warn(
              { collection: name },
              `click log full (search.clicks.max-log-bytes=${globalConfig.clicksMaxLogBytes}): clicks forwarded by query processors are dropped until it is processed`,
            ),
        });
        clickReceivers.set(name, receiver);
      }
      return receiver.receive(batch, lines);
    },
  });
  // Query processors sync from the start, and edited collection.cfg files apply (push.run).
  app.addHook('onReady', async () => manager.startBackground());

  await app.register(authRoutes, { prefix: '/admin-api/account/v1', auth });
  await app.register(adminApi, { prefix: '/admin-api/v1', manager, auth });

  await app.register(searchRoutes, {
    prefix: '/s',
    manager,
    service: searchService,
    authorizeSearch: options.authorizeSearch ?? searchAuthorizer(auth),
    hidePaths,
    clickLimits: {
      maxPerMinute: globalConfig.clicksMaxPerMinute,
      dedupeSeconds: globalConfig.clicksDedupeSeconds,
      maxLogBytes: globalConfig.clicksMaxLogBytes,
    },
    onClickLogFull: (collection) =>
      pushLog.warn(
        { collection },
        `click log full (search.clicks.max-log-bytes=${globalConfig.clicksMaxLogBytes}): clicks are not logged until it is processed (POST .../click-logs, or every push.click-logs.interval-seconds)`,
      ),
    onInternalError: (request, error) => {
      const collection = new URLSearchParams(request.url.split('?')[1] ?? '').get('collection');
      logInternal(
        pushLog,
        { requestId: request.id, method: request.method, url: request.url, collection },
        error,
      );
      request.log.error({ err: error }, 'request failed');
    },
  });

  // onClose runs after the server stopped listening and in-flight requests finished.
  app.addHook('onClose', async () => {
    try {
      await manager.closeAll();
    } finally {
      await lock.release();
    }
  });

  return { app, manager, globalConfig, bodyBudget, auth, initialAdmin, searchService };
}

function requestIdGenerator(): (request: IncomingMessage) => string {
  const prefix = randomBytes(3).toString('hex');
  let counter = 0;
  return (request) => {
    const given = request.headers['x-request-id'];
    if (typeof given === 'string' && REQUEST_ID.test(given)) return given;
    return `${prefix}-${(++counter).toString(36)}`;
  };
}

function logInternal(
  log: PushLog,
  request: { requestId: string; method: string; url: string; collection: unknown },
  error: unknown,
): void {
  log.error(
    {
      ...(typeof request.collection === 'string' ? { collection: request.collection } : {}),
      requestId: request.requestId,
      method: request.method,
      url: request.url,
      err: errorForLog(error),
    },
    'request failed',
  );
}
