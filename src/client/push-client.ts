import { encodeContent } from './encode-content.js';
import { HttpTransport, type TransportResponse } from './http-transport.js';
import { contentAndMetadataBody, metadataHeaders, needsMultipart } from './metadata-transport.js';
import { errorFromResponse, PushApiError } from './push-api-error.js';
import type {
  ApiTokenInput,
  ApiTokenView,
  ClickLogsResponse,
  CollectionInfo,
  CommitResponse,
  DocumentResponse,
  Metadata,
  PushedDocument,
  SearchOptions,
  SearchResponse,
  Snapshot,
  StateResponse,
  StoredResponse,
  UpgradeResponse,
  UserInput,
  UserView,
  VacuumProgress,
  VacuumType,
} from './types.js';

/** Options of {@link PushClient}. */
export interface PushClientOptions {
  /** The server, e.g. `http://127.0.0.1:8080` (a path prefix is kept, for proxies). */
  url: string;
  /** The user (with `password`); not needed with `apiToken`. */
  user?: string;
  password?: string;
  /**
   * An API token an administrator created (`pushsearch token create`): sent as
   * `X-Security-Token`, no login, never revoked by {@link PushClient.close}. Instead of
   * `user` and `password`.
   */
  apiToken?: string;
  /**
   * `token` (default): log in once (`POST /admin-api/account/v1/login`) and send
   * `X-Security-Token`; a 401 fetches a new token once and repeats the request.
   * `basic`: HTTP Basic on every request (the server checks the password each time: slower).
   */
  auth?: 'token' | 'basic';
  /** Push API version prefix. Default `v2`. */
  apiVersion?: 'v1' | 'v2';
  /** Retries of a failed attempt (see {@link PushClient}). Default 3. */
  retries?: number;
  /** First backoff delay; it doubles each retry, with jitter. Default 200 ms. */
  retryDelayMs?: number;
  /** Longest `Retry-After` the client waits for; a longer one fails at once. Default 120 s. */
  maxRetryAfterMs?: number;
  /** Per-attempt timeout. Default 10 minutes (a commit or vacuum with wait can take long). */
  timeoutMs?: number;
  /** Keep-alive connections at most. Default 64. */
  maxSockets?: number;
  /** Called before each retry (progress displays count them). */
  onRetry?: (info: { request: string; attempt: number; delayMs: number; reason: string }) => void;
}

/** Options of {@link PushClient.add}. */
export interface AddOptions {
  metadata?: Record<string, string[] | string>;
  /** Media type, with a charset for text; default `text/plain; charset=utf-8` for strings. */
  contentType?: string;
  /** Filter chain for this document (e.g. `Html`), same syntax as `filter.classes`. */
  filterChain?: string;
  /** `auto` (default) picks headers or multipart by the metadata; force one for tests or proxies. */
  transport?: 'auto' | 'headers' | 'multipart';
}

interface Call {
  method: string;
  path: string;
  headers?: [string, string][];
  body?: Buffer;
  /** Repeating it has the effect of doing it once: safe to retry after a network failure. */
  idempotent: boolean;
  /** Sent without credentials (login). */
  anonymous?: boolean;
}

const LOGIN_PATH = '/admin-api/account/v1/login';
/** How long {@link PushClient.close} waits for the logout. */
const CLOSE_TIMEOUT_MS = 5000;
const TOKEN_HEADER = 'X-Security-Token';

/**
 * The client of the push API, the admin API and search.
 *
 * - Auth: token by default (one login shared by concurrent calls; a 401 logs in again once
 *   and repeats the call; a second 401 is thrown). When the user's credentials change,
 *   create a new client (the spec's rule).
 * - Errors: every failure is a {@link PushApiError} with the server's `code`, `status` and
 *   `message`.
 * - Retries, with exponential backoff: network failures and 502/503/504 for idempotent calls
 *   (GET, PUT, DELETE: repeating them changes nothing); a 503 with `Retry-After` (the
 *   server did nothing: preparing for an upgrade) for every call, after the delay it asks.
 * - Connections are kept alive; call {@link close} when done so that the process can exit.
 */
