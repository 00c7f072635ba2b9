import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import pino from 'pino';
import { waitFor } from '../support/wait.js';
import { evidenceHome, type EvidenceHome } from './helpers.js';

// Anchor text end to end: pages pushed as HTML, their links turned into class `k` evidence
// of the pages they point at, ranking through the search service.

const TARGET = 'https://example.org/guides/auth';
const RIVAL = 'https://example.org/blog/kerberos';

let env: EvidenceHome;

/** The target says nothing about Kerberos tutorials itself; the rival does, once. */
async function pushCorpus(): Promise<void> {
  await env.putPage(
    TARGET,
    'Authentication guide',
    '<p>Setting up single sign-on for the network services of the campus.</p>',
  );
  await env.putPage(
    RIVAL,
    'Notes',
    '<p>A kerberos tutorial for beginners: it explains tickets, realms and the key distribution centre.</p>',
  );
  for (const n of [1, 2, 3]) {
    await env.putPage(
      `https://example.org/pages/${n}`,
      `Page ${n}`,
      `<p>Other documentation about printers, mail and storage quotas (part ${n}).</p>` +
        `<p>Before logging in, read the <a href="/guides/auth#start">kerberos tutorial</a>.</p>`,
    );
  }
  await env.collection().commit();
  await env.collection().updateEvidence();
}

