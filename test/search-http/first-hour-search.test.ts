import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ADMIN_AUTH, state, testApp, type TestApp } from '../http/helpers.js';
import { pushAndCommit, searchJson } from './helpers.js';

/** What a new user meets when loading and searching (issue #23): defaults that just work. */
describe('loading and searching with the defaults', () => {
  let app: TestApp;

  before(async () => {
    app = await testApp(['docs']);
    await pushAndCommit(app.app, 'docs', [
      {
        key: 'https://example.com/rfc1',
        body: 'Routing of packets between networks. The routing table is updated by the router.',
        metadata: {
          title: 'Routing Information Protocol',
          Author: 'Ann Example',
          keywords: 'rip; distance vector',
        },
      },
      {
        key: 'https://example.com/rfc2',
        body: 'The DNS maps names to addresses; DNS servers answer queries.',
        metadata: { Title: 'Domain Names', description: 'Concepts and facilities of the domain name system' },
      },
      { key: 'https://example.com/rfc3', body: 'Routes and routed traffic, without a title.' },
    ]);
  });
  after(() => app.close());

  it('titles results by their pushed title metadata (the default metamap.cfg), and searches the mapped classes', async () => {
    const rip = await searchJson(app.app, { collection: 'docs', query: 'packets' });
    const result = rip.response.resultPacket.results[0]!;
    assert.equal(result.title, 'Routing Information Protocol');
    assert.deepEqual(result.listMetadata.a, ['Ann Example']);
    assert.equal(
      (await searchJson(app.app, { collection: 'docs', query: 'a:ann' })).response.resultPacket.resultsSummary
        .totalMatching,
      1,
    );
    assert.equal(
      (await searchJson(app.app, { collection: 'docs', query: 'facilities' })).response.resultPacket
        .results[0]!.title,
      'Domain Names',
    );
    assert.equal(
      (await searchJson(app.app, { collection: 'docs', query: 'distance' })).response.resultPacket
        .resultsSummary.totalMatching,
      1,
    );
    // Without title metadata, the key.
    const untitled = await searchJson(app.app, { collection: 'docs', query: 'traffic' });
    assert.equal(untitled.response.resultPacket.results[0]!.title, 'https://example.com/rfc3');
  });

  it('a truncated word matches the word itself under stemming', async () => {
    const count = async (query: string) =>
      (await searchJson(app.app, { collection: 'docs', query })).response.resultPacket.resultsSummary
        .totalMatching;
    assert.ok((await count('routing*')) >= (await count('routing')), 'routing* finds every routing');
    assert.ok((await count('routing')) >= 1);
    assert.equal(await count('dns*'), await count('dns'));
    assert.equal(await count('dns'), 1);
  });
});

describe('scores, searchedFor and counters', () => {
  let app: TestApp;

  before(async () => {
    app = await testApp(['docs']);
    await pushAndCommit(app.app, 'docs', [
      { key: 'https://example.com/a', body: 'transmission control protocol over networks' },
      { key: 'https://example.com/b', body: 'transmission of data' },
    ]);
  });
  after(() => app.close());

  it('shows scores without the tier offsets, in the same order', async () => {
    const answer = await searchJson(app.app, { collection: 'docs', query: 'transmission control' });
    const results = answer.response.resultPacket.results;
    assert.deepEqual(
      results.map((r) => r.liveUrl),
      ['https://example.com/a', 'https://example.com/b'],
    );
    for (const result of results) assert.ok(result.score > 0 && result.score < 100, `score ${result.score}`);
  });

  it('fills searchedFor for phrases and prefixes too', async () => {
    const searched = async (query: string) =>
      (await searchJson(app.app, { collection: 'docs', query })).question.searchedFor;
    assert.equal(await searched('"transmission control"'), '"transmission control"');
    assert.equal(await searched('transm*'), 'transm*');
    assert.equal(await searched('transmission -data'), 'transmission');
  });

  it('does not count RE_INDEX re-puts in TotDocumentsPut', async () => {
    const put = () => app.manager.collection('docs').stateView().stats!.TotDocumentsPut;
    const before = put();
    assert.equal(before, 2);
    const vacuum = await app.app.inject({
      method: 'POST',
      url: '/push-api/v1/collections/docs/vacuum?vacuum-type=RE_INDEX&wait=true',
      headers: { authorization: ADMIN_AUTH },
    });
    assert.equal(vacuum.statusCode, 200, vacuum.body);
    assert.equal(put(), before);
  });
});