export class PushClient {
  private readonly options: Required<Omit<PushClientOptions, 'onRetry' | 'apiToken'>> &
    Pick<PushClientOptions, 'onRetry' | 'apiToken'>;
  private readonly transport: HttpTransport;
  private token: Promise<string> | undefined;
  private loginCount = 0;

  constructor(options: PushClientOptions) {
    if (options.apiToken === undefined && (options.user === undefined || options.password === undefined))
      throw new TypeError('give user and password, or an apiToken');
    this.options = {
      user: '',
      password: '',
      auth: 'token',
      apiVersion: 'v2',
      retries: 3,
      retryDelayMs: 200,
      maxRetryAfterMs: 120_000,
      timeoutMs: 600_000,
      maxSockets: 64,
      ...options,
    };
    this.transport = new HttpTransport(options.url, { maxSockets: this.options.maxSockets });
  }

  /** How many logins this client made (one, plus one per expired or revoked token). */
  get logins(): number {
    return this.loginCount;
  }

  // -----------------------------------------------------------------------------------
  // Documents

  /**
   * Adds or replaces the document at `key`. Metadata goes in headers when that is lossless,
   * else the multipart content-and-metadata endpoint is used (see `needsMultipart`).
   */
  async add(
    collection: string,
    key: string,
    content: Uint8Array | string,
    options: AddOptions = {},
  ): Promise<StoredResponse> {
    const encoded = encodeContent(content, options.contentType);
    const metadata = normalizeMetadata(options.metadata ?? {});
    const transport = options.transport ?? 'auto';
    const multipart = transport === 'multipart' || (transport === 'auto' && needsMultipart(metadata));
    const query = keyQuery(key, options.filterChain === undefined ? {} : { filters: options.filterChain });
    if (multipart) {
      const body = contentAndMetadataBody(encoded.body, encoded.contentType, metadata);
      return this.json<StoredResponse>({
        method: 'PUT',
        path: this.push(collection, `/documents/content-and-metadata${query}`),
        headers: [['Content-Type', body.contentType]],
        body: body.body,
        idempotent: true,
      });
    }
    return this.json<StoredResponse>({
      method: 'PUT',
      path: this.push(collection, `/documents${query}`),
      headers: [['Content-Type', encoded.contentType], ...metadataHeaders(metadata)],
      body: encoded.body,
      idempotent: true,
    });
  }

  /**
   * The document as pushed (staged version first), content decoded. An absent key throws a
   * {@link PushApiError} `DOCUMENT_NOT_FOUND` with status 404: the server answers 200 with
   * `pushContent: null` (as the original does, for its clients), and this client turns that
   * into the not-found error its callers (and the CLI's exit code 3) have always had.
   */
  async get(collection: string, key: string): Promise<PushedDocument> {
    const request = { method: 'GET', path: this.push(collection, `/documents${keyQuery(key)}`) } as const;
    const document = await this.json<DocumentResponse>({ ...request, idempotent: true });
    if (document.pushContent === null)
      throw new PushApiError(
        'DOCUMENT_NOT_FOUND',
        `collection ${collection} has no document with key ${document.key}`,
        { status: 404, request: `${request.method} ${pathOnly(request.path)}` },
      );
    return {
      ...document,
      pushContent: document.pushContent,
      committed: document.committed ?? false,
      content: Buffer.from(document.pushContent.content, 'base64'),
    };
  }

  /** Deletes the document at `key` (staged; answers also when it was absent). */
  delete(collection: string, key: string): Promise<StoredResponse> {
    return this.json({
      method: 'DELETE',
      path: this.push(collection, `/documents${keyQuery(key)}`),
      idempotent: true,
    });
  }

