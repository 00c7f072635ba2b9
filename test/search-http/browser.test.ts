import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { waitFor } from '../support/wait.js';
import { clickLines, pushAndCommit } from './helpers.js';
import { launchChromium, skipWithoutChromium, type Browser } from '../support/chromium.js';
import { testServer, type TestServer } from '../support/test-server.js';

const skip = skipWithoutChromium;

describe('the results page in a real browser', { skip, timeout: 120_000 }, () => {
  let target: Server;
  let targetUrl: string;
  const targetHits: string[] = [];
  let server: TestServer;
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

    server = await testServer({ collections: ['docs'] });
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

    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await server?.dispose();
    await new Promise<void>((resolve) => (target === undefined ? resolve() : target.close(() => resolve())));
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

    await waitFor('the click line', () => clickLines(server.home, 'docs').length === 1);
    const [click] = clickLines(server.home, 'docs');
    assert.equal(click!.collection, 'docs');
    assert.equal(click!.query, 'lanterns');
    assert.equal(click!.rank, 1);
    assert.equal(click!.url, `${targetUrl}${expected}`);
    assert.deepEqual(problems, [], 'no console errors (CSP violations included)');
    await page.close();
  });
});
