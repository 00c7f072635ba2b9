import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { InjectOptions } from 'fastify';
import {
  assertForbidden,
  assertUnauthenticated,
  basicAuth,
  securityApp,
  type SecurityApp,
} from './helpers.js';

type Route = {
  method: InjectOptions['method'];
  url: string;
  payload?: unknown;
  headers?: Record<string, string>;
};

const KEY = '?key=http%3A%2F%2Fexample.com%2Fa';
const DOCS = (prefix: string): Route[] => {
  const c = `/push-api/${prefix}/collections/docs`;
  return [
    {
      method: 'PUT',
      url: `${c}/documents${KEY}`,
      payload: 'hello',
      headers: { 'content-type': 'text/plain' },
    },
    {
      method: 'POST',
      url: `${c}/documents/content-and-metadata${KEY}`,
      payload: 'x',
      headers: { 'content-type': 'multipart/form-data; boundary=b' },
    },
    {
      method: 'PUT',
      url: `${c}/documents/content-and-metadata${KEY}`,
      payload: 'x',
      headers: { 'content-type': 'multipart/form-data; boundary=b' },
    },
    { method: 'GET', url: `${c}/documents${KEY}` },
    { method: 'DELETE', url: `${c}/documents${KEY}` },
    { method: 'PUT', url: `${c}/redirects${KEY}&target=http%3A%2F%2Fexample.com%2Fb` },
    { method: 'DELETE', url: `${c}/redirects${KEY}` },
    { method: 'POST', url: `${c}/commit` },
    { method: 'POST', url: `${c}/vacuum?vacuum-type=MERGE` },
    { method: 'POST', url: `${c}/click-logs` },
    { method: 'PUT', url: `${c}/snapshot/s1` },
    { method: 'GET', url: `${c}/snapshot` },
    { method: 'DELETE', url: `${c}/snapshot/s1` },
    { method: 'POST', url: `${c}/restore/from-snapshot/s1` },
    { method: 'GET', url: `${c}/state` },
    { method: 'POST', url: `${c}/state/stop` },
  ];
};
const UPGRADE: Route[] = ['v1', 'v2'].flatMap((v) => [
  { method: 'POST' as const, url: `/push-api/${v}/upgrade/prepare` },
  { method: 'POST' as const, url: `/push-api/${v}/upgrade/prepare/status` },
]);
const ADMIN: Route[] = [
  { method: 'GET', url: '/admin-api/v1/collections' },
  { method: 'PUT', url: '/admin-api/v1/collections/fresh', payload: { type: 'push' } },
  { method: 'DELETE', url: '/admin-api/v1/collections/docs' },
  { method: 'GET', url: '/admin-api/v1/collections/docs/config' },
  {
    method: 'PUT',
    url: '/admin-api/v1/collections/docs/config',
    payload: { files: { 'qie.cfg': '0.9 .*' } },
  },
  { method: 'GET', url: '/admin-api/v1/users' },
  {
    method: 'PUT',
    url: '/admin-api/v1/users/mallory',
    payload: { password: 'mallory-password', permissions: ['sec.administer'], collections: ['*'] },
  },
  { method: 'DELETE', url: '/admin-api/v1/users/admin' },
  { method: 'DELETE', url: '/admin-api/v1/users/admin/tokens' },
];
const ACCOUNT: Route[] = [
  { method: 'GET', url: '/admin-api/account/v1/session' },
  { method: 'DELETE', url: '/admin-api/account/v1/session' },
];
const PUSH = [...DOCS('v1'), ...DOCS('v2')];

const USERS = {
  // Knows a password, holds no permission.
  nobody: { password: 'nobody-password', permissions: [], collections: ['*'] },
  // May push, but not to docs.
  elsewhere: { password: 'elsewhere-password', permissions: ['sec.continuous.rest'], collections: ['other'] },
  // May push to docs only.
  pusher: { password: 'pusher-password', permissions: ['sec.continuous.rest'], collections: ['docs'] },
};

describe('who may call which route', () => {
  let t: SecurityApp;
  const as = (user: keyof typeof USERS) => basicAuth(user, USERS[user].password);
  const send = (route: Route, headers: Record<string, string>) =>
    t.app.inject({
      method: route.method,
      url: route.url,
      headers: { ...route.headers, ...headers },
      ...(route.payload === undefined ? {} : { payload: route.payload as string }),
    });

  before(async () => {
    // Many wrong credentials on purpose: the throttle (tested on its own) must not answer 429 here.
    t = await securityApp(['docs', 'other'], {
      throttle: { freeFailuresPerUser: 1000, freeFailuresPerAddress: 1000 },
    });
    for (const [name, user] of Object.entries(USERS)) await t.putUser(name, user);
  });
  after(async () => t.close());

  it('every push, upgrade, admin and account route answers 401 without credentials and with wrong ones', async () => {
    for (const route of [...PUSH, ...UPGRADE, ...ADMIN, ...ACCOUNT]) {
      assertUnauthenticated(await send(route, {}), `${route.method} ${route.url} (none)`);
      assertUnauthenticated(
        await send(route, { authorization: basicAuth('nosuchuser', 'whatever-pw') }),
        `${route.method} ${route.url} (unknown user)`,
      );
      assertUnauthenticated(
        await send(route, { 'x-security-token': 'AAAAAAAAAAAA.bogus' }),
        `${route.method} ${route.url} (bad token)`,
      );
    }
    // Wrong passwords of a known user: a few only (more would lock the user, see login-throttle tests).
    assertUnauthenticated(
      await send(PUSH[0]!, { authorization: basicAuth('pusher', 'wrong-password') }),
      'wrong password',
    );
    assertUnauthenticated(
      await send(ADMIN[0]!, { authorization: basicAuth('admin', 'wrong-password') }),
      'wrong admin password',
    );
    assertUnauthenticated(await send(PUSH[0]!, { authorization: 'Basic !!!' }), 'malformed Basic');
  });

  it('push routes answer 403 without sec.continuous.rest or without the collection, and work with both', async () => {
    for (const route of PUSH) {
      assertForbidden(
        await send(route, { authorization: as('nobody') }),
        `${route.method} ${route.url} (nobody)`,
      );
      assertForbidden(
        await send(route, { authorization: as('elsewhere') }),
        `${route.method} ${route.url} (elsewhere)`,
      );
    }
    for (const route of PUSH) {
      const response = await send(route, { authorization: as('pusher') });
      assert.ok(
        ![401, 403].includes(response.statusCode),
        `${route.method} ${route.url} (pusher): ${response.body}`,
      );
    }
    const stored = await send(PUSH[0]!, { authorization: as('pusher') });
    assert.equal(stored.statusCode, 200, stored.body);
  });

  it('the upgrade calls and every admin route need sec.administer', async () => {
    for (const route of [...UPGRADE, ...ADMIN]) {
      for (const user of ['nobody', 'elsewhere', 'pusher'] as const) {
        assertForbidden(
          await send(route, { authorization: as(user) }),
          `${route.method} ${route.url} (${user})`,
        );
      }
    }
    assert.equal(t.manager.exists('fresh'), false);
    assert.equal(t.manager.exists('docs'), true);
    assert.equal(t.auth.users.get('mallory'), undefined);
  });

  it('account routes need any user, no permission', async () => {
    const session = await send(ACCOUNT[0]!, { authorization: as('nobody') });
    assert.equal(session.statusCode, 200);
    assert.deepEqual(session.json(), { user: 'nobody', permissions: [], collections: ['*'], via: 'basic' });
  });
});
