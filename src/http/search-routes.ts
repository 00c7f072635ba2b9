import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { CollectionManager } from '../collection/collection-manager.js';
import { collectionTypeOf, metaMembersOf } from '../collection/collection-settings.js';
import { gscopeIdProblem } from '../collection/config/gscopes.js';
import { validateName } from '../collection/search-home.js';
import { SearchError } from '../errors.js';
import { appendClick } from '../collection/evidence/click-log.js';
import {
  ClickDeduper,
  clickAddress,
  clickRateLimit,
  DEFAULT_CLICK_LIMITS,
  installClickRateLimit,
  type ClickLimits,
} from './click-guard.js';
import {
  facetDefinitions,
  SearchService,
  type FacetSelection,
  type SearchParams,
} from '../search/search-service.js';
import { SEARCH_RESPONSE_SCHEMA } from '../search/result-packet.js';
import { parseGeoPoint, parseSortMode, SORT_MODES_HELP } from '../search/result-order.js';
import { ERROR_RESPONSES } from './common-schemas.js';
import { errorReply } from './error-reply.js';
import { renderErrorPage } from './search-page/error-page.js';
import { PAGE_STYLE_SOURCE } from './search-page/page-layout.js';
import { renderResultsPage } from './search-page/results-page.js';
import { pageHeaders } from './security-headers.js';
import { serverTimingHeader } from './server-timing.js';

/**
 * Decides whether a request may search a collection that is not public
 * (`search.public=false` in its collection.cfg, or in a member's for a meta collection).
 * Return to allow; throw a `SearchError` (`UNAUTHENTICATED`, `FORBIDDEN`) to refuse. The auth
 * issue plugs in here; without one, such collections answer 401.
 */
export type SearchAuthorizer = (request: FastifyRequest, collection: string) => Promise<void> | void;

/** Options of the {@link searchRoutes} plugin. */
export interface SearchRoutesOptions {
  manager: CollectionManager;
  /** The query processor; one is created over `manager` when not given. */
  service?: SearchService;
  /** Access to collections that are not public; none: they answer 401. */
  authorizeSearch?: SearchAuthorizer;
  /**
   * Called with failures that are ours (5xx) that the results page answers itself as HTML
   * (the app's error handler never sees them), so that they are logged all the same.
   */
  onInternalError?: (request: FastifyRequest, error: unknown) => void;
  /** Makes paths in the error pages' messages relative to the home (the page is public); default: none. */
  hidePaths?: (text: string) => string;
  /** What one client may click (`/s/redirect`); default {@link DEFAULT_CLICK_LIMITS}. */
  clickLimits?: ClickLimits;
  /** Called when a click is not logged because the collection's click log is at its cap (once until it has room again). */
  onClickLogFull?: (collection: string) => void;
}

/** Default of `num_ranks`. */
export const DEFAULT_NUM_RANKS = 10;
/** Largest `num_ranks`. */
export const MAX_NUM_RANKS = 1000;
/**
 * Largest `start_rank`. The query processor keeps `start_rank + num_ranks` hits in memory,
 * so deep paging is bounded (as Elasticsearch's `max_result_window` does): past this rank,
 * refining the query is the way on.
 */
export const MAX_START_RANK = 10_000;

const TAGS = ['search'];

/**
 * The query string of `/s/search.json` and `/s/search.html`, for the OpenAPI document. The
 * routes do not validate with it: `parseSearchParams` reads and checks the query string
 * itself (repeated names, the `f.<Name>|<class>`, `ge_<class>` and `le_<class>` families, which
 * a schema cannot list, messages that say what to fix, and an HTML error page for the page
 * route). Keep it in step with `parseSearchParams`.
 */
