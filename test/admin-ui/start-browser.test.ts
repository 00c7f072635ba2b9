/**
 * The first clicks of a new user, in Debian's chromium: the landing page at `/` leads to the
 * admin UI, the API UI and the search page.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { startServer, type RunningServer } from '../../src/http/server.js';
import { ADMIN_AUTH, TEST_SECURITY, tempHome } from '../http/helpers.js';

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-sync'];
const skip = existsSync(CHROMIUM)
  ? false
  : `${CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium) to run the browser test`;

type Playwright = typeof import('playwright-core');
type Browser = Awaited<ReturnType<Playwright['chromium']['launch']>>;

describe('the landing page in a real browser', { skip, timeout: 180_000 }, () => {
  let server: RunningServer;
  let home: { home: string; cleanup: () => void };
  let browser: Browser;

  before(async () => {
    home = tempHome();
    server = await startServer({ home: home.home, port: 0, security: TEST_SECURITY });
    server.manager.create('web', 'push');
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
    const { chromium } = (await import('playwright-core')) as Playwright;
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  });

  after(async () => {
    await browser?.close();
    await server?.close();
    home?.cleanup();
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
