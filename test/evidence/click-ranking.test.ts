import assert from 'node:assert/strict';
import { copyFileSync, existsSync, readdirSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { evidenceHome, type EvidenceHome } from './helpers.js';

// Click evidence end to end: clicks appended to the click log as `/s/redirect` writes them,
// processed with an injected clock, ranking through the search service.

const DAY = 86_400_000;
const T0 = Date.parse('2024-05-01T00:00:00Z');
const TOPICS = [
  'routing tables between routers',
  'mail transfer between servers',
  'clock synchronisation of hosts',
  'name lookup for hosts',
  'file transfer over links',
  'remote login sessions',
];

let env: EvidenceHome;

/** Six pages about protocols that also mention "networks" (more often the later ones), and unrelated pages. */
async function pushCorpus(): Promise<void> {
  for (const [i, topic] of TOPICS.entries()) {
    const n = i + 1;
    await env.putPage(
      `https://example.org/${n}`,
      `Page ${n}`,
      `<p>A protocol for ${topic}.</p><p>${'Notes about networks. '.repeat(n)}</p>`,
    );
  }
  for (let i = 0; i < 20; i++)
    await env.putPage(
      `https://example.org/other/${i}`,
      `Other ${i}`,
      `<p>Cooking and gardening, part ${i}.</p>`,
    );
  await env.collection().commit();
}

async function rankOf(query: string, key: string): Promise<number> {
  return (await env.keys(query)).indexOf(key) + 1;
}

async function scoreOf(query: string, key: string): Promise<number> {
  return (await env.search(query)).find((r) => r.liveUrl === key)?.score ?? 0;
}

describe('click evidence', () => {
  beforeEach(() => {
    env = evidenceHome();
  });
  afterEach(async () => {
    await env.close();
  });

  it('moves the clicked result up for its query, and more weakly for other queries', async () => {
    await pushCorpus();
    const third = (await env.keys('protocol'))[2]!;
    const before = { protocol: await scoreOf('protocol', third), networks: await scoreOf('networks', third) };
    const networksRank = await rankOf('networks', third);
    assert.ok(networksRank > 1);

    env.logClicks({ query: 'Protocol', rank: 3, url: third, time: T0 }, 5);
    const result = await env.collection().processClickLogs({ now: T0 });
    assert.deepEqual(result, { clicksProcessed: 5, badLines: 0, documentsUpdated: 1 });

    assert.equal(await rankOf('protocol', third), 1);
    const gain = {
      protocol: (await scoreOf('protocol', third)) - before.protocol,
      networks: (await scoreOf('networks', third)) - before.networks,
    };
    assert.ok(gain.networks > 0, 'every query sees the clicked result a little higher');
    assert.ok(
      gain.protocol > gain.networks,
      `the clicked query gains most (${gain.protocol} vs ${gain.networks})`,
    );
    assert.ok((await rankOf('networks', third)) <= networksRank);
    assert.deepEqual(await env.keys('K:protocol'), [third], 'the query is indexed into class K');
  });

  it('lets clicks fade with age (half-life 30 days)', async () => {
    await pushCorpus();
    const third = (await env.keys('protocol'))[2]!;
    const base = await scoreOf('networks', third);
    env.logClicks({ query: 'protocol', rank: 3, url: third, time: T0 }, 8);
    await env.collection().processClickLogs({ now: T0 });
    const fresh = (await scoreOf('networks', third)) - base;

    // No new clicks: the same ones, two half-lives later, weigh a quarter.
    const aged = await env.collection().processClickLogs({ now: T0 + 60 * DAY });
    assert.equal(aged.clicksProcessed, 0);
    assert.equal(aged.documentsUpdated, 1);
    const older = (await scoreOf('networks', third)) - base;
    assert.ok(older > 0 && older < fresh, `${older} should be between 0 and ${fresh}`);

    // A year later nothing is left: the page is back where it was.
    await env.collection().processClickLogs({ now: T0 + 365 * DAY });
    assert.equal(await rankOf('protocol', third), 3);
    assert.deepEqual(await env.keys('K:protocol'), []);
  });

  it('counts an old click less than a fresh one', async () => {
    await pushCorpus();
    const [, second, third] = await env.keys('protocol');
    // Three fresh clicks on one page, three clicks from two months ago on the other.
    env.logClicks({ query: 'protocol', rank: 3, url: third!, time: T0 }, 3);
    env.logClicks({ query: 'protocol', rank: 2, url: second!, time: T0 - 60 * DAY }, 3);
    await env.collection().processClickLogs({ now: T0 });
    const keys = await env.keys('protocol');
    assert.ok(keys.indexOf(third!) < keys.indexOf(second!), keys.join(', '));
  });

  it('counts every click once however often processing runs', async () => {
    await pushCorpus();
    const third = (await env.keys('protocol'))[2]!;
    env.logClicks({ query: 'protocol', rank: 3, url: third, time: T0 }, 4);
    assert.equal((await env.collection().processClickLogs({ now: T0 })).clicksProcessed, 4);
    const score = await scoreOf('protocol', third);
    const again = await env.collection().processClickLogs({ now: T0 });
    assert.deepEqual(again, { clicksProcessed: 0, badLines: 0, documentsUpdated: 0 });
    assert.equal(await scoreOf('protocol', third), score);

    // Clicks logged after the rotation go to a new log; processing counts only them.
    env.logClicks({ query: 'protocol', rank: 1, url: third, time: T0 }, 2);
    assert.equal((await env.collection().processClickLogs({ now: T0 })).clicksProcessed, 2);
    // A restart in between changes nothing.
    await env.collection().stop();
    assert.equal((await env.collection().processClickLogs({ now: T0 + 2 * 60_000 })).clicksProcessed, 0);
    const clicks = env.home.clickLogFolder('docs');
    assert.equal(
      readdirSync(join(clicks, 'pending')).length,
      0,
      'logs older than the grace period are finished',
    );
    assert.equal(readdirSync(join(clicks, 'processed')).length, 2);
  });

  it('neither loses nor double-counts clicks when processing dies before saving its weights', async () => {
    await pushCorpus();
    const third = (await env.keys('protocol'))[2]!;
    const evidence = join(env.home.collectionDataFolder('docs'), 'evidence');
    const clicks = env.home.clickLogFolder('docs');
    env.logClicks({ query: 'protocol', rank: 3, url: third, time: T0 }, 1);
    await env.collection().processClickLogs({ now: T0 });
    const once = await scoreOf('protocol', third);

    env.logClicks({ query: 'protocol', rank: 3, url: third, time: T0 }, 3);
    await env.collection().stop();
    copyFileSync(join(evidence, 'clicks.json'), join(evidence, 'clicks.json.saved'));
    await env.collection().processClickLogs({ now: T0 + 2 * 60_000 });
    const expected = await scoreOf('protocol', third);
    assert.ok(expected > once);

    // Back to the moment after the rotation, before the weights were written: the old
    // weights, the rotated log still pending.
    await env.collection().stop();
    renameSync(join(evidence, 'clicks.json.saved'), join(evidence, 'clicks.json'));
    for (const name of readdirSync(join(clicks, 'processed')).slice(1)) {
      renameSync(join(clicks, 'processed', name), join(clicks, 'pending', name));
    }
    const rerun = await env.collection().processClickLogs({ now: T0 + 2 * 60_000 });
    assert.equal(rerun.clicksProcessed, 3);
    assert.equal(await scoreOf('protocol', third), expected);
  });

  it('rebuilds the click weights from the processed logs when their file is lost', async () => {
    await pushCorpus();
    const third = (await env.keys('protocol'))[2]!;
    // The rebuild runs by itself when the collection starts, on the real clock.
    const now = Date.now();
    env.logClicks({ query: 'protocol', rank: 3, url: third, time: now }, 3);
    await env.collection().processClickLogs({ now });
    // A later run finishes the log (moves it to processed/, kept for this very case).
    await env.collection().processClickLogs({ now: now + 2 * 60_000 });
    assert.equal(readdirSync(join(env.home.clickLogFolder('docs'), 'processed')).length, 1);
    const score = await scoreOf('protocol', third);
    await env.collection().stop();
    const file = join(env.home.collectionDataFolder('docs'), 'evidence', 'clicks.json');
    renameSync(file, `${file}.lost`);
    // Starts the collection, which refolds the processed logs first; then nothing is left to count.
    const after = await env.collection().processClickLogs();
    assert.equal(after.clicksProcessed, 0);
    assert.ok(existsSync(file));
    assert.equal(await rankOf('protocol', third), 1);
    assert.equal(await scoreOf('protocol', third), score);
  });

  it('credits a click on a redirected URL to the redirect target, and skips bad lines', async () => {
    await pushCorpus();
    const third = (await env.keys('protocol'))[2]!;
    await env.collection().putRedirect('https://example.org/old-third', third);
    await env.collection().commit();
    await env.collection().updateEvidence();
    env.logClicks({ query: 'protocol', rank: 1, url: 'https://example.org/old-third#top', time: T0 }, 3);
    env.logClicks({ query: 'protocol', rank: 1, url: 'not a url', time: T0 }, 1);
    const result = await env.collection().processClickLogs({ now: T0 });
    assert.equal(result.clicksProcessed, 3);
    assert.equal(result.badLines, 1);
    assert.equal(await rankOf('protocol', third), 1);
  });

  it("never makes a client's staged changes searchable: its evidence waits for the client's commit", async () => {
    await pushCorpus();
    const third = (await env.keys('protocol'))[2]!;
    await env.putPage('https://example.org/staged', 'Staged', '<p>A protocol nobody committed yet.</p>');
    env.logClicks({ query: 'protocol', rank: 3, url: third, time: T0 }, 5);
    const result = await env.collection().processClickLogs({ now: T0 });
    assert.equal(result.documentsUpdated, 1);
    assert.ok(!(await env.keys('protocol')).includes('https://example.org/staged'));
    assert.equal(await rankOf('protocol', third), 3, 're-indexed, not yet committed');
    await env.collection().commit();
    assert.ok((await env.keys('protocol')).includes('https://example.org/staged'));
    assert.equal(await rankOf('protocol', third), 1);
    // Committed with the client's changes: nothing left to do.
    assert.equal((await env.collection().processClickLogs({ now: T0 })).documentsUpdated, 0);
  });

  it('re-indexes again after a stop what it had staged but nobody committed', async () => {
    await pushCorpus();
    const third = (await env.keys('protocol'))[2]!;
    await env.putPage('https://example.org/staged', 'Staged', '<p>A protocol nobody committed yet.</p>');
    env.logClicks({ query: 'protocol', rank: 3, url: third, time: T0 }, 5);
    await env.collection().processClickLogs({ now: T0 });
    // Stopping drops what is staged and not journaled: the client's put is replayed, the re-indexed page is not.
    await env.collection().stop();
    await env.collection().updateEvidence();
    await env.collection().commit();
    assert.equal(await rankOf('protocol', third), 1);
    assert.ok((await env.keys('protocol')).includes('https://example.org/staged'));
  });

  it('keeps the click evidence when a client pushes the page again', async () => {
    await pushCorpus();
    const third = (await env.keys('protocol'))[2]!;
    env.logClicks({ query: 'protocol', rank: 3, url: third, time: T0 }, 5);
    await env.collection().processClickLogs({ now: T0 });
    const n = Number(third.split('/').pop());
    await env.putPage(third, `Page ${n}`, `<p>A protocol for ${TOPICS[n - 1]}, revised.</p>`);
    await env.collection().commit();
    assert.equal(await rankOf('protocol', third), 1);
  });
});
