import { request as httpRequest, Agent as HttpAgent, type IncomingMessage } from 'node:http';
import { request as httpsRequest, Agent as HttpsAgent } from 'node:https';
import { SearchError } from '../errors.js';
import { signSyncRequest } from './sync-signature.js';

/** Path prefix of the master side of replication (served by every server). */
export const REPLICATION_PREFIX = '/replication/v1';

/** An error answered by the master (its code and message, which may be one this build lacks), or a transport failure. */
export class SyncRequestError extends SearchError<string> {
  constructor(
    code: string,
    message: string,
    readonly status: number | undefined,
  ) {
    super(code, message);
    this.name = 'SyncRequestError';
  }
}

/**
 * Signed HTTP calls from a query processor to its master (keep-alive; `http:` or `https:`).
 * Every call can be aborted, so that stopping the sync never waits for a long poll.
 */
export class SyncClient {
  private readonly base: URL;
  private readonly agent: HttpAgent;

  constructor(
    masterUrl: string,
    private readonly secret: () => string | undefined,
  ) {
    this.base = new URL(masterUrl.endsWith('/') ? masterUrl : `${masterUrl}/`);
    if (this.base.protocol !== 'http:' && this.base.protocol !== 'https:')
      throw new SearchError(
        'CONFIG_INVALID',
        `push.replication.master-url ${masterUrl} is not an http(s) URL`,
      );
    this.agent =
      this.base.protocol === 'https:'
        ? new HttpsAgent({ keepAlive: true, maxSockets: 16 })
        : new HttpAgent({ keepAlive: true, maxSockets: 16 });
  }

  get masterUrl(): string {
    return this.base.href.replace(/\/$/, '');
  }

  /**
   * Sends a signed request for `path` (below `/replication/v1`, query included) and resolves
   * with the response once its headers arrived; non-2xx answers are turned into
   * {@link SyncRequestError} with the master's code and message.
   */
  async send(
    method: 'GET' | 'POST',
    path: string,
    options: { signal?: AbortSignal; headers?: Record<string, string>; body?: Uint8Array } = {},
  ): Promise<IncomingMessage> {
    const secret = this.secret();
    if (secret === undefined || secret === '')
      throw new SyncRequestError(
        'SYNC_NOT_CONFIGURED',
        'no server_secret in global.cfg: set the same server_secret on this query processor and its master',
        undefined,
      );
    const url = new URL(`${this.base.pathname.replace(/\/$/, '')}${REPLICATION_PREFIX}${path}`, this.base);
    const signedPath = `${url.pathname}${url.search}`;
    const headers = {
      ...options.headers,
      ...signSyncRequest(secret, method, signedPath, options.body),
      ...(options.body !== undefined
        ? { 'content-type': 'application/json', 'content-length': String(options.body.length) }
        : {}),
    };
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const response = await new Promise<IncomingMessage>((resolve, reject) => {
      const req = send(url, { method, headers, agent: this.agent, signal: options.signal }, resolve);
      req.on('error', (error) =>
        reject(
          options.signal?.aborted === true
            ? error
            : new SyncRequestError(
                'SYNC_MASTER_UNREACHABLE',
                `cannot reach the master at ${this.masterUrl}: ${error.message}`,
                undefined,
              ),
        ),
      );
      req.end(options.body);
    });
    const status = response.statusCode ?? 0;
    if (status >= 200 && status < 300) return response;
    const text = await readText(response).catch(() => '');
    let code = 'SYNC_MASTER_ERROR';
    let message = `the master at ${this.masterUrl} answered ${status}`;
    try {
      const body = JSON.parse(text) as { error?: unknown; message?: unknown };
      if (typeof body.error === 'string') code = body.error;
      if (typeof body.message === 'string')
        message = `the master at ${this.masterUrl} refused: ${body.message}`;
    } catch {
      // Not our error body (a proxy's page): keep the status.
    }
    throw new SyncRequestError(code, message, status);
  }

  /** A signed GET whose JSON answer is returned. */
  async getJson(path: string, signal?: AbortSignal): Promise<unknown> {
    const response = await this.send('GET', path, { signal });
    const text = await readText(response);
    try {
      return JSON.parse(text);
    } catch {
      throw new SyncRequestError(
        'SYNC_MASTER_ERROR',
        `the master at ${this.masterUrl} answered no JSON`,
        200,
      );
    }
  }

  close(): void {
    this.agent.destroy();
  }
}

export function readText(response: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    response.on('data', (chunk: Buffer) => chunks.push(chunk));
    response.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    response.on('error', reject);
    response.on('aborted', () => reject(new Error('response aborted')));
  });
}
