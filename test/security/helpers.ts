/** Shared set-up of the security suites: an app with users, a movable clock, explicit credentials. */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import { buildApp, type BuiltApp } from '../../src/http/build-app.js';
import type { SecurityOptions } from '../../src/security/open-security.js';
import { ADMIN_AUTH, basicAuth, TEST_SECURITY, tempHome } from '../http/helpers.js';

export { ADMIN_AUTH, basicAuth };

export interface SecurityApp extends BuiltApp {
  home: string;
  /** Moves the clock of users, tokens and the login throttle forward. */
  advance(ms: number): void;
  /** Creates (or replaces) a user through the admin API, as admin; asserts 200. */
  putUser(
    name: string,
    body: { password?: string; permissions: string[]; collections: string[] },
  ): Promise<void>;
  /** Logs in; asserts 200 and returns the token. */
  login(user: string, password: string): Promise<string>;
  close(): Promise<void>;
}

/** An app over a fresh home (admin: `ADMIN_AUTH`), with push collections `collections`. */
export async function securityApp(
  collections: string[] = ['docs', 'other'],
  security: Partial<SecurityOptions> = {},
): Promise<SecurityApp> {
  const temp = tempHome();
  let now = Date.now();
  const built = await buildApp({
    home: temp.home,
    security: { ...TEST_SECURITY, clock: () => now, ...security },
  });
  for (const name of collections) built.manager.create(name, 'push');
  const api: SecurityApp = {
    ...built,
    home: temp.home,
    advance: (ms) => {
      now += ms;
    },
    putUser: async (name, body) => {
      const response = await built.app.inject({
        method: 'PUT',
        url: `/admin-api/v1/users/${name}`,
        headers: { authorization: ADMIN_AUTH },
        payload: body,
      });
      assert.equal(response.statusCode, 200, response.body);
    },
    login: async (user, password) => {
      const response = await built.app.inject({
        method: 'POST',
        url: '/admin-api/account/v1/login',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ username: user, password }).toString(),
      });
      assert.equal(response.statusCode, 200, response.body);
      const token = response.headers['x-security-token'];
      assert.equal(typeof token, 'string');
      assert.equal(response.json<{ token: string }>().token, token);
      return token as string;
    },
    close: async () => {
      await built.app.close();
      temp.cleanup();
    },
  };
  return api;
}

/** Asserts a 401 with the Basic challenge and the UNAUTHENTICATED code. */
export function assertUnauthenticated(response: LightMyRequestResponse, what: string): void {
  assert.equal(response.statusCode, 401, `${what}: ${response.body}`);
  assert.equal(response.headers['www-authenticate'], 'Basic realm="search"', what);
  assert.equal(response.json<{ error: string }>().error, 'UNAUTHENTICATED', what);
}

/** Asserts a 403 FORBIDDEN. */
export function assertForbidden(response: LightMyRequestResponse, what: string): void {
  assert.equal(response.statusCode, 403, `${what}: ${response.body}`);
  assert.equal(response.json<{ error: string }>().error, 'FORBIDDEN', what);
}

/** Every regular file under `folder`, recursively. */
export function filesUnder(folder: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) out.push(...filesUnder(path));
    else if (entry.isFile()) out.push(path);
  }
  return out;
}

/** The files under `folder` whose bytes contain `secret`. */
export function filesContaining(folder: string, secret: string): string[] {
  return filesUnder(folder).filter((file) => readFileSync(file).includes(Buffer.from(secret)));
}

/** Permission bits of a file (e.g. 0o600). */
export function modeOf(file: string): number {
  return statSync(file).mode & 0o777;
}
