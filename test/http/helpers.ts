/** Shared set-up of the HTTP suites: a temporary SEARCH_HOME with an app over it. */
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { buildApp, type BuildAppOptions, type BuiltApp } from '../../src/http/build-app.js';

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
): Promise<LightMyRequestResponse> {
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
): Promise<LightMyRequestResponse> {
  return app.inject({ method: 'GET', url: route(version, collection, `/documents${keyQuery(key)}`) });
}

export function commit(
  app: FastifyInstance,
  version: string,
  collection: string,
  wait = true,
): Promise<LightMyRequestResponse> {
  return app.inject({
    method: 'POST',
    url: route(version, collection, `/commit${wait ? '' : '?wait=false'}`),
  });
}

export function state(
  app: FastifyInstance,
  version: string,
  collection: string,
): Promise<LightMyRequestResponse> {
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

/** Polls `check` until it returns true or `timeoutMs` passes (then throws with `what`). */
export async function waitFor(
  what: string,
  check: () => Promise<boolean> | boolean,
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
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

/** The content of a GET response, decoded from base64. */
export function contentOf(response: LightMyRequestResponse): string {
  return Buffer.from(
    response.json<{ pushContent: { content: string } }>().pushContent.content,
    'base64',
  ).toString('utf8');
}

/** The compiled CLI entry point. */
export const MAIN = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'src', 'cli', 'main.js');

/**
 * Starts the CLI server (`node dist/src/cli/main.js serve`) on a free port, or on `port` (a
 * restart where a client expects it); resolves once it listens.
 */
export function spawnServer(
  home: string,
  options: { viaEnvironment?: boolean; port?: number } = {},
): Promise<{ child: ChildProcess; port: number; exited: Promise<number | null> }> {
  const viaEnvironment = options.viaEnvironment === true;
  const port = String(options.port ?? 0);
  const args = viaEnvironment ? [MAIN, 'serve'] : [MAIN, 'serve', '--home', home, '--port', port];
  const child = spawn(process.execPath, args, {
    env: {
      ...process.env,
      LOG_LEVEL: 'info',
      SEARCH_ADMIN_PASSWORD: ADMIN_PASSWORD,
      ...(viaEnvironment ? { SEARCH_HOME: home, PORT: port, HOST: '127.0.0.1' } : {}),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    let output = '';
    let listening = false;
    let errors = '';
    child.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
    // Keep reading the request log so that the child never blocks on a full pipe.
    child.stdout.on('data', (chunk: Buffer) => {
      if (listening) return;
      output += chunk.toString();
      const match = /pushsearch listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(output);
      if (match !== null) {
        listening = true;
        resolve({ child, port: Number(match[1]), exited });
      }
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code} before listening: ${errors}`)));
  });
}

/** The answer of {@link requestAsAdmin}. */
export interface AdminAnswer {
  status: number;
  body: string;
}

/**
 * One request to a real server (see {@link spawnServer}) as the admin, over `agent`; a body
 * is sent as text/plain. Rejects on a connection error (e.g. the server was killed).
 */
export function requestAsAdmin(
  port: number,
  agent: http.Agent,
  method: string,
  path: string,
  body?: string,
): Promise<AdminAnswer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        agent,
        headers:
          body === undefined
            ? { authorization: ADMIN_AUTH }
            : { 'content-type': 'text/plain', authorization: ADMIN_AUTH },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * The crash tests' stream: PUTs documents 0, 1, 2, ... (`path(i)`, `content(i)`) to a real
 * server over 16 concurrent requests and kills it with SIGKILL once `killAfter` were answered
 * 200. Resolves when every request loop has hit the dead server, with the documents answered
 * 200, those that got another answer or none, and how many were sent.
 */
export async function putUntilKilled(
  server: { child: ChildProcess; port: number },
  agent: http.Agent,
  options: { path: (i: number) => string; content: (i: number) => string; killAfter: number },
): Promise<{ acked: Set<number>; failed: Set<number>; sent: number }> {
  const acked = new Set<number>();
  const failed = new Set<number>();
  let next = 0;
  let killed = false;
  const worker = async (): Promise<void> => {
    // Runs until the kill makes a request fail (the cap only guards against a server that never dies).
    while (next < 100_000) {
      const i = next++;
      try {
        const answer = await requestAsAdmin(server.port, agent, 'PUT', options.path(i), options.content(i));
        if (answer.status === 200) acked.add(i);
        else failed.add(i);
      } catch {
        failed.add(i);
        return;
      }
      if (!killed && acked.size >= options.killAfter) {
        killed = true;
        server.child.kill('SIGKILL');
      }
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
  return { acked, failed, sent: next };
}
