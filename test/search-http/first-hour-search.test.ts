import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { testApp, type TestApp } from '../http/helpers.js';
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