  /** Makes `key` redirect to `target`, or removes what is at `key` when `target` is null. */
  redirect(collection: string, key: string, target: string | null): Promise<StoredResponse> {
    return target === null
      ? this.json({
          method: 'DELETE',
          path: this.push(collection, `/redirects${keyQuery(key)}`),
          idempotent: true,
        })
      : this.json({
          method: 'PUT',
          path: this.push(collection, `/redirects${keyQuery(key, { target })}`),
          idempotent: true,
        });
  }

  // -----------------------------------------------------------------------------------
  // Commit, vacuum, clicks

  /** Makes staged changes searchable; `wait` (default true) answers once the generation is live. */
  commit(collection: string, wait = true): Promise<CommitResponse> {
    return this.json({
      method: 'POST',
      path: this.push(collection, `/commit?wait=${wait}`),
      idempotent: false,
    });
  }

  /** MERGE (all generations into one) or RE_INDEX (every document again under today's configuration). */
  vacuum(collection: string, type: VacuumType = 'MERGE', wait = true): Promise<VacuumProgress> {
    return this.json({
      method: 'POST',
      path: this.push(collection, `/vacuum?vacuum-type=${type}&wait=${wait}`),
      idempotent: false,
    });
  }

  /** Processes the click logs now (the server does it hourly anyway; counting twice is impossible). */
  processClickLogs(collection: string): Promise<ClickLogsResponse> {
    return this.json({ method: 'POST', path: this.push(collection, '/click-logs'), idempotent: true });
  }

  // -----------------------------------------------------------------------------------
  // Snapshots

  /** Snapshots the last commit; `SNAPSHOT_EXISTS` (409) when the name is taken. */
  createSnapshot(collection: string, name: string): Promise<Snapshot> {
    return this.json({
      method: 'PUT',
      path: this.push(collection, `/snapshot/${encodeURIComponent(name)}`),
      idempotent: false,
    });
  }

  async listSnapshots(collection: string): Promise<Snapshot[]> {
    const answer = await this.json<{ snapshots: Snapshot[] }>({
      method: 'GET',
      path: this.push(collection, '/snapshot'),
      idempotent: true,
    });
    return answer.snapshots;
  }

  deleteSnapshot(collection: string, name: string): Promise<{ message: string }> {
    return this.json({
      method: 'DELETE',
      path: this.push(collection, `/snapshot/${encodeURIComponent(name)}`),
      idempotent: true,
    });
  }

  /** Replaces the live index by the snapshot; the collection must be STOPPED ({@link stop}). */
  restoreSnapshot(collection: string, name: string): Promise<{ message: string }> {
    return this.json({
      method: 'POST',
      path: this.push(collection, `/restore/from-snapshot/${encodeURIComponent(name)}`),
      idempotent: false,
    });
  }

  // -----------------------------------------------------------------------------------
  // State and upgrade

  /** The collection's state (does not start it). */
  state(collection: string): Promise<StateResponse> {
    return this.json({ method: 'GET', path: this.push(collection, '/state'), idempotent: true });
  }

  /** Stops the collection (staged changes stay durable); the next push request starts it. */
  stop(collection: string): Promise<StateResponse> {
    return this.json({ method: 'POST', path: this.push(collection, '/state/stop'), idempotent: true });
  }

  /** Starts the installation-wide upgrade preparation (writes refused from now on). */
  prepareUpgrade(): Promise<UpgradeResponse> {
    return this.json({
      method: 'POST',
      path: `/push-api/${this.options.apiVersion}/upgrade/prepare`,
      idempotent: false,
    });
  }

  /** IN_PROGRESS or PREPARED; `UPGRADE_NOT_STARTED` (503) before {@link prepareUpgrade}. */
  upgradeStatus(): Promise<UpgradeResponse> {
    // Not retried: its 503 is an answer ("not started"), not a passing failure.
    return this.json({
      method: 'POST',
      path: `/push-api/${this.options.apiVersion}/upgrade/prepare/status`,
      idempotent: false,
    });
  }

