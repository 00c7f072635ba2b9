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
    await t.putUser('pusher', {
      password: 'pusher-password',
      permissions: ['sec.continuous.rest'],
      collections: ['docs'],
    });
    for (let i = 0; i < 5; i++)
      assert.equal((await login(t, 'pusher', `guess-${i}`)).statusCode, 401, `guess ${i}`);
    assert.equal((await login(t, 'pusher', 'pusher-password')).statusCode, 200, 'five failures are free');
    // A success clears the count; five more failures and a sixth that locks.
    for (let i = 0; i < 6; i++)
      assert.equal((await login(t, 'pusher', `guess-${i}`)).statusCode, 401, `guess ${i}`);
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
      .map(
        (line) => JSON.parse(line) as { msg: string; user?: string; address?: string; userFailures?: number },
      );
    const failures = log.filter((line) => line.msg.startsWith('login failed'));
    assert.equal(failures.length, 12);
    assert.ok(failures.every((line) => line.user === 'pusher' && line.address === '127.0.0.1'));
    assert.ok(!JSON.stringify(log).includes('guess-'), 'the guessed passwords are not logged');
  });

  it('a guesser elsewhere does not lock out an address that logged the user in; a success there gives the guesser no fresh tries', async () => {
    t = await securityApp(['docs']);
    await t.putUser('pusher', {
      password: 'pusher-password',
      permissions: ['sec.continuous.rest'],
      collections: ['docs'],
    });
    const push = (remoteAddress: string) =>
      t!.app.inject({
        method: 'GET',
        url: '/push-api/v1/collections/docs/state',
        remoteAddress,
        headers: { authorization: basicAuth('pusher', 'pusher-password') },
      });
    const guess = (remoteAddress: string, password: string) =>
      t!.app.inject({
        method: 'POST',
        url: '/admin-api/account/v1/login',
        remoteAddress,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ username: 'pusher', password }).toString(),
      });
    assert.equal((await push('10.0.0.1')).statusCode, 200, 'the push client logs in once');
    for (let i = 0; i < 6; i++)
      assert.equal((await guess('10.0.0.66', `guess-${i}`)).statusCode, 401, `guess ${i}`);
    assert.equal(
      (await guess('10.0.0.66', 'pusher-password')).statusCode,
      429,
      'the user is locked for the guesser',
    );
    assert.equal((await push('10.0.0.2')).statusCode, 429, 'and for an address that never logged it in');
    // The push client goes on, again and again, and its successes do not reset the guesser's count.
    for (let i = 0; i < 3; i++)
      assert.equal((await push('10.0.0.1')).statusCode, 200, `push ${i} from the trusted address`);
    t.advance(1001);
    assert.equal((await guess('10.0.0.66', 'guess-again')).statusCode, 401);
    const relocked = await guess('10.0.0.66', 'pusher-password');
    assert.equal(relocked.statusCode, 429, 'one more failure locks again: no fresh free failures');
    assert.equal(relocked.headers['retry-after'], '2');
    // A wrong password from the trusted address ends its exemption.
    const typo = await t.app.inject({
      method: 'GET',
      url: '/push-api/v1/collections/docs/state',
      remoteAddress: '10.0.0.1',
      headers: { authorization: basicAuth('pusher', 'wrong-password') },
    });
    assert.equal(typo.statusCode, 401);
    assert.equal((await push('10.0.0.1')).statusCode, 429, 'no longer trusted after a failure');
  });

  it('an address that fails for many user names is locked for all of them', async () => {
    t = await securityApp(['docs'], { throttle: { freeFailuresPerAddress: 3 } });
    for (const user of ['a', 'b', 'c', 'd'])
      assert.equal((await login(t, user, 'whatever-password')).statusCode, 401, user);
    const locked = await login(t, 'admin', 'test-admin-password');
    assert.equal(locked.statusCode, 429);
    t.advance(1001);
    assert.equal((await login(t, 'admin', 'test-admin-password')).statusCode, 200);
  });

  it('LoginThrottle: the delay is capped and failures are forgotten after a quiet period', () => {
    let now = 0;
    const throttle = new LoginThrottle({
      clock: () => now,
      freeFailuresPerUser: 1,
      baseDelayMs: 1000,
      maxDelayMs: 4000,
      forgetAfterMs: 60_000,
    });
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

  it('LoginThrottle: a success clears only failures from its own address; trust ends after trustForMs', () => {
    let now = 0;
    const throttle = new LoginThrottle({
      clock: () => now,
      freeFailuresPerUser: 2,
      baseDelayMs: 60_000,
      trustForMs: 10_000,
    });
    const locked = (user: string, address: string): boolean => {
      try {
        throttle.check(user, address);
        return false;
      } catch {
        return true;
      }
    };
    // The user's own typos, then a success from the same address: forgotten.
    throttle.recordFailure('u', 'a');
    throttle.recordFailure('u', 'a');
    throttle.recordSuccess('u', 'a');
    assert.equal(
      throttle.recordFailure('u', 'b').userFailures,
      1,
      'count cleared by the success at the same address',
    );
    // A failure from b is not cleared by a success from a.
    throttle.recordSuccess('u', 'a');
    assert.equal(throttle.recordFailure('u', 'b').userFailures, 2);
    assert.equal(throttle.recordFailure('u', 'b').userFailures, 3);
    assert.ok(locked('u', 'b') && locked('u', 'c'));
    assert.ok(!locked('u', 'a'), 'a logged u in and has not failed since');
    now += 10_001;
    assert.ok(locked('u', 'a'), 'trust lasts trustForMs after the last success');
    // A user locked from more addresses than are remembered is never cleared by one success.
    const many = new LoginThrottle({ clock: () => now, freeFailuresPerUser: 100 });
    for (let i = 0; i < 20; i++) many.recordFailure('v', `x${i}`);
    many.recordSuccess('v', 'x0');
    assert.equal(many.recordFailure('v', 'x0').userFailures, 21);
  });
});