const SEARCH_QUERYSTRING = {
  type: 'object',
  properties: {
    collection: {
      type: 'string',
      description: 'The collection (push or meta) to search.',
      examples: ['docs'],
    },
    query: {
      type: 'string',
      description:
        'The query: words (documents with all of them first), "phrases", +required, -excluded, [any of], class:word, prefix*.',
      examples: ['install server'],
    },
    start_rank: {
      type: 'integer',
      description: `First result, 1-based (at most ${MAX_START_RANK}).`,
      examples: [1],
    },
    num_ranks: {
      type: 'integer',
      description: `Results per page (default ${DEFAULT_NUM_RANKS}, at most ${MAX_NUM_RANKS}).`,
      examples: [10],
    },
    // No examples: Swagger UI fills them into "try it out", and these narrow the answer.
    fmo: { type: 'string', description: '"on": fully matching results only.' },
    gscope1: { type: 'string', description: 'Only documents of this gscope (gscopes.cfg), e.g. manuals.' },
    sort: {
      type: 'string',
      description:
        "Order (the original's modes): score (relevance, default), date, adate, title, dtitle, url, durl, prox, dprox, meta<class>, dmeta<class>.",
    },
    origin: {
      type: 'string',
      description: 'latitude,longitude: results carry kmFromOrigin; needed by prox and maxdist.',
    },
    maxdist: {
      type: 'number',
      description: 'Only results within this many km of origin (metamap type 2 classes).',
    },
  },
  required: ['collection'],
} as const;

/** The query string of `/s/redirect` (documentation only, as {@link SEARCH_QUERYSTRING}). */
const REDIRECT_QUERYSTRING = {
  type: 'object',
  properties: {
    collection: { type: 'string', description: 'The collection searched.', examples: ['docs'] },
    url: {
      type: 'string',
      description: 'The clicked result.',
      examples: ['https://example.com/guide/install'],
    },
    auth: {
      type: 'string',
      description: 'The HMAC of url that the clickTrackingUrl carries.',
      examples: ['k3J…'],
    },
    rank: { type: 'integer', description: 'The rank of the clicked result.', examples: [1] },
    query: { type: 'string', description: 'The query of the search.', examples: ['install server'] },
  },
  required: ['url', 'auth', 'rank'],
} as const;

/** Route option: the query string schema documents, the handler validates. */
const DOCUMENTED_QUERYSTRING = {
  validatorCompiler: () => () => true,
} as const;
const CLASS_NAME = /^[A-Za-z0-9]{1,64}$/;
const WHOLE_NUMBER = /^\s*\d{1,9}\s*$/;

/**
 * The public search surface, registered under `/s`:
 * - `GET /s/search.json`: the result packet of the API contract, as JSON.
 * - `GET /s/search.html`: the server-rendered results page (HTML errors too).
 * - `GET /s/redirect`: logs a click on a result and redirects to it, only to URLs the
 *   server signed (the `auth` HMAC), so it is no open redirect.
 *
 * Parameters (both search routes): `collection` (required), `query`, `start_rank` (1 to
 * {@link MAX_START_RANK}), `num_ranks` (1 to {@link MAX_NUM_RANKS}), `fmo=on`, `gscope1=ID`,
 * `f.<Name>|<class>=value` (repeatable; `f.<Name>` alone uses the class of `facet.<Name>`),
 * `ge_<class>=n`, `le_<class>=n`. Unknown parameters are ignored (forms may add their own).
 */
