/**
 * The first clicks of a new user, in Debian's chromium: the landing page at `/` leads to the
 * admin UI, the API UI and the search page.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ADMIN_AUTH } from '../http/helpers.js';
import { launchChromium, skipWithoutChromium, type Browser } from '../support/chromium.js';
import { testServer, type TestServer } from '../support/test-server.js';

const skip = skipWithoutChromium;

describe('the landing page in a real browser', { skip, timeout: 180_000 }, () => {
  let server: TestServer;
  let browser: Browser;

  before(async () => {
    server = await testServer({ collections: ['web'] });
    const base = `${server.url}/push-api/v2/collections/web`;
    const put = await fetch(`${base}/documents?key=${encodeURIComponent('http://example.com/lanterns')}`, {
      method: 'PUT',
      headers: { authorization: ADMIN_AUTH, 'content-type': 'text/html' },
      body: '<html><head><title>Paper lanterns</title></head><body>Folding lanterns.</body></html>',
    });
    assert.equal(put.status, 200);
    assert.equal(
      (await fetch(`${base}/commit`, { method: 'POST', headers: { authorization: ADMIN_AUTH } })).status,
      200,
    );
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await server?.dispose();
  });

  it('/ links the admin UI and the API UI, and its form opens the search page', async () => {
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('response', (response) => {
      if (response.status() >= 400 && !response.url().endsWith('/favicon.ico'))
        problems.push(`${response.status()} ${response.url()}`);
    });

    await page.goto(`${server.url}/`);
    assert.equal(await page.title(), 'pushsearch');
    await page.getByRole('link', { name: 'Admin UI' }).click();
    await page.waitForURL(/\/search\/admin\/login/);

    await page.goto(`${server.url}/`);
    await page.getByRole('link', { name: 'API UI' }).click();
    await page.waitForURL(/\/search\/admin\/login\?next=%2Fsearch%2Fadmin%2Fapi-ui%2F/);

    await page.goto(`${server.url}/`);
    await page.getByLabel('Collection').fill('web');
    await page.getByLabel('Query').fill('lanterns');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForURL(/\/s\/search\.html\?collection=web&query=lanterns/);
    assert.deepEqual(await page.locator('main .result h3 a').allTextContents(), ['Paper lanterns']);
    assert.deepEqual(problems, []);
    await page.close();
  });
});