describe('anchor text', () => {
  beforeEach(() => {
    env = evidenceHome();
  });
  afterEach(async () => {
    await env.close();
  });

  it('ranks the page other pages link to as "kerberos tutorial" first, with -anniemode=3 only', async () => {
    await pushCorpus();
    const on = await env.keys('kerberos tutorial');
    assert.equal(on[0], TARGET, `with anchor text: ${on.join(', ')}`);

    env.config(['query_processor_options=-anniemode=0']);
    const off = await env.keys('kerberos tutorial');
    assert.notEqual(off[0], TARGET, `without anchor text: ${off.join(', ')}`);
    assert.equal(off[0], RIVAL);
  });

  it('is on by default and searchable as class k', async () => {
    await pushCorpus();
    assert.deepEqual(await env.keys('k:kerberos'), [TARGET]);
  });

  it('credits a link to a redirect to the redirect target', async () => {
    const target = 'https://example.org/new/zebra';
    const old = 'https://example.org/old/zebra';
    await env.putPage(target, 'Animals', '<p>Stripes and savannah.</p>');
    await env.collection().putRedirect(old, target);
    await env.putPage(
      'https://example.org/links',
      'Links',
      '<p>Read the <a href="../old/zebra">zebra manual</a>.</p>',
    );
    await env.putPage(
      'https://example.org/links2',
      'Links 2',
      '<p>Also the <a href="https://example.org/old/./zebra">zebra manual</a> again.</p>',
    );
    await env.collection().commit();
    await env.collection().updateEvidence();
    const keys = await env.keys('zebra manual');
    assert.equal(keys[0], target);
    assert.ok(!keys.includes(old), 'a redirect is never a result');

    // The redirect removed: the links point at a key that is no document, and the target loses their text.
    await env.collection().deleteDocument(old);
    await env.collection().commit();
    await env.collection().updateEvidence();
    assert.ok(!(await env.keys('k:zebra')).includes(target));
  });

  it('drops the anchor text of a linking page when that page is deleted', async () => {
    await pushCorpus();
    assert.deepEqual(await env.keys('k:kerberos'), [TARGET]);
    await env.collection().deleteDocument('https://example.org/pages/1');
    await env.collection().deleteDocument('https://example.org/pages/2');
    await env.collection().commit();
    const update = await env.collection().updateEvidence();
    assert.equal(update.documentsRead, 2);
    assert.equal(
      update.documentsReadBack,
      0,
      'the links come from what the deletes staged, not from reading the index',
    );
    assert.equal(update.documentsUpdated, 1, 'only the target is indexed again');
    assert.deepEqual(await env.keys('k:kerberos'), [TARGET], 'page 3 still links to it');
    await env.collection().deleteDocument('https://example.org/pages/3');
    await env.collection().commit();
    await env.collection().updateEvidence();
    assert.deepEqual(await env.keys('k:kerberos'), []);
    assert.notEqual((await env.keys('kerberos tutorial'))[0], TARGET);
  });

  it('follows a changed link: the old target loses the text, the new one gains it', async () => {
    await pushCorpus();
    await env.putPage(
      'https://example.org/pages/1',
      'Page 1',
      '<p>Read the <a href="/blog/kerberos">kerberos tutorial</a>.</p>',
    );
    await env.putPage(
      'https://example.org/pages/2',
      'Page 2',
      '<p>Read the <a href="/blog/kerberos">kerberos tutorial</a>.</p>',
    );
    await env.putPage(
      'https://example.org/pages/3',
      'Page 3',
      '<p>Read the <a href="/blog/kerberos">kerberos tutorial</a>.</p>',
    );
    await env.collection().commit();
    const update = await env.collection().updateEvidence();
    assert.equal(update.documentsUpdated, 2, 'the old target and the new one');
    assert.equal(update.documentsReadBack, 0, 'the new links come from what the puts staged');
    assert.deepEqual(await env.keys('k:kerberos'), [RIVAL]);
    assert.equal((await env.keys('kerberos tutorial'))[0], RIVAL);
  });

  it('takes up links committed before a stop after the restart, read back from the index', async () => {
    await pushCorpus();
    await env.putPage(
      'https://example.org/pages/1',
      'Page 1',
      '<p>Read the <a href="/blog/kerberos">kerberos tutorial</a>.</p>',
    );
    await env.collection().commit();
    // Stopped before the update ran: links.json keeps the key, without its staged record.
    await env.collection().stop();
    const update = await env.collection().updateEvidence();
    assert.equal(update.rebuilt, false);
    assert.equal(update.documentsRead, 1);
    assert.equal(update.documentsReadBack, 1);
    assert.deepEqual(
      (await env.keys('k:kerberos')).sort(),
      [RIVAL, TARGET].sort(),
      'pages 2 and 3 still link to the target',
    );
  });

  it('keeps the evidence when a client pushes the target again', async () => {
    await pushCorpus();
    await env.putPage(TARGET, 'Authentication guide', '<p>Setting up single sign-on, second edition.</p>');
    await env.collection().commit();
    // No evidence update ran: the put itself was mapped with the stored anchor text.
    assert.deepEqual(await env.keys('k:kerberos'), [TARGET]);
    const update = await env.collection().updateEvidence();
    assert.equal(update.documentsUpdated, 0, 'nothing left to re-index');
  });

  it('gives a page pushed after the pages linking to it their anchor text at once', async () => {
    await env.putPage('https://example.org/a', 'A', '<p>See the <a href="/b">quokka handbook</a>.</p>');
    await env.collection().commit();
    await env.collection().updateEvidence();
    await env.putPage('https://example.org/b', 'B', '<p>Marsupials.</p>');
    await env.collection().commit();
    assert.deepEqual(await env.keys('k:quokka'), ['https://example.org/b']);
  });

  it('updates by itself after a commit (push.evidence.delay-seconds)', async () => {
    env.config(['push.evidence.delay-seconds=0']);
    await env.putPage(TARGET, 'Authentication guide', '<p>Single sign-on.</p>');
    await env.putPage(
      'https://example.org/pages/1',
      'Page 1',
      '<p>Read the <a href="/guides/auth">kerberos tutorial</a>.</p>',
    );
    await env.collection().commit();
    await waitFor('the anchor text update', async () => (await env.keys('k:kerberos')).length > 0);
    assert.deepEqual(await env.keys('k:kerberos'), [TARGET]);
  });

  it('recomputes anchor text after a restore from a snapshot (snapshots hold no evidence)', async () => {
    await pushCorpus();
    await env.collection().createSnapshot('before');
    for (const n of [1, 2, 3]) await env.collection().deleteDocument(`https://example.org/pages/${n}`);
    await env.collection().commit();
    await env.collection().updateEvidence();
    assert.deepEqual(await env.keys('k:kerberos'), []);

    await env.collection().stop();
    await env.collection().restoreSnapshot('before');
    await env.collection().updateEvidence();
    // The snapshot's documents carry the anchor text they were indexed with.
    assert.deepEqual(await env.keys('k:kerberos'), [TARGET]);
    // Deleting the linking pages again takes the text away: the graph was rebuilt from the
    // restored documents (the saved one, where they were already gone, would see no change).
    for (const n of [1, 2, 3]) await env.collection().deleteDocument(`https://example.org/pages/${n}`);
    await env.collection().commit();
    await env.collection().updateEvidence();
    assert.deepEqual(await env.keys('k:kerberos'), []);
  });

  it('says why it rebuilds: a crash, or a rebuild that a stop left to do', async () => {
    await env.close();
    const lines: string[] = [];
    env = evidenceHome(
      ['docs'],
      [],
      pino({ base: null }, { write: (line: string) => void lines.push(line) }),
    );
    const rebuildReasons = () =>
      lines
        .map((line) => JSON.parse(line) as { msg: string; reason?: string })
        .filter((l) => l.msg === 'anchor text rebuilt')
        .map((l) => l.reason);
    await pushCorpus();
    await env.collection().updateEvidence();
    await env.collection().stop();
    const folder = join(env.home.collectionDataFolder('docs'), 'evidence');
    const links = join(folder, 'links.json');
    writeFileSync(links, readFileSync(links, 'utf8').replace('kerberos tutorial', 'kerberos tutorials'));

    // Started (a search opens the collection) and stopped twice before the rebuild ran: the
    // marker keeps the first reason, once.
    for (let i = 0; i < 2; i++) {
      await env.keys('kerberos');
      await env.collection().stop();
      assert.match(readFileSync(join(folder, 'OPEN'), 'utf8'), /^rebuild left to do: /);
    }
    lines.length = 0;
    assert.equal((await env.collection().updateEvidence()).rebuilt, true);
    assert.deepEqual(rebuildReasons(), [
      'a rebuild was left to do when the collection stopped (the saved link evidence was unusable)',
    ]);

    // A clean stop after the rebuild leaves no marker; one left by a crash says so.
    await env.collection().stop();
    assert.deepEqual(
      readdirSync(folder).filter((name) => name === 'OPEN'),
      [],
    );
    writeFileSync(join(folder, 'OPEN'), '2026-11-22T10:00:00.000Z\n');
    lines.length = 0;
    assert.equal((await env.collection().updateEvidence()).rebuilt, true);
    assert.deepEqual(rebuildReasons(), ['the collection did not stop cleanly']);
  });

  it('rebuilds the link graph when its file is unusable, or was not saved by a clean stop', async () => {
    await pushCorpus();
    await env.collection().stop();
    const links = join(env.home.collectionDataFolder('docs'), 'evidence', 'links.json');
    writeFileSync(links, readFileSync(links, 'utf8').replace('kerberos tutorial', 'kerberos tutorials'));
    let update = await env.collection().updateEvidence();
    assert.equal(update.rebuilt, true);
    assert.ok(
      readdirSync(dirname(links)).some((name) => name.startsWith('links.json.bad-')),
      'the bad file is kept aside',
    );
    await env.collection().deleteDocument('https://example.org/pages/1');
    await env.collection().commit();
    update = await env.collection().updateEvidence();
    assert.equal(update.rebuilt, false);
    assert.equal(update.documentsRead, 1);

    // A crash leaves the OPEN marker behind: the saved graph may miss committed changes.
    await env.collection().stop();
    writeFileSync(join(dirname(links), 'OPEN'), 'crashed\n');
    update = await env.collection().updateEvidence();
    assert.equal(update.rebuilt, true);
    assert.deepEqual(await env.keys('k:kerberos'), [TARGET]);
  });
});

describe('anchor text in a meta collection', () => {
  beforeEach(() => {
    env = evidenceHome();
  });
  afterEach(async () => {
    await env.close();
  });

  it('counts only when the meta collection sets -anniemode=3 explicitly', async () => {
    await pushCorpus();
    env.manager.create('all', 'meta', ['docs']);
    const implicit = await env.keys('kerberos tutorial', 'all');
    assert.equal(implicit[0], RIVAL, `meta without the option: ${implicit.join(', ')}`);
    env.config(['query_processor_options=-anniemode=3'], 'all');
    const explicit = await env.keys('kerberos tutorial', 'all');
    assert.equal(explicit[0], TARGET, `meta with the option: ${explicit.join(', ')}`);
  });
});
