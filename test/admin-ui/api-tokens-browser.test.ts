import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ADMIN_AUTH, ADMIN_PASSWORD } from '../http/helpers.js';
import { launchChromium, skipWithoutChromium, type Browser } from '../support/chromium.js';
import { testServer, type TestServer } from '../support/test-server.js';

const skip = skipWithoutChromium;

describe('admin UI: API tokens in a real browser', { skip, timeout: 180_000 }, () => {
  let server: TestServer;
  let browser: Browser;

  before(async () => {
    server = await testServer();
    for (const [method, path, body] of [
      ['PUT', '/admin-api/v1/collections/news', { type: 'push' }],
      [
        'PUT',
        '/admin-api/v1/users/cms',
        { password: 'cms-password-1', permissions: ['sec.continuous.rest'], collections: ['news'] },
      ],
    ] as const) {
      const answer = await fetch(`${server.url}${path}`, {
        method,
        headers: { authorization: ADMIN_AUTH, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      assert.equal(answer.status, 200, await answer.text());
    }
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await server?.dispose();
  });

  const state = (token: string) =>
    fetch(`${server.url}/push-api/v1/collections/news/state`, { headers: { 'x-security-token': token } });

  it('creates a token for a user, shows and copies its secret once, lists it, and revokes it after asking', async () => {
    const context = await browser.newContext();
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error' && !message.text().startsWith('Failed to load resource'))
        problems.push(message.text());
    });

    await page.goto(`${server.url}/search/admin/`);
    await page.waitForURL(/\/search\/admin\/login/);
    await page.getByLabel('User name').fill('admin');
    await page.getByLabel('Password').fill(ADMIN_PASSWORD);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL(`${server.url}/search/admin/`);

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'API tokens' }).click();
    await page.waitForURL(`${server.url}/search/admin/api-tokens`);
    assert.match((await page.locator('table').textContent()) ?? '', /No API token yet/);

    await page.getByRole('combobox', { name: /^User/ }).selectOption('cms');
    await page.getByLabel('Token name').fill('cms-production');
    await page.getByLabel(/^Collections/).fill('news');
    await page.getByLabel(/^Expires/).fill('2999-12-31');
    await page.getByRole('button', { name: 'Create token' }).click();
    assert.match(
      (await page.getByRole('status').first().textContent()) ?? '',
      /API token cms-production of cms created/,
    );

    // The secret, once, with a copy button the script shows; the copy reaches the clipboard.
    const secret = await page.getByLabel('Token', { exact: true }).inputValue();
    assert.ok(secret.length >= 32, secret);
    await page.getByRole('button', { name: 'Copy' }).click();
    await page.locator('[data-copy-status="api-token-secret"]', { hasText: 'Copied' }).waitFor();
    assert.equal(await page.evaluate('navigator.clipboard.readText()'), secret);
    assert.equal((await state(secret)).status, 200, 'the copied token works as X-Security-Token');

    const row = page.getByRole('row', { name: /cms-production/ });
    const cells = await row.getByRole('cell').allTextContents();
    assert.equal(cells[0]?.trim(), 'cms-production');
    assert.equal(cells[1]?.trim(), 'cms');
    assert.equal(cells[2]?.trim(), 'news');
    assert.match(cells[4] ?? '', /3000-01-01 00:00 UTC/);

    // Reloading the page never shows the secret again.
    await page.goto(`${server.url}/search/admin/api-tokens`);
    assert.equal(await page.locator('#api-token-secret').count(), 0);
    assert.doesNotMatch(await page.content(), new RegExp(secret));

    // Revoking asks first: dismissed, the token still works; accepted, it stops at once.
    page.once('dialog', (dialog) => void dialog.dismiss());
    await page
      .getByRole('row', { name: /cms-production/ })
      .getByRole('button', { name: 'Revoke' })
      .click();
    assert.equal((await state(secret)).status, 200);
    page.once('dialog', (dialog) => {
      assert.match(dialog.message(), /Revoke API token cms-production of cms\?/);
      void dialog.accept();
    });
    await page
      .getByRole('row', { name: /cms-production/ })
      .getByRole('button', { name: 'Revoke' })
      .click();
    assert.match(
      (await page.getByRole('status').first().textContent()) ?? '',
      /API token cms-production of cms revoked/,
    );
    assert.equal((await state(secret)).status, 401);
    assert.match((await page.locator('table').textContent()) ?? '', /No API token yet/);
    assert.deepEqual(problems, []);
    await context.close();
  });
});