describe('did you mean', () => {
  let app: TestApp;

  before(async () => {
    app = await testApp(['docs']);
    const documents = [];
    for (let i = 0; i < 4; i++)
      documents.push(
        { key: `https://example.com/tcp${i}`, body: 'transmission control protocol and congestion control' },
        { key: `https://example.com/sec${i}`, body: 'security considerations of the control plane' },
      );
    for (let i = 0; i < 6; i++) documents.push({ key: `https://example.com/ctl${i}`, body: 'flow control' });
    // Words of one stem: `authentic` comes first in every text, `authentication` later.
    for (let i = 0; i < 3; i++)
      documents.push(
        { key: `https://example.com/auth${i}`, body: 'authentic peers need authentication' },
        { key: `https://example.com/krb${i}`, body: 'kerberos tickets' },
      );
    await pushAndCommit(app.app, 'docs', documents);
  });
  after(() => app.close());

  const spell = async (query: string) =>
    (await searchJson(app.app, { collection: 'docs', query })).response.resultPacket.spell?.text ?? null;

  it('corrects swapped letters (the dictionary holds stems)', async () => {
    assert.equal(await spell('congestoin'), 'congestion');
    assert.equal(await spell('secuirty'), 'security');
  });

  it('shows the word of the collection nearest to what was typed, not another word of its stem', async () => {
    assert.equal(await spell('athentication'), 'authentication');
    // `kerbero` is one deletion away and stems like `kerberos`, but is no word of the collection.
    assert.equal(await spell('kerberso'), 'kerberos');
  });

  it('suggests when some results match but the correction matches far more fully', async () => {
    const typed = await searchJson(app.app, { collection: 'docs', query: 'transmision control' });
    assert.ok(typed.response.resultPacket.resultsSummary.totalMatching >= 3, 'partial matches by "control"');
    assert.equal(typed.response.resultPacket.spell?.text, 'transmission control');
    assert.equal(await spell('transmission control'), null, 'nothing to correct');
  });
});

describe('did you mean, its word found in a later text', () => {
  let app: TestApp;

  before(async () => {
    app = await testApp(['docs']);
    // `authent` is the stem of both words; the texts where it comes first (position 0) hold
    // only `authentic`, and only the third text read holds `authentication`.
    await pushAndCommit(app.app, 'docs', [
      { key: 'https://example.com/a', body: 'authentic peers' },
      { key: 'https://example.com/b', body: 'authentic hosts' },
      { key: 'https://example.com/c', body: 'peers need authentication' },
    ]);
  });
  after(() => app.close());

  it('shows the word typed nearest to when only a text read after others holds it', async () => {
    const spell = async (query: string) =>
      (await searchJson(app.app, { collection: 'docs', query })).response.resultPacket.spell?.text ?? null;
    assert.equal(await spell('athentication'), 'authentication');
    // A word typed for which no text holds an edit: the first word of the stem in the first text.
    assert.equal(await spell('authentik'), 'authentic');
  });
});

describe('did you mean after a commit', () => {
  let app: TestApp;

  before(async () => {
    app = await testApp(['docs']);
    await pushAndCommit(app.app, 'docs', [
      { key: 'https://example.com/a', body: 'routers forward packets' },
      { key: 'https://example.com/b', body: 'routers drop packets' },
    ]);
  });
  after(() => app.close());

  it('corrects a typo with a word committed after the typo was first asked', async () => {
    const spell = async (query: string) =>
      (await searchJson(app.app, { collection: 'docs', query })).response.resultPacket.spell?.text ?? null;
    // Asked twice: what the first answer looked up is remembered for this point in time.
    assert.equal(await spell('gatway'), null);
    assert.equal(await spell('gatway'), null);
    await pushAndCommit(app.app, 'docs', [
      { key: 'https://example.com/c', body: 'the gateway forwards packets' },
      { key: 'https://example.com/d', body: 'a gateway drops packets' },
    ]);
    assert.equal(await spell('gatway'), 'gateway');
  });
});

describe('did you mean over several generations', () => {
  let app: TestApp;

  before(async () => {
    app = await testApp(['docs']);
    const docs = (name: string, body: string, count: number) =>
      Array.from({ length: count }, (_, i) => ({ key: `https://example.com/${name}${i}`, body }));
    // Three commits, three generations: the first large, the others small. Within one edit of
    // `cabel`: `camel` (3 documents, first generation), `cable` (1 in each), `label` (2, last).
    await pushAndCommit(app.app, 'docs', [
      ...docs('filler', 'routers forward packets between networks', 40),
      ...docs('camel', 'a camel crosses the desert', 3),
      ...docs('cable', 'a cable joins two hosts', 1),
    ]);
    await pushAndCommit(app.app, 'docs', docs('cablebis', 'the cable is cut', 1));
    await pushAndCommit(app.app, 'docs', [
      ...docs('cableter', 'cable lengths', 2),
      ...docs('label', 'a label names a route', 2),
      ...docs('gateway', 'a gateway forwards packets', 2),
    ]);
  });
  after(() => app.close());

  const spell = async (query: string) =>
    (await searchJson(app.app, { collection: 'docs', query })).response.resultPacket.spell?.text ?? null;

  it('corrects with a word found only in the newest, smallest generation', async () => {
    assert.equal((await state(app.app, 'v2', 'docs')).json().generations, 3);
    assert.equal(await spell('gatway'), 'gateway');
    assert.equal(await spell('gatewya packets'), 'gateway packets');
  });

  it('counts a correction in every generation: the most documents over all of them wins', async () => {
    // cable 4 (1 + 1 + 2), camel 3, label 2: `camel` leads the first generation alone, `label` the last.
    assert.equal(await spell('cabel'), 'cable');
    // Asked again: the same, from what the first answer looked up.
    assert.equal(await spell('cabel'), 'cable');
  });
});
