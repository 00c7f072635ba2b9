import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { startServer, type RunningServer } from '../../src/http/server.js';
import { TEST_SECURITY, tempHome } from '../http/helpers.js';
import { waitFor } from '../support/wait.js';
import { clickLines, pushAndCommit } from './helpers.js';

// Debian's chromium (CI installs it: .ci/run); playwright-core drives it, no browser download.
const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const skip = existsSync(CHROMIUM)
  ? false
  : `${CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium) to run the browser test`;

type Playwright = typeof import('playwright-core');
type Browser = Awaited<ReturnType<Playwright['chromium']['launch']>>;

describe('the results page in a real browser', { skip, timeout: 120_000 }, () => {
  let target: Server;
  let targetUrl: string;
  const targetHits: string[] = [];
  let server: RunningServer;
  let home: { home: string; cleanup: () => void };
  let browser: Browser;

  before(async () => {
    // The result URLs point here, so that the browser's navigation after the redirect lands.
    target = createServer((request, response) => {
      targetHits.push(request.url ?? '');
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end(
        `<!doctype html><html lang="en"><title>Target</title><h1>Landed on ${request.url?.replace(/[<>&]/g, '') ?? ''}</h1></html>`,
      );
    });
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;

    home = tempHome();
    server = await startServer({ home: home.home, port: 0, security: TEST_SECURITY });
    server.manager.create('docs', 'push');
    await pushAndCommit(server.app, 'docs', [
      {
        key: `${targetUrl}/lanterns`,
        type: 'text/html',
        body: '<html><head><title>Paper lanterns</title></head><body><p>How to fold paper lanterns for a summer evening.</p></body></html>',
      },
      {
        key: `${targetUrl}/lamps?kind=oil&lit=1`,
        type: 'text/html',
        body: '<html><head><title>Oil lamps</title></head><body><p>Oil lamps and lanterns through the ages.</p></body></html>',
      },
      {
        key: `${targetUrl}/kites`,
        type: 'text/html',
        body: '<html><head><title>Kites</title></head><body>Kites fly.</body></html>',
      },
    ]);

    const { chromium } = (await import('playwright-core')) as Playwright;
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  });

  after(async () => {
    await browser?.close();
    await server?.close();
    await new Promise<void>((resolve) => (target === undefined ? resolve() : target.close(() => resolve())));
    home?.cleanup();
  });

  it('searches from the box, shows results, and a click is logged and lands on the result', async () => {
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning') problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));

    await page.goto(`${server.url}/s/search.html?collection=docs`);
    assert.equal(await page.locator('html').getAttribute('lang'), 'en');
    const box = page.getByRole('searchbox', { name: 'Search docs' });
    await box.fill('lanterns');
    await box.press('Enter');
    await page.waitForURL(/query=lanterns/);

    const titles = page.locator('main .result h3 a');
    assert.equal(await titles.count(), 2);
    assert.deepEqual((await titles.allTextContents()).sort(), ['Oil lamps', 'Paper lanterns']);
    assert.match((await page.locator('#result-count').textContent()) ?? '', /2 results/);
    assert.equal(await page.locator('main .snippet b').first().textContent(), 'lanterns');
    // The stylesheet applies: the policy's hash matches it.
    // (Expressions as strings: the project's TypeScript has no DOM library.)
    assert.equal(
      await page.evaluate("getComputedStyle(document.querySelector('main .results')).listStyleType"),
      'none',
    );
    // Keyboard users see where they are.
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate('document.activeElement.className'), 'skip');

    const first = titles.first();
    const firstTitle = (await first.textContent()) ?? '';
    const expected = firstTitle === 'Paper lanterns' ? '/lanterns' : '/lamps?kind=oil&lit=1';
    await first.click();
    await page.waitForURL(`${targetUrl}${expected}`);
    assert.match((await page.locator('h1').textContent()) ?? '', /Landed on/);
    assert.deepEqual(
      targetHits.filter((path) => path !== '/favicon.ico'),
      [expected],
    );

    await waitFor('the click line', () => clickLines(home.home, 'docs').length === 1);
    const [click] = clickLines(home.home, 'docs');
    assert.equal(click!.collection, 'docs');
    assert.equal(click!.query, 'lanterns');
    assert.equal(click!.rank, 1);
    assert.equal(click!.url, `${targetUrl}${expected}`);
    assert.deepEqual(problems, [], 'no console errors (CSP violations included)');
    await page.close();
  });
});