export async function searchRoutes(app: FastifyInstance, options: SearchRoutesOptions): Promise<void> {
  const { manager } = options;
  const clickLimits = options.clickLimits ?? DEFAULT_CLICK_LIMITS;
  const clickDeduper = new ClickDeduper(clickLimits.dedupeSeconds * 1000);
  /** Collections whose click log was found full (reported once until a click fits again). */
  const fullClickLogs = new Set<string>();
  await installClickRateLimit(app);
  const service = options.service ?? new SearchService(manager);
  const authorize: SearchAuthorizer =
    options.authorizeSearch ??
    ((_request, collection) => {
      throw new SearchError(
        'UNAUTHENTICATED',
        `collection ${collection} is not public (search.public=false in its collection.cfg) and this server has no search authentication yet: set search.public=true to allow anonymous search`,
      );
    });

  /**
   * Validates the request; throws `SearchError` for anything the client must fix. Answers
   * at once when no authorizer has to be asked (a public collection: no promise per search).
   */
  const searchParamsOf = (request: FastifyRequest): SearchParams | Promise<SearchParams> => {
    const query = queryOf(request);
    const collection = requireCollection(manager, query.get('collection'));
    const parse = () =>
      parseSearchParams(
        query,
        collection,
        (name) => facetDefinitions(manager.settings.get(collection)).find((d) => d.name === name)?.className,
      );
    const access = checkAccess(manager, request, collection, authorize);
    return access === undefined ? parse() : access.then(parse);
  };

  app.get(
    '/search.json',
    {
      ...DOCUMENTED_QUERYSTRING,
      schema: {
        tags: TAGS,
        summary: 'Search a collection (result packet as JSON)',
        description:
          'Parameters: collection (required), query, start_rank (1-based, default 1), num_ranks (default 10, at most 1000), fmo=on (fully matching only), gscope1=ID, f.<Name>|<class>=value (facet selection, repeatable), ge_<class>=n and le_<class>=n (numeric range). Answers {"question", "response": {"resultPacket", "facets"}}; its Server-Timing header says where the time went (wait, hop, search, serialize, total; milliseconds).',
        querystring: SEARCH_QUERYSTRING,
        response: { 200: SEARCH_RESPONSE_SCHEMA, ...ERROR_RESPONSES },
      },
    },
    // Not async: a public collection's search makes one promise here, the pool's answer
    // (Fastify answers an error thrown here as one rejected).
    (request, reply) => {
      const params = searchParamsOf(request);
      const json =
        params instanceof Promise
          ? params.then((checked) => service.searchJson(checked))
          : service.searchJson(params);
      return json.then(({ json: bytes, timing }) => {
        // The packet's bytes as serialised with the 200 schema above (packet-json.ts), on the
        // search thread: sent as they are, not serialised again here.
        void reply
          .header('cache-control', 'no-store')
          .header('server-timing', serverTimingHeader({ ...timing, total: reply.elapsedTime }))
          .type('application/json; charset=utf-8');
        return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      });
    },
  );

  app.get(
    '/search.html',
    {
      ...DOCUMENTED_QUERYSTRING,
      helmet: SEARCH_PAGE_HEADERS,
      schema: {
        tags: TAGS,
        summary: 'Search results page (HTML)',
        description:
          'The same parameters as /s/search.json, answered as a server-rendered page; errors are HTML pages too. Its Server-Timing header says where the time went (wait, hop, search, render, total; milliseconds).',
        querystring: SEARCH_QUERYSTRING,
      },
    },
    async (request, reply) => {
      htmlHeaders(reply);
      const raw = queryOf(request);
      try {
        const params = await searchParamsOf(request);
        const { response, timing } = await service.searchTimed(params);
        const rendering = performance.now();
        const page = renderResultsPage(params, response, { maxStartRank: MAX_START_RANK });
        const render = performance.now() - rendering;
        const { wait, hop, search } = timing;
        void reply.header(
          'server-timing',
          serverTimingHeader({ wait, hop, search, render, total: reply.elapsedTime }),
        );
        return page;
      } catch (error) {
        const answer = errorReply(error, request.id);
        if (answer.internal) options.onInternalError?.(request, error);
        // No WWW-Authenticate on the page: a browser would prompt for a password that no
        // account can satisfy yet (the JSON route sends it; the auth issue decides here).
        const { ['www-authenticate']: _challenge, ...headers } = answer.headers;
        void reply.code(answer.status).headers(headers);
        return renderErrorPage({
          status: answer.status,
          code: answer.body.error,
          message: options.hidePaths?.(answer.body.message) ?? answer.body.message,
          collection: raw.get('collection') ?? '',
          query: raw.get('query') ?? '',
        });
      }
    },
  );

  app.get(
    '/redirect',
    {
      ...DOCUMENTED_QUERYSTRING,
      // The site followed to learns our origin (where its visitors come from), not the query.
      helmet: { referrerPolicy: { policy: 'strict-origin-when-cross-origin' } },
      config: clickRateLimit(clickLimits),
      schema: {
        tags: TAGS,
        summary: 'Log a click on a result and redirect to it',
        description:
          'Parameters: collection, url, auth (the HMAC the result link carries), rank, query. Redirects (302) only to a URL whose auth is valid, else 400 REDIRECT_INVALID and nothing is logged.',
        querystring: REDIRECT_QUERYSTRING,
      },
    },
    async (request, reply) => {
      const query = queryOf(request);
      const url = query.get('url') ?? '';
      const auth = query.get('auth') ?? '';
      if (url === '' || auth === '' || !service.verifyUrl(url, auth)) {
        return invalidRedirect(
          reply,
          url === '' || auth === ''
            ? 'the url and auth parameters are required: use the clickTrackingUrl of a search result as it is'
            : 'the auth parameter does not match the url: use the clickTrackingUrl of a search result as it is, without changing it',
        );
      }
      const rankText = query.get('rank') ?? '';
      const rank = WHOLE_NUMBER.test(rankText) ? Number(rankText) : NaN;
      if (!(rank >= 1))
        return invalidRedirect(reply, `rank must be a whole number ≥ 1, got ${JSON.stringify(rankText)}`);
      // The collection is not covered by the signature: a name that is invalid or gone (deleted
      // since the search) is not logged, but the signed URL is still followed. HEAD requests
      // and browser prefetches are link checkers and speculation, not clicks.
      const collection = query.get('collection') ?? '';
      // A repeat of a click logged lately (same address, result and query) is followed, not counted.
      const clickQuery = query.get('query') ?? '';
      if (
        request.method === 'GET' &&
        !isPrefetch(request) &&
        collectionExists(manager, collection) &&
        clickDeduper.admit(clickAddress(request), collection, url, clickQuery)
      ) {
        const logged = await appendClick(
          manager.home,
          collection,
          { time: new Date(), collection, query: clickQuery, rank, url, ip: request.ip },
          { maxBytes: clickLimits.maxLogBytes },
        );
        if (logged === 'log-full' && !fullClickLogs.has(collection)) {
          fullClickLogs.add(collection);
          options.onClickLogFull?.(collection);
        } else if (logged === 'logged') fullClickLogs.delete(collection);
      }
      void reply.header('cache-control', 'no-store');
      return reply.code(302).header('location', locationHeader(url)).send();
    },
  );
}

