import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { brotliCompressSync } from 'node:zlib';
import { startServer, type RunningServer } from '../../src/http/server.js';
import { ADMIN_PASSWORD, TEST_SECURITY, tempHome } from '../http/helpers.js';
import { cli, removeCliStateHome } from './run-cli.js';

describe('pushsearch CLI against a running server', () => {
  let server: RunningServer;
  let temp: { home: string; cleanup: () => void };
  let files: string;
  let as: string[];

  before(async () => {
    temp = tempHome();
    files = join(temp.home, 'input');
    mkdirSync(files, { recursive: true });
    server = await startServer({ home: join(temp.home, 'home'), port: 0, security: TEST_SECURITY });
    as = ['--url', server.url, '--password', ADMIN_PASSWORD];
  });
  after(async () => {
    await server.close();
    temp.cleanup();
    removeCliStateHome();
  });

  it('creates a collection, loads JSONL, commits, searches, snapshots and restores', async () => {
    assert.equal((await cli(['collection', 'create', 'books', ...as])).code, 0);
    const listed = await cli(['collection', 'list', '--json', ...as]);
    assert.equal(listed.code, 0, listed.stderr);
    assert.deepEqual(
      (JSON.parse(listed.stdout) as { collections: { name: string }[] }).collections.map((c) => c.name),
      ['books'],
    );

    const pages = Array.from({ length: 12 }, (_, i) => ({
      key: `https://rfc.example.org/rfc${1000 + i}/page-1`,
      rfc: 1000 + i,
      page: 1,
      title: `RFC ${1000 + i}: Walrus Protocol ${i}`,
      text: `The walrus protocol, part ${i}. ${i % 2 === 0 ? 'Even pages mention the narwhal.' : ''}`,
    }));
    const jsonl = join(files, 'pages.jsonl');
    writeFileSync(
      jsonl,
      pages
        .slice(0, 8)
        .map((p) => JSON.stringify(p))
        .join('\n') + '\n',
    );
    writeFileSync(
      join(files, 'more.jsonl.br'),
      brotliCompressSync(
        pages
          .slice(8)
          .map((p) => JSON.stringify(p))
          .join('\n'),
      ),
    );

    const loaded = await cli(['load', 'books', jsonl, '--concurrency', '3', '--json', ...as]);
    assert.equal(loaded.code, 0, loaded.stderr);
    const summary = JSON.parse(loaded.stdout) as {
      stored: number;
      failed: number;
      committed: number;
      commit: { changes: number };
    };
    assert.equal(summary.stored, 8);
    assert.equal(summary.failed, 0);
    assert.equal(summary.committed, 8);
    assert.equal(summary.commit.changes, 8);

    const brotli = await cli(['load', 'books', join(files, 'more.jsonl.br'), ...as]);
    assert.equal(brotli.code, 0, brotli.stderr);
    assert.match(brotli.stdout, /^read 4 documents of .*more\.jsonl\.br in [\d.]+ s: 4 stored, 0 failed\n/);
    assert.match(
      brotli.stdout,
      /\ncommitted: all 4 acknowledged documents are searchable: .* the collection has 12 documents\n/,
    );

    const found = await cli(['search', 'books', 'walrus', '--json', '-n', '20', ...as]);
    assert.equal(found.code, 0, found.stderr);
    const packet = (
      JSON.parse(found.stdout) as {
        response: { resultPacket: { resultsSummary: { totalMatching: number } } };
      }
    ).response.resultPacket;
    assert.equal(packet.resultsSummary.totalMatching, 12);
    const table = await cli(['search', 'books', 'narwhal', ...as]);
    assert.equal(table.code, 0, table.stderr);
    assert.match(table.stdout, /^RANK\s+SCORE\s+TITLE\s+URL\n/);
    assert.match(table.stdout, /https:\/\/rfc\.example\.org\/rfc1000\/page-1/);
    assert.match(table.stdout, /results 1-6 of 6\n$/);

    const got = await cli(['get', 'books', pages[3].key, '--json', ...as]);
    assert.equal(got.code, 0, got.stderr);
    assert.deepEqual(
      (JSON.parse(got.stdout) as { pushContent: { metadata: Record<string, string[]> } }).pushContent.metadata
        .title,
      [pages[3].title],
    );

    assert.equal((await cli(['snapshot', 'create', 'books', 'full', ...as])).code, 0);
    assert.equal((await cli(['snapshot', 'create', 'books', 'full', ...as])).code, 5);
    assert.equal((await cli(['delete', 'books', pages[0].key, ...as])).code, 0);
    assert.equal((await cli(['commit', 'books', ...as])).code, 0);
    assert.match((await cli(['search', 'books', 'narwhal', ...as])).stdout, /of 5\n$/);

    const restored = await cli(['snapshot', 'restore', 'books', 'full', ...as]);
    assert.equal(restored.code, 0, restored.stderr);
    assert.match((await cli(['search', 'books', 'narwhal', ...as])).stdout, /of 6\n$/);
    const snapshots = await cli(['snapshot', 'list', 'books', '--json', ...as]);
    assert.deepEqual(
      (JSON.parse(snapshots.stdout) as { snapshots: { name: string }[] }).snapshots.map((s) => s.name),
      ['full'],
    );
    const state = await cli(['state', 'books', ...as]);
    assert.match(state.stdout, /^books: RUNNING\n/);
  });

  it('puts, gets and loads folders, with settings from the environment', async () => {
    const env = { PUSHSEARCH_URL: server.url, PUSHSEARCH_PASSWORD: ADMIN_PASSWORD };
    assert.equal((await cli(['collection', 'create', 'site'], env)).code, 0);
    const put = await cli(
      [
        'put',
        'site',
        'https://example.org/hello',
        '-',
        '--content-type',
        'text/plain',
        '-m',
        'Author=Zoë',
        '-m',
        'Author=Ann',
      ],
      env,
      'hello from stdin',
    );
    assert.equal(put.code, 0, put.stderr);
    assert.match(put.stdout, /document https:\/\/example\.org\/hello stored/);
    const content = await cli(['get', 'site', 'https://example.org/hello'], env);
    assert.equal(content.stdout, 'hello from stdin');
    const document = JSON.parse(
      (await cli(['get', 'site', 'https://example.org/hello', '--json'], env)).stdout,
    ) as {
      pushContent: { metadata: Record<string, string[]> };
    };
    assert.deepEqual(document.pushContent.metadata.Author, ['Zoë', 'Ann']);

    const folder = join(files, 'site');
    mkdirSync(join(folder, 'docs'), { recursive: true });
    writeFileSync(
      join(folder, 'index.html'),
      '<html><head><title>Home page</title></head><body>platypus</body></html>',
    );
    writeFileSync(join(folder, 'docs', 'notes.txt'), 'platypus notes');
    const loaded = await cli(['load', 'site', folder, '--key-prefix', 'https://example.org/', '--json'], env);
    assert.equal(loaded.code, 0, loaded.stderr);
    assert.equal((JSON.parse(loaded.stdout) as { stored: number }).stored, 2);
    const found = JSON.parse((await cli(['search', 'site', 'platypus', '--json'], env)).stdout) as {
      response: { resultPacket: { results: { liveUrl: string; title: string }[] } };
    };
    assert.deepEqual(found.response.resultPacket.results.map((r) => r.liveUrl).sort(), [
      'https://example.org/docs/notes.txt',
      'https://example.org/index.html',
    ]);
    assert.ok(found.response.resultPacket.results.some((r) => r.title === 'Home page'));
  });

  it('manages users and exits with the documented codes', async () => {
    assert.equal((await cli(['collection', 'create', 'team', ...as])).code, 0);
    const added = await cli([
      'user',
      'add',
      'pusher',
      '--new-password',
      'pusher-password-1',
      '--collections',
      'team',
      ...as,
    ]);
    assert.equal(added.code, 0, added.stderr);
    const pusher = ['--url', server.url, '--user', 'pusher'];
    assert.equal(
      (
        await cli(
          ['put', 'team', 'https://example.org/t', '-', ...pusher, '--password', 'pusher-password-1'],
          {},
          'x',
        )
      ).code,
      0,
    );
    assert.equal(
      (
        await cli(
          ['put', 'books', 'https://example.org/t', '-', ...pusher, '--password', 'pusher-password-1'],
          {},
          'x',
        )
      ).code,
      4,
    );
    assert.equal(
      (await cli(['user', 'passwd', 'pusher', '--new-password', 'pusher-password-2', ...as])).code,
      0,
    );
    const old = await cli(['state', 'team', ...pusher, '--password', 'pusher-password-1']);
    assert.equal(old.code, 4);
    assert.match(old.stderr, /UNAUTHENTICATED \(HTTP 401\)/);
    assert.equal((await cli(['state', 'team', ...pusher, '--password', 'pusher-password-2'])).code, 0);
    assert.equal((await cli(['user', 'passwd', 'nobody', '--new-password', 'whatever-123', ...as])).code, 3);

    assert.equal((await cli(['get', 'team', 'https://example.org/missing', ...as])).code, 3);
    assert.equal((await cli(['state', 'nope', ...as])).code, 3);
    assert.equal((await cli(['state', 'team', '--url', 'http://127.0.0.1:1', '--password', 'x'])).code, 6);
    const usage = await cli(['put', 'team', ...as]);
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /missing KEY\n\nUsage: pushsearch put/);
    assert.equal((await cli(['state', 'team'])).code, 2);
    assert.equal((await cli(['search', 'team', 'x', '-n', 'lots', ...as])).code, 2);
    const help = await cli(['load', '--help']);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /^Usage: pushsearch load COLLECTION SOURCE/);
    assert.match(help.stdout, /PUSHSEARCH_URL/);
    const bad = join(files, 'bad.jsonl');
    writeFileSync(
      bad,
      '{"key": "https://example.org/ok", "text": "fine"}\n{"key": "not a uri", "text": "bad key"}\n',
    );
    const partial = await cli(['load', 'team', bad, '--json', ...as]);
    assert.equal(partial.code, 7, partial.stderr);
    assert.match(partial.stderr, /failed .*bad\.jsonl:2 \(not a uri\): KEY_INVALID/);
    assert.deepEqual((JSON.parse(partial.stdout) as { failed: number }).failed, 1);
    const broken = join(files, 'broken.jsonl');
    writeFileSync(broken, '{"key": "https://example.org/ok", "text": "fine"}\n{oops\n');
    const refused = await cli(['load', 'team', broken, ...as]);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /LOAD_SOURCE_INVALID: .*broken\.jsonl:2: not a JSON object/);
  });
});

describe('pushsearch collection offline', () => {
  it('creates, lists and deletes collections in the installation folder', async () => {
    const temp = tempHome();
    try {
      const home = ['--home', temp.home];
      assert.equal((await cli(['collection', 'create', 'alpha', ...home])).code, 0);
      assert.equal((await cli(['collection', 'create', 'both', '--meta', 'alpha', ...home])).code, 0);
      const listed = await cli(['collection', 'list', '--json', ...home]);
      assert.deepEqual(
        (JSON.parse(listed.stdout) as { collections: { name: string; type: string }[] }).collections
          .map((c) => `${c.name}:${c.type}`)
          .sort(),
        ['alpha:push', 'both:meta'],
      );
      assert.equal((await cli(['collection', 'create', 'alpha', ...home])).code, 5);
      assert.equal((await cli(['collection', 'delete', 'both', ...home])).code, 0);
      assert.equal((await cli(['collection', 'delete', 'both', ...home])).code, 3);
      assert.equal((await cli(['collection', 'rename', 'x', ...home])).code, 2);
    } finally {
      temp.cleanup();
    }
  });
});