  // -----------------------------------------------------------------------------------
  // Search

  /** Searches `collection` (`/s/search.json`); credentials are sent for collections that are not public. */
  search(collection: string, query: string, options: SearchOptions = {}): Promise<SearchResponse> {
    const params = new URLSearchParams({ collection, query });
    if (options.startRank !== undefined) params.set('start_rank', String(options.startRank));
    if (options.numRanks !== undefined) params.set('num_ranks', String(options.numRanks));
    if (options.gscope !== undefined) params.set('gscope1', options.gscope);
    for (const [name, values] of Object.entries(options.facets ?? {})) {
      for (const value of values) params.append(name.startsWith('f.') ? name : `f.${name}`, value);
    }
    for (const [name, value] of Object.entries(options.params ?? {})) {
      for (const one of Array.isArray(value) ? value : [value]) params.append(name, one);
    }
    return this.json({ method: 'GET', path: `/s/search.json?${params.toString()}`, idempotent: true });
  }

  // -----------------------------------------------------------------------------------
  // Admin API (needs sec.administer)

  async listCollections(): Promise<CollectionInfo[]> {
    const answer = await this.json<{ collections: CollectionInfo[] }>({
      method: 'GET',
      path: '/admin-api/v1/collections',
      idempotent: true,
    });
    return answer.collections;
  }

  /** Creates a push collection, or a meta collection over `members`; `COLLECTION_EXISTS` (409) when taken. */
  createCollection(
    name: string,
    members?: string[],
  ): Promise<{ message: string; collection: CollectionInfo }> {
    const body = members === undefined ? { type: 'push' } : { type: 'meta', members };
    return this.json({
      method: 'PUT',
      path: `/admin-api/v1/collections/${encodeURIComponent(name)}`,
      headers: [['Content-Type', 'application/json']],
      body: Buffer.from(JSON.stringify(body)),
      idempotent: false,
    });
  }

  deleteCollection(name: string): Promise<{ message: string }> {
    return this.json({
      method: 'DELETE',
      path: `/admin-api/v1/collections/${encodeURIComponent(name)}`,
      idempotent: false,
    });
  }

  async listUsers(): Promise<UserView[]> {
    const answer = await this.json<{ users: UserView[] }>({
      method: 'GET',
      path: '/admin-api/v1/users',
      idempotent: true,
    });
    return answer.users;
  }

  /** Creates or replaces a user (a changed password revokes its tokens). */
  putUser(
    name: string,
    user: UserInput,
  ): Promise<{ message: string; created: boolean; tokensRevoked: number; user: UserView }> {
    return this.json({
      method: 'PUT',
      path: `/admin-api/v1/users/${encodeURIComponent(name)}`,
      headers: [['Content-Type', 'application/json']],
      body: Buffer.from(JSON.stringify(user)),
      idempotent: true,
    });
  }

  deleteUser(name: string): Promise<{ message: string }> {
    return this.json({
      method: 'DELETE',
      path: `/admin-api/v1/users/${encodeURIComponent(name)}`,
      idempotent: false,
    });
  }

  /** One user (never its password). */
  async getUser(name: string): Promise<UserView> {
    const answer = await this.json<{ user: UserView }>({
      method: 'GET',
      path: `/admin-api/v1/users/${encodeURIComponent(name)}`,
      idempotent: true,
    });
    return answer.user;
  }

  /** Creates a named API token for `user`; the answer holds the token, shown this once. */
  createApiToken(
    user: string,
    input: ApiTokenInput,
  ): Promise<{ message: string; token: string; apiToken: ApiTokenView }> {
    return this.json({
      method: 'POST',
      path: `/admin-api/v1/users/${encodeURIComponent(user)}/api-tokens`,
      headers: [['Content-Type', 'application/json']],
      body: Buffer.from(JSON.stringify(input)),
      // A repeat after a lost answer would fail with API_TOKEN_EXISTS, not create a second one.
      idempotent: false,
    });
  }