/**
 * Reads and validates the search parameters of a request (everything but the collection,
 * which the caller checked). `facetClass` resolves `f.<Name>` without `|<class>` from the
 * collection's `facet.<Name>` definitions. Throws `PARAMETER_INVALID` saying what to fix.
 */
export function parseSearchParams(
  query: URLSearchParams,
  collection: string,
  facetClass: (name: string) => string | undefined = () => undefined,
): SearchParams {
  const startRank = wholeNumber(query, 'start_rank', 1, 1, MAX_START_RANK);
  const numRanks = wholeNumber(query, 'num_ranks', DEFAULT_NUM_RANKS, 1, MAX_NUM_RANKS);
  const fmo = onOff(query, 'fmo');
  const gscope = (query.get('gscope1') ?? '').trim();
  if (gscope !== '') {
    const problem = gscopeIdProblem(gscope);
    if (problem !== undefined) throw invalid(`gscope1: ${problem}`);
  }
  const selections = new Map<string, FacetSelection>();
  const ranges = new Map<string, { className: string; min?: number; max?: number }>();
  for (const [name, value] of query) {
    if (name.startsWith('f.')) {
      const spec = name.slice(2);
      const bar = spec.lastIndexOf('|');
      const facetName = bar < 0 ? spec : spec.slice(0, bar);
      const className = bar < 0 ? facetClass(spec) : spec.slice(bar + 1);
      if (facetName === '') throw invalid(`${name}: name the facet, as in f.Author|author=Ann`);
      if (className === undefined) {
        throw invalid(
          `${name}: no facet ${facetName} is defined for this collection; name its class, as in f.${facetName}|class=value`,
        );
      }
      if (!CLASS_NAME.test(className))
        throw invalid(
          `${name}: the class ${JSON.stringify(className)} may only contain 1-64 ASCII letters and digits`,
        );
      const key = `${facetName}|${className}`;
      const selection = selections.get(key) ?? { name: facetName, className, values: [] };
      selections.set(key, selection);
      const trimmed = value.trim();
      if (trimmed !== '' && !selection.values.includes(trimmed)) selection.values.push(trimmed);
    } else if (name.startsWith('ge_') || name.startsWith('le_')) {
      const className = name.slice(3);
      if (!CLASS_NAME.test(className))
        throw invalid(
          `${name}: the class ${JSON.stringify(className)} may only contain 1-64 ASCII letters and digits`,
        );
      if (value.trim() === '') continue;
      const bound = Number(value);
      if (!Number.isFinite(bound)) throw invalid(`${name} must be a number, got ${JSON.stringify(value)}`);
      const range = ranges.get(className) ?? { className };
      ranges.set(className, range);
      if (name.startsWith('ge_')) range.min = range.min === undefined ? bound : Math.max(range.min, bound);
      else range.max = range.max === undefined ? bound : Math.min(range.max, bound);
    }
  }
  const sort = parseSortMode(query.get('sort'));
  if (sort === undefined)
    throw invalid(`sort=${query.get('sort')} is not a sort mode; use one of ${SORT_MODES_HELP}`);
  const originText = (query.get('origin') ?? '').trim();
  const origin = originText === '' ? undefined : parseGeoPoint(originText, ',');
  if (originText !== '' && origin === undefined)
    throw invalid(
      `origin=${originText} is not a location: write origin=latitude,longitude in degrees, e.g. origin=54.15,-0.89`,
    );
  const maxdistText = (query.get('maxdist') ?? '').trim();
  const maxdist = maxdistText === '' ? undefined : Number(maxdistText);
  if (maxdist !== undefined && (!Number.isFinite(maxdist) || maxdist < 0))
    throw invalid(`maxdist=${maxdistText} must be a distance in km (a number, 0 or more)`);
  if (maxdist !== undefined && origin === undefined) throw invalid('maxdist needs origin=latitude,longitude');
  if (sort.kind === 'prox' && origin === undefined)
    throw invalid('sort=prox needs origin=latitude,longitude');
  return {
    collection,
    query: query.get('query') ?? '',
    startRank,
    numRanks,
    fmo,
    ...(gscope !== '' ? { gscope } : {}),
    facetSelections: [...selections.values()],
    ranges: [...ranges.values()],
    ...(sort.kind !== 'relevance' ? { sort } : {}),
    ...(origin !== undefined ? { origin } : {}),
    ...(maxdist !== undefined ? { maxdist } : {}),
  };
}

