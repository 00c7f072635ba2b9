import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, it } from 'node:test';
import { LoginThrottle } from '../../src/security/login-throttle.js';
import { basicAuth, securityApp, type SecurityApp } from './helpers.js';

function login(t: SecurityApp, username: string, password: string) {
  return t.app.inject({
    method: 'POST',
    url: '/admin-api/account/v1/login',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ username, password }).toString(),
  });
}

describe('failed logins are slowed down and logged', () => {
  let t: SecurityApp | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it('after 5 wrong passwords a user is locked (429 + Retry-After) even for the right one, with a doubling delay', async () => {
    t = await securityApp(['docs']);
    await t.putUser('pusher', { password: 'pusher-password', permissions: ['sec.continuous.rest'], collections: ['docs'] });
    for (let i = 0; i < 5; i++) assert.equal((await login(t, 'pusher', `guess-${i}`)).statusCode, 401, `guess ${i}`);
    assert.equal((await login(t, 'pusher', 'pusher-password')).statusCode, 200, 'five failures are free');
    // A success clears the count; five more failures and a sixth that locks.
    for (let i = 0; i < 6; i++) assert.equal((await login(t, 'pusher', `guess-${i}`)).statusCode, 401, `guess ${i}`);
    const locked = await login(t, 'pusher', 'pusher-password');
    assert.equal(locked.statusCode, 429, locked.body);
    assert.equal(locked.json<{ error: string }>().error, 'LOGIN_RATE_LIMITED');
    assert.equal(locked.headers['retry-after'], '1');
    // Basic credentials are checked by the same throttle.
    const basic = await t.app.inject({
      method: 'GET',
      url: '/push-api/v1/collections/docs/state',
      headers: { authorization: basicAuth('pusher', 'pusher-password') },
    });
    assert.equal(basic.statusCode, 429);
    // Another user from the same address is not locked by this user's failures.
    assert.equal((await login(t, 'admin', 'test-admin-password')).statusCode, 200);

    t.advance(1001);
    assert.equal((await login(t, 'pusher', 'guess-again')).statusCode, 401);
    const longer = await login(t, 'pusher', 'pusher-password');
    assert.equal(longer.statusCode, 429);
    assert.equal(longer.headers['retry-after'], '2', 'the delay doubles');
    t.advance(2001);
    assert.equal((await login(t, 'pusher', 'pusher-password')).statusCode, 200);

    const log = readFileSync(join(t.home, 'web', 'log', 'security.log'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { msg: string; user?: string; address?: string; userFailures?: number });
    const failures = log.filter((line) => line.msg.startsWith('login failed'));
    assert.equal(failures.length, 12);
    assert.ok(failures.every((line) => line.user === 'pusher' && line.address === '127.0.0.1'));
    assert.ok(!JSON.stringify(log).includes('guess-'), 'the guessed passwords are not logged');
  });

  it('an address that fails for many user names is locked for all of them', async () => {
    t = await securityApp(['docs'], { throttle: { freeFailuresPerAddress: 3 } });
    for (const user of ['a', 'b', 'c', 'd']) assert.equal((await login(t, user, 'whatever-password')).statusCode, 401, user);
    const locked = await login(t, 'admin', 'test-admin-password');
    assert.equal(locked.statusCode, 429);
    t.advance(1001);
    assert.equal((await login(t, 'admin', 'test-admin-password')).statusCode, 200);
  });

  it('LoginThrottle: the delay is capped and failures are forgotten after a quiet period', () => {
    let now = 0;
    const throttle = new LoginThrottle({ clock: () => now, freeFailuresPerUser: 1, baseDelayMs: 1000, maxDelayMs: 4000, forgetAfterMs: 60_000 });
    throttle.recordFailure('u', 'x');
    throttle.check('u', 'x');
    const delays: number[] = [];
    for (let i = 0; i < 5; i++) {
      throttle.recordFailure('u', 'x');
      try {
        throttle.check('u', 'x');
        delays.push(0);
      } catch (error) {
        delays.push((error as { details: { retryAfter: number } }).details.retryAfter);
      }
    }
    assert.deepEqual(delays, [1, 2, 4, 4, 4]);
    now += 60_001 + 4000;
    throttle.check('u', 'x');
    throttle.recordFailure('u', 'x');
    throttle.check('u', 'x'); // the count started over: one free failure again
  });
});