  async listApiTokens(user: string): Promise<ApiTokenView[]> {
    const answer = await this.json<{ apiTokens: ApiTokenView[] }>({
      method: 'GET',
      path: `/admin-api/v1/users/${encodeURIComponent(user)}/api-tokens`,
      idempotent: true,
    });
    return answer.apiTokens;
  }

  revokeApiToken(user: string, name: string): Promise<{ message: string }> {
    return this.json({
      method: 'DELETE',
      path: `/admin-api/v1/users/${encodeURIComponent(user)}/api-tokens/${encodeURIComponent(name)}`,
      idempotent: false,
    });
  }

  /** Revokes this client's token on the server (the next call logs in again). */
  async logout(): Promise<void> {
    if (this.options.auth !== 'token' || this.token === undefined) return;
    await this.json({ method: 'DELETE', path: '/admin-api/account/v1/session', idempotent: true });
    this.token = undefined;
  }

  /**
   * Ends the client: logs out (the login token it holds is revoked on the server, so that a
   * finished program leaves no live 14-day token behind; a failure to reach the server is
   * ignored, the token then expires on its own) and closes idle keep-alive connections.
   */
  async close(): Promise<void> {
    try {
      if (this.options.auth === 'token' && this.token !== undefined) {
        const token = await this.token.catch(() => undefined);
        this.token = undefined;
        if (token !== undefined) await this.revokeSession(token);
      }
    } finally {
      this.transport.close();
    }
  }

  /** One attempt, no retry, no new login: closing must not wait for a server that is gone. */
  private async revokeSession(token: string): Promise<void> {
    try {
      await this.transport.send({
        method: 'DELETE',
        path: '/admin-api/account/v1/session',
        headers: [[TOKEN_HEADER, token]],
        timeoutMs: CLOSE_TIMEOUT_MS,
      });
    } catch {
      // Unreachable or refused: the token expires by itself.
    }
  }

  // -----------------------------------------------------------------------------------
  // Plumbing

  private push(collection: string, rest: string): string {
    return `/push-api/${this.options.apiVersion}/collections/${encodeURIComponent(collection)}${rest}`;
  }

  private async json<T>(call: Call): Promise<T> {
    const response = await this.call(call);
    try {
      return JSON.parse(response.body.toString('utf8')) as T;
    } catch (error) {
      throw new PushApiError(
        'RESPONSE_INVALID',
        `${call.method} ${pathOnly(call.path)} answered ${response.status} with a body that is not JSON`,
        {
          status: response.status,
          request: `${call.method} ${pathOnly(call.path)}`,
          cause: error,
        },
      );
    }
  }