/** The query string as the browser sent it (repeated names kept, `+` as space, as forms encode). */
function queryOf(request: FastifyRequest): URLSearchParams {
  const at = request.url.indexOf('?');
  return new URLSearchParams(at < 0 ? '' : request.url.slice(at + 1));
}

function requireCollection(manager: CollectionManager, name: string | null): string {
  if (name === null || name.trim() === '') {
    throw invalid('the collection parameter is missing: add ?collection=NAME to search a collection');
  }
  validateName('collection', name);
  if (!manager.exists(name)) {
    throw new SearchError(
      'COLLECTION_NOT_FOUND',
      `collection ${name} does not exist: check the collection parameter`,
    );
  }
  return name;
}

/** `Sec-Purpose: prefetch` (Chrome, Firefox) or the older `Purpose: prefetch`. */
function isPrefetch(request: FastifyRequest): boolean {
  const purpose = request.headers['sec-purpose'] ?? request.headers.purpose;
  return typeof purpose === 'string' && purpose.toLowerCase().includes('prefetch');
}

function collectionExists(manager: CollectionManager, name: string): boolean {
  try {
    return name !== '' && manager.exists(name);
  } catch {
    return false; // an invalid name
  }
}

/**
 * Runs the authorizer when the collection, or a member of a meta collection, is not public:
 * its promise when it returns one (undefined when everything searched is public, or the
 * authorizer answered at once). Asked on every request: access is never remembered.
 */
