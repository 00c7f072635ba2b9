import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ADMIN_PASSWORD } from '../http/helpers.js';
import { launchChromium, skipWithoutChromium, type Browser } from '../support/chromium.js';
import { testServer, type TestServer } from '../support/test-server.js';

const skip = skipWithoutChromium;

describe('admin UI and API UI in a real browser', { skip, timeout: 180_000 }, () => {
  let server: TestServer;
  let browser: Browser;

  before(async () => {
    server = await testServer();
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await server?.dispose();
  });

  it('logs in, creates a collection, pushes through "try it out", commits from the admin UI and finds it', async () => {
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('console', (message) => {
      // Failed loads are reported with their address below.
      if (message.type() === 'error' && !message.text().startsWith('Failed to load resource'))
        problems.push(message.text());
    });
    page.on('response', (response) => {
      if (response.status() >= 400) problems.push(`${response.status()} ${response.url()}`);
    });

    await page.goto(`${server.url}/search/admin/`);
    await page.waitForURL(/\/search\/admin\/login/);
    await page.getByLabel('User name').fill('admin');
    await page.getByLabel('Password').fill(ADMIN_PASSWORD);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL(`${server.url}/search/admin/`);

    await page.getByLabel('Name').fill('web');
    await page.getByLabel('Type').selectOption('push');
    await page.getByRole('button', { name: 'Create' }).click();
    assert.match((await page.getByRole('status').textContent()) ?? '', /push collection web created/);
    assert.equal(server.manager.exists('web'), true);

    // The API UI: "try it out" on the document PUT, with the session's token added by the page.
    await page.goto(`${server.url}/search/admin/api-ui/`);
    const operation = page
      .locator('.opblock')
      .filter({ has: page.locator('[data-path="/push-api/v1/collections/{collection}/documents"]') })
      .filter({ has: page.locator('.opblock-summary-method', { hasText: 'PUT' }) });
    await operation.locator('.opblock-summary').click();
    await operation.getByRole('button', { name: 'Try it out' }).click();
    await operation.locator('tr[data-param-name="collection"] input').fill('web');
    await operation.locator('tr[data-param-name="key"] input').fill('http://example.com/lanterns');
    // A declared metadata header: "try it out" sends it.
    await operation.locator('tr[data-param-name="X-Service-Push-Metadata-Author"] input').fill('Ann Folder');
    await operation
      .locator('textarea.body-param__text')
      .fill(
        '<html><head><title>Paper lanterns</title></head><body>How to fold paper lanterns.</body></html>',
      );
    await operation.getByRole('button', { name: 'Execute' }).click();
    const status = operation.locator('.live-responses-table tr.response .response-col_status').first();
    await status.waitFor();
    assert.equal((await status.textContent())?.trim(), '200');
    assert.match(
      (await operation
        .locator('.live-responses-table tr.response .response-col_description')
        .first()
        .textContent()) ?? '',
      /storedKeys/,
    );

    // Commit from the collection page.
    await page.goto(`${server.url}/search/admin/collections/web`);
    await page.getByRole('button', { name: 'Commit' }).click();
    assert.match((await page.getByRole('status').textContent()) ?? '', /committed: 1 change/);

    await page.goto(`${server.url}/s/search.html?collection=web&query=lanterns`);
    assert.deepEqual(await page.locator('main .result h3 a').allTextContents(), ['Paper lanterns']);

    // The document browser: stored content, metadata, committed.
    await page.goto(`${server.url}/search/admin/collections/web`);
    await page.getByRole('link', { name: 'Document browser' }).click();
    await page.getByLabel('Key (the document URI)').fill('http://example.com/lanterns');
    await page.getByRole('button', { name: 'Show' }).click();
    assert.match((await page.locator('pre').textContent()) ?? '', /How to fold paper lanterns/);
    assert.equal((await page.locator('.badge.committed').textContent())?.trim(), 'committed');
    assert.match((await page.locator('table').textContent()) ?? '', /Ann Folder/);

    // The query tester explains the rank.
    await page.goto(`${server.url}/search/admin/collections/web/query`);
    await page.getByLabel('Query').fill('paper lanterns');
    await page.getByRole('button', { name: 'Explain the ranking' }).click();
    const explained = (await page.locator('main ol').textContent()) ?? '';
    assert.match(explained, /Paper lanterns/);
    assert.match(explained, /tier: 2 of 2 clauses matched/);
    assert.match(explained, /field t: weight 2.5/);

    // Charts of our own metrics, drawn by uPlot (served locally) once the page has loaded.
    await page.goto(`${server.url}/search/admin/`);
    await page.locator('[data-chart="queries"][data-drawn="true"] canvas').waitFor();
    await page.locator('[data-chart="ingest"][data-drawn="true"] canvas').waitFor();
    const history = (await (
      await page.request.get(`${server.url}/search/admin/metrics-history.json`)
    ).json()) as { points: { queryRate: number; ingestRate: number }[] };
    assert.ok(history.points.some((p) => p.queryRate > 0) && history.points.some((p) => p.ingestRate > 0));

    // Deleting asks first: dismissed, nothing happens; accepted, the collection is gone.
    page.once('dialog', (dialog) => void dialog.dismiss());
    await page.getByRole('row', { name: /web/ }).getByRole('button', { name: 'Delete' }).click();
    assert.equal(server.manager.exists('web'), true);
    page.once('dialog', (dialog) => {
      assert.match(dialog.message(), /Delete collection web/);
      void dialog.accept();
    });
    await page.getByRole('row', { name: /web/ }).getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('status').waitFor();
    assert.match((await page.getByRole('status').textContent()) ?? '', /collection web deleted/);
    assert.equal(server.manager.exists('web'), false);
    assert.deepEqual(problems, [], 'no script errors or CSP violations');
    await page.close();
  });
});
