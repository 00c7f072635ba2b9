/** Shared set-up of the HTTP suites: a temporary SEARCH_HOME with an app over it. */
import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'node:test';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import type {
  CommitResponse,
  DocumentResponse,
  StateResponse,
  StoredResponse,
} from '../../src/client/types.js';
import { buildApp, type BuildAppOptions, type BuiltApp } from '../../src/http/build-app.js';
import { jsonOf, type Answer } from '../support/response-body.js';

export const VERSIONS = ['v1', 'v2'] as const;

/** Password of the `admin` user the test apps create on first start. */
export const ADMIN_PASSWORD = 'test-admin-password';
/** `Authorization` header of that admin (every permission, every collection). */
export const ADMIN_AUTH = basicAuth('admin', ADMIN_PASSWORD);
/**
 * Security options of the test apps: the known admin password, and a cheaper scrypt (the
 * stored parameters travel with each hash, so verification is exercised all the same).
 */
export const TEST_SECURITY = { adminPassword: ADMIN_PASSWORD, scrypt: { N: 1024, r: 8, p: 1 } } as const;

/** An HTTP Basic `Authorization` header value. */
export function basicAuth(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`, 'utf8').toString('base64')}`;
}

/**
 * Makes `app.inject` send the admin's Basic credentials to `/push-api/` and `/admin-api/`
 * unless the request carries credentials of its own; search routes stay anonymous (public).
 */
export function injectAsAdmin(app: FastifyInstance): void {
  const inject = app.inject.bind(app) as (options: InjectOptions) => Promise<LightMyRequestResponse>;
  (app as unknown as { inject: (options: InjectOptions) => Promise<LightMyRequestResponse> }).inject = (
    options,
  ) => {
    const url = typeof options.url === 'string' ? options.url : '';
    const headers = (options.headers ?? {}) as Record<string, string>;
    const names = Object.keys(headers).map((name) => name.toLowerCase());
    const hasCredentials = names.includes('authorization') || names.includes('x-security-token');
    const needsUser = url.startsWith('/push-api/') || url.startsWith('/admin-api/');
    return inject(
      needsUser && !hasCredentials
        ? { ...options, headers: { ...headers, authorization: ADMIN_AUTH } }
        : options,
    );
  };
}

/** A request to the admin API, `/admin-api/v1{path}`, as the admin user; a body is sent as JSON. */
export function adminRequest(
  app: FastifyInstance,
  method: InjectOptions['method'],
  path: string,
  body?: object,
): Promise<LightMyRequestResponse> {
  return app.inject({
    method,
    url: `/admin-api/v1${path}`,
    headers: { authorization: ADMIN_AUTH },
    ...(body === undefined ? {} : { payload: body }),
  });
}

/** A temporary installation folder; `cleanup` removes it. */
export function tempHome(): { home: string; cleanup: () => void } {
  const home = mkdtempSync(join(tmpdir(), 'pushsearch-http-'));
  return { home, cleanup: () => rmSync(home, { recursive: true, force: true }) };
}

/** Writes `conf/global.cfg` lines before the app is built. */
export function writeGlobalCfg(home: string, lines: string[]): void {
  mkdirSync(join(home, 'conf'), { recursive: true });
  writeFileSync(join(home, 'conf', 'global.cfg'), lines.join('\n') + '\n');
}

/** Adds lines to a collection's collection.cfg (read when the collection starts). */
export function addCollectionCfg(home: string, collection: string, lines: string[]): void {
  appendFileSync(join(home, 'conf', collection, 'collection.cfg'), lines.join('\n') + '\n');
}

export interface TestApp extends BuiltApp {
  home: string;
  /** Closes the app (stopping collections) and removes the folder. */
  close(): Promise<void>;
}