function checkAccess(
  manager: CollectionManager,
  request: FastifyRequest,
  collection: string,
  authorize: SearchAuthorizer,
): Promise<void> | undefined {
  const settings = manager.settings.get(collection);
  const names =
    collectionTypeOf(settings) === 'meta' ? [collection, ...metaMembersOf(settings)] : [collection];
  for (const name of names) {
    if (name !== collection && !manager.exists(name)) continue; // a missing member: the search reports it
    // A value other than true or false never loads (COLLECTION_CONFIG_BROKEN): a typo fails
    // closed instead of making a private collection public.
    if (manager.settings.get(name).config.searchPublic) continue;
    const decided = authorize(request, collection);
    return decided instanceof Promise ? decided : undefined;
  }
  return undefined;
}

function wholeNumber(
  query: URLSearchParams,
  name: string,
  fallback: number,
  min: number,
  max: number,
): number {
  const text = query.get(name);
  if (text === null || text.trim() === '') return fallback;
  const value = WHOLE_NUMBER.test(text) ? Number(text) : NaN;
  if (!(value >= min && value <= max)) {
    throw invalid(`${name} must be a whole number from ${min} to ${max}, got ${JSON.stringify(text)}`);
  }
  return value;
}

function onOff(query: URLSearchParams, name: string): boolean {
  const text = (query.get(name) ?? '').trim().toLowerCase();
  if (text === 'on' || text === 'true' || text === '1') return true;
  if (text === '' || text === 'off' || text === 'false' || text === '0') return false;
  throw invalid(`${name} must be on or off, got ${JSON.stringify(query.get(name))}`);
}

function invalid(message: string): SearchError {
  return new SearchError('PARAMETER_INVALID', message);
}

/**
 * `REDIRECT_INVALID` is answered here rather than thrown: the status table of
 * `error-status.ts` does not list it yet, and it must stay a 400 (never a redirect).
 */
function invalidRedirect(reply: FastifyReply, message: string): FastifyReply {
  return reply
    .code(400)
    .header('cache-control', 'no-store')
    .send({ status: 400, error: 'REDIRECT_INVALID', message });
}

/**
 * Keys may hold non-ASCII characters (IRIs) and a header may not: percent-encode them (and
 * any space or control character) as UTF-8, which is what a browser does with such a link.
 */
function locationHeader(url: string): string {
  return url.replace(/[^\x21-\x7E]+/g, (run) => encodeURIComponent(run));
}

/**
 * The page loads nothing (no script, no image, no font) and its only style is its own inline
 * stylesheet, allowed by hash: the policy says so, so that a bug in escaping could not run
 * or load anything either. A result followed from it tells the site only our origin.
 */
const SEARCH_PAGE_HEADERS = pageHeaders(
  `default-src 'none'; style-src ${PAGE_STYLE_SOURCE}; img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'`,
  'strict-origin-when-cross-origin',
);

function htmlHeaders(reply: FastifyReply): void {
  void reply.type('text/html; charset=utf-8').header('cache-control', 'no-store');
}
