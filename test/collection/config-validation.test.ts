/**
 * Every key of a collection's configuration is validated when the admin API writes it and
 * when the files are loaded, through a listening server: a wrong value is refused (400, the
 * file and key named, nothing written), an unknown key is accepted with a warning naming the
 * nearest known key, and a collection whose files on disk do not load answers 503 with the
 * reason (the client did nothing wrong) and keeps `/ready` at 503 until they are fixed.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ADMIN_AUTH, tempHome, testApp, writeGlobalCfg, type TestApp } from '../http/helpers.js';

interface Answer {
  status: number;
  body: Record<string, unknown>;
}

/** A server listening on loopback over `home`, with the collections given. */
async function listening(home: string, collections: string[]): Promise<{ t: TestApp; base: string }> {
  const t = await testApp(collections, { home });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = t.app.server.address() as AddressInfo;
  return { t, base: `http://127.0.0.1:${port}` };
}

async function call(
  base: string,
  method: string,
  path: string,
  body?: unknown,
  admin = true,
): Promise<Answer> {
  const response = await fetch(base + path, {
    method,
    headers: {
      ...(admin ? { authorization: ADMIN_AUTH } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const putConfig = (base: string, collection: string, files: Record<string, string>) =>
  call(base, 'PUT', `/admin-api/v1/collections/${collection}/config`, { files });
const search = (base: string, collection: string) =>
  call(base, 'GET', `/s/search.json?collection=${collection}&query=apple`, undefined, false);

describe('configuration values written through the admin API', () => {
  const temp = tempHome();
  let t: TestApp;
  let base: string;
  let original: string;
  const cfgFile = () => join(temp.home, 'conf', 'docs', 'collection.cfg');

  before(async () => {
    ({ t, base } = await listening(temp.home, ['docs']));
    original = readFileSync(cfgFile(), 'utf8');
  });
  after(async () => {
    await t.close();
    temp.cleanup();
  });

  const refused: [line: string, key: string, says: RegExp][] = [
    ['search.public=maybe', 'search.public', /must be true or false, found "maybe"/],
    ['push.max-generations=1', 'push.max-generations', /whole number from 2 to 10000/],
    ['push.auto-commit.timeout-seconds=soon', 'push.auto-commit.timeout-seconds', /whole number/],
    ['push.click-logs.half-life-days=0', 'push.click-logs.half-life-days', /number from 0\.001 to 36500/],
    ['push.evidence.delay-seconds=-1', 'push.evidence.delay-seconds', /number from 0 to 86400/],
    ['collection_type=web', 'collection_type', /must be one of push, meta/],
    ['meta.members=a/b', 'meta.members', /"a\/b" is not one/],
    ['filter.classes=Pdf2000', 'filter.classes', /Pdf2000/],
    ['query_processor_options=anniemode', 'query_processor_options', /./],
    ['push.run=perhaps', 'push.run', /must be true or false/],
    ['push.initial-mode=MASTER', 'push.initial-mode', /must be one of DEFAULT, SLAVE/],
    ['push.replication.master-url=ftp://x', 'push.replication.master-url', /http\(s\) base URL/],
  ];
  for (const [line, key, says] of refused) {
    it(`refuses ${line} with 400 naming the file and the key, and writes nothing`, async () => {
      const answer = await putConfig(base, 'docs', { 'collection.cfg': `${original}${line}\n` });
      assert.equal(answer.status, 400, JSON.stringify(answer.body));
      assert.equal(answer.body.error, 'CONFIG_INVALID');
      const message = String(answer.body.message);
      assert.ok(message.startsWith('conf/docs/collection.cfg'), message);
      assert.ok(message.includes(key), message);
      assert.match(message, says);
      assert.equal(readFileSync(cfgFile(), 'utf8'), original, 'nothing written');
      assert.equal((await search(base, 'docs')).status, 200, 'the collection keeps answering');
    });
  }

  it('reports every wrong value of one file in one answer', async () => {
    const answer = await putConfig(base, 'docs', {
      'collection.cfg': `${original}search.public=maybe\npush.max-generations=1\n`,
    });
    assert.equal(answer.status, 400);
    assert.match(String(answer.body.message), /2 problems: .*push\.max-generations.*search\.public/);
  });

  it('accepts an unknown key with a warning naming the nearest known key', async () => {
    const answer = await putConfig(base, 'docs', {
      'collection.cfg': `${original}search.publc=false\nfacet.Author=a\ntotally.unrelated.setting=1\n`,
    });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.deepEqual(answer.body.warnings, [
      'conf/docs/collection.cfg: unknown key search.publc (nothing reads it); did you mean search.public?',
      'conf/docs/collection.cfg: unknown key totally.unrelated.setting (nothing reads it)',
    ]);
    assert.match(readFileSync(cfgFile(), 'utf8'), /search\.publc=false/);
    assert.equal((await search(base, 'docs')).status, 200, 'the misspelt key changed nothing');
    const restored = await putConfig(base, 'docs', { 'collection.cfg': original });
    assert.deepEqual(restored.body.warnings, []);
  });

  it('validates a mapping file against the others as they will be loaded', async () => {
    const answer = await putConfig(base, 'docs', { 'gscopes.cfg': 'news (a|a)*$(\n' });
    assert.equal(answer.status, 400, JSON.stringify(answer.body));
    assert.match(String(answer.body.message), /^conf\/docs\/gscopes\.cfg line 1/);
  });
});

describe('a collection whose configuration on disk does not load', () => {
  const temp = tempHome();
  let t: TestApp | undefined;

  after(async () => {
    await t?.close();
    temp.cleanup();
  });

  it('answers 503 with the reason, /ready says so, others keep answering, and a fixing PUT clears it', async () => {
    // Made on a first server, broken by hand while no server runs, then served again.
    let base: string;
    ({ t, base } = await listening(temp.home, ['docs', 'other']));
    const cfg = join(temp.home, 'conf', 'docs', 'collection.cfg');
    const original = readFileSync(cfg, 'utf8');
    await t.app.close();
    writeFileSync(cfg, `${original}search.public=maybe\n`);
    ({ t, base } = await listening(temp.home, []));

    const searched = await search(base, 'docs');
    assert.equal(searched.status, 503, JSON.stringify(searched.body));
    assert.equal(searched.body.error, 'COLLECTION_CONFIG_BROKEN');
    assert.match(
      String(searched.body.message),
      /conf\/docs\/collection\.cfg: search\.public must be true or false/,
    );
    assert.ok(!String(searched.body.message).includes(temp.home), 'no absolute path to the public');

    const pushed = await call(
      base,
      'PUT',
      '/push-api/v2/collections/docs/documents?key=http://x/1',
      undefined,
    );
    assert.equal(pushed.status, 503, JSON.stringify(pushed.body));

    const ready = await call(base, 'GET', '/ready', undefined, false);
    assert.equal(ready.status, 503);
    assert.deepEqual(
      (ready.body.collections as Record<string, unknown>[]).map((c) => [c.collection, c.error]),
      [['docs', 'COLLECTION_CONFIG_BROKEN']],
    );
    assert.match(String((ready.body.collections as Record<string, unknown>[])[0]?.reason), /search\.public/);

    assert.equal((await search(base, 'other')).status, 200, 'the other collection answers');

    const fixed = await putConfig(base, 'docs', { 'collection.cfg': `${original}search.public=true\n` });
    assert.equal(fixed.status, 200, JSON.stringify(fixed.body));
    assert.equal((await search(base, 'docs')).status, 200);
    assert.equal((await call(base, 'GET', '/ready', undefined, false)).status, 200);
  });
});

describe('global.cfg', () => {
  it('an unknown key is logged with the nearest known key when the server starts', async () => {
    const temp = tempHome();
    writeGlobalCfg(temp.home, ['metrics.publik=false']);
    const { t } = await listening(temp.home, []);
    try {
      const log = readFileSync(join(temp.home, 'web', 'log', 'push.log'), 'utf8');
      assert.match(log, /unknown key metrics\.publik \(nothing reads it\); did you mean metrics\.public\?/);
    } finally {
      await t.close();
    }
  });

  it('a wrong installation-wide value stops the server from starting, naming the key', async () => {
    const temp = tempHome();
    writeGlobalCfg(temp.home, ['metrics.public=sometimes']);
    try {
      await assert.rejects(testApp([], { home: temp.home }), (error: Error & { code?: string }) => {
        assert.equal(error.code, 'CONFIG_INVALID');
        assert.match(error.message, /conf\/global\.cfg: metrics\.public must be true or false/);
        return true;
      });
    } finally {
      temp.cleanup();
    }
  });
});