/** A built app over a fresh home, with the given push collections created. */
export async function testApp(
  collections: string[] = ['docs'],
  options: Partial<BuildAppOptions> & { global?: string[]; collectionCfg?: string[]; home?: string } = {},
): Promise<TestApp> {
  const temp = options.home === undefined ? tempHome() : { home: options.home, cleanup: () => {} };
  if (options.global !== undefined) writeGlobalCfg(temp.home, options.global);
  const built = await buildApp({
    home: temp.home,
    ...options,
    security: { ...TEST_SECURITY, ...options.security },
  });
  injectAsAdmin(built.app);
  for (const name of collections) {
    if (!built.manager.exists(name)) built.manager.create(name, 'push');
    if (options.collectionCfg !== undefined) addCollectionCfg(temp.home, name, options.collectionCfg);
  }
  return {
    ...built,
    home: temp.home,
    close: async () => {
      await built.app.close();
      temp.cleanup();
    },
  };
}

/**
 * For the tests of the calling `describe`: a function that opens an app as {@link testApp}
 * does, each one closed (its folder removed) after the test that opened it, passed or failed.
 */
export function appPerTest(): typeof testApp {
  const open: TestApp[] = [];
  afterEach(async () => {
    for (const app of open.splice(0)) await app.close();
  });
  return async (...args) => {
    const app = await testApp(...args);
    open.push(app);
    return app;
  };
}

/** `/push-api/{version}/collections/{collection}{rest}`. */
export function route(version: string, collection: string, rest: string): string {
  return `/push-api/${version}/collections/${collection}${rest}`;
}

/** `?key=…` with the key URL-encoded, plus extra parameters. */
export function keyQuery(key: string, extra: Record<string, string> = {}): string {
  const params = new URLSearchParams({ key, ...extra });
  return `?${params.toString()}`;
}

/** PUT a document through the single-part endpoint. */
export function putDocument(
  app: FastifyInstance,
  version: string,
  collection: string,
  key: string,
  body: string | Buffer,
  headers: Record<string, string> = { 'content-type': 'text/plain' },
): Promise<Answer<StoredResponse>> {
  return app.inject({
    method: 'PUT',
    url: route(version, collection, `/documents${keyQuery(key)}`),
    headers,
    payload: body,
  });
}

export function getDocument(
  app: FastifyInstance,
  version: string,
  collection: string,
  key: string,
): Promise<Answer<DocumentResponse>> {
  return app.inject({ method: 'GET', url: route(version, collection, `/documents${keyQuery(key)}`) });
}

export function commit(
  app: FastifyInstance,
  version: string,
  collection: string,
  wait = true,
): Promise<Answer<CommitResponse>> {
  return app.inject({
    method: 'POST',
    url: route(version, collection, `/commit${wait ? '' : '?wait=false'}`),
  });
}

export function state(
  app: FastifyInstance,
  version: string,
  collection: string,
): Promise<Answer<StateResponse>> {
  return app.inject({ method: 'GET', url: route(version, collection, '/state') });
}

/** A part of a hand-built multipart body. */
export interface Part {
  headers: Record<string, string>;
  body: string | Buffer;
}

/** Builds a multipart body byte by byte (so tests control exactly what is sent). */
export function multipartBody(boundary: string, parts: Part[]): Buffer {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const head = Object.entries(part.headers)
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
    chunks.push(
      Buffer.from(`--${boundary}\r\n${head}\r\n`, 'utf8'),
      Buffer.from(part.body),
      Buffer.from('\r\n'),
    );
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(chunks);
}

/**
 * True when a document GET said "no document at this key": 200 with `pushContent: null`
 * (the original's answer, which its clients rely on). Takes an inject response or a status
 * and body of a real request.
 */
export function isAbsent(
  response: LightMyRequestResponse | { status: number; body: string | Buffer },
): boolean {
  const status = 'statusCode' in response ? response.statusCode : response.status;
  if (status !== 200) return false;
  const body = JSON.parse(response.body.toString()) as { pushContent?: unknown };
  return body.pushContent === null;
}

/** The pushed content of a document GET; the test fails when no document is at the key. */
export function pushedOf(response: { body: string }): NonNullable<DocumentResponse['pushContent']> {
  const { pushContent } = jsonOf<DocumentResponse>(response);
  assert.ok(pushContent !== null, `no document at the key: ${response.body}`);
  return pushContent;
}

/** The content of a GET response, decoded from base64. */
export function contentOf(response: { body: string }): string {
  return Buffer.from(pushedOf(response).content, 'base64').toString('utf8');
}