  /** One call with auth, the 401 refresh and retries; resolves with a 2xx answer. */
  private async call(call: Call): Promise<TransportResponse> {
    const request = `${call.method} ${pathOnly(call.path)}`;
    let refreshed = false;
    for (let attempt = 0; ; attempt++) {
      let response: TransportResponse;
      let sentToken: string | undefined;
      try {
        const auth = await this.authHeader(call);
        // A login token can be renewed by logging in again; an API token cannot.
        sentToken = auth?.[0] === TOKEN_HEADER && this.options.apiToken === undefined ? auth[1] : undefined;
        response = await this.transport.send({
          method: call.method,
          path: call.path,
          headers: [
            ...(auth === undefined ? [] : [auth]),
            ['Accept', 'application/json'],
            ...(call.headers ?? []),
          ],
          body: call.body,
          timeoutMs: this.options.timeoutMs,
        });
      } catch (error) {
        if (error instanceof PushApiError) throw error;
        const failure = new PushApiError(
          'CONNECTION_FAILED',
          `${request} to ${this.transport.base.origin} failed: ${(error as Error).message}`,
          {
            status: 0,
            request,
            cause: error,
          },
        );
        if (!call.idempotent || attempt >= this.options.retries) throw failure;
        await this.backoff(request, attempt, (error as Error).message);
        continue;
      }
      if (response.status >= 200 && response.status < 300) return response;

      const error = errorFromResponse(
        response.status,
        response.body,
        request,
        header(response, 'retry-after'),
      );
      if (response.status === 401 && sentToken !== undefined && !refreshed) {
        // Expired, revoked or from before a restart: one new login, then the call again.
        refreshed = true;
        if (this.token !== undefined && (await this.token.catch(() => undefined)) === sentToken)
          this.token = undefined;
        attempt--;
        continue;
      }
      if (attempt < this.options.retries && this.retryable(call, error)) {
        const asked = error.retryAfterSeconds === undefined ? undefined : error.retryAfterSeconds * 1000;
        await this.backoff(request, attempt, `${error.status} ${error.code}`, asked);
        continue;
      }
      throw error;
    }
  }

  private retryable(call: Call, error: PushApiError): boolean {
    if (error.status === 503 && error.retryAfterSeconds !== undefined) {
      return error.retryAfterSeconds * 1000 <= this.options.maxRetryAfterMs;
    }
    return call.idempotent && (error.status === 502 || error.status === 503 || error.status === 504);
  }

  private async backoff(request: string, attempt: number, reason: string, askedMs?: number): Promise<void> {
    const exponential = this.options.retryDelayMs * 2 ** attempt;
    const delayMs = askedMs ?? Math.round(exponential / 2 + Math.random() * (exponential / 2));
    this.options.onRetry?.({ request, attempt: attempt + 1, delayMs, reason });
    await new Promise((resolve) => setTimeout(resolve, delayMs));
  }

  private async authHeader(call: Call): Promise<[string, string] | undefined> {
    if (call.anonymous === true) return undefined;
    if (this.options.apiToken !== undefined) return [TOKEN_HEADER, this.options.apiToken];
    if (this.options.auth === 'basic') {
      return [
        'Authorization',
        `Basic ${Buffer.from(`${this.options.user}:${this.options.password}`, 'utf8').toString('base64')}`,
      ];
    }
    // One login shared by every call waiting for it; a failed login is not cached.
    this.token ??= this.login().catch((error: unknown) => {
      this.token = undefined;
      throw error;
    });
    return [TOKEN_HEADER, await this.token];
  }

  private async login(): Promise<string> {
    const form = new URLSearchParams({ username: this.options.user, password: this.options.password });
    const response = await this.call({
      method: 'POST',
      path: LOGIN_PATH,
      headers: [['Content-Type', 'application/x-www-form-urlencoded']],
      body: Buffer.from(form.toString(), 'utf8'),
      idempotent: true,
      anonymous: true,
    });
    const token = header(response, 'x-security-token');
    if (token === undefined) {
      throw new PushApiError('RESPONSE_INVALID', `the login answered no ${TOKEN_HEADER} header`, {
        status: response.status,
        request: `POST ${LOGIN_PATH}`,
      });
    }
    this.loginCount++;
    return token;
  }
}

function header(response: TransportResponse, name: string): string | undefined {
  const value = response.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function keyQuery(key: string, extra: Record<string, string> = {}): string {
  return `?${new URLSearchParams({ key, ...extra }).toString()}`;
}

/** The path without its query (keys can be long and are no use in an error's headline). */
function pathOnly(path: string): string {
  const query = path.indexOf('?');
  return query < 0 ? path : path.slice(0, query);
}

function normalizeMetadata(metadata: Record<string, string[] | string>): Metadata {
  const out = Object.create(null) as Metadata;
  for (const [name, values] of Object.entries(metadata))
    out[name] = typeof values === 'string' ? [values] : [...values];
  return out;
}
