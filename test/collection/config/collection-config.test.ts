import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseCfg } from '../../../src/collection/config/cfg-file.js';
import {
  CONFIG_KEYS,
  parseQueryProcessorOptions,
  resolveCollectionConfig,
  resolveGlobalConfig,
  serializeQueryProcessorOptions,
} from '../../../src/collection/config/collection-config.js';
import { ConfigFileError } from '../../../src/collection/config/config-file-error.js';

describe('resolveCollectionConfig', () => {
  it('gives the contract defaults when nothing is set', () => {
    const config = resolveCollectionConfig({ cpuCount: 6 });
    assert.equal(config.autoCommitTimeoutSeconds, 30);
    assert.equal(config.autoCommitMaxChanges, 10000);
    assert.equal(config.maxGenerations, 64);
    assert.equal(config.killedPercentageForReindex, 50);
    assert.equal(config.createSnapshotOnMergeFailure, false);
    assert.equal(config.workerThreadCount, 6);
    assert.equal(config.maxRequestBytes, 52428800);
    assert.equal(config.filterClasses, undefined);
    assert.equal(config.queryProcessorOptions, '-anniemode=3');
    assert.deepEqual([...config.queryProcessorFlags], [['anniemode', '3']]);
    assert.equal(config.indexerOptions, '');
    assert.equal(config.extra.size, 0);
    assert.deepEqual(config.warnings, []);
  });

  it('defaults the worker threads to the machine cores', () => {
    assert.ok(resolveCollectionConfig({}).workerThreadCount >= 1);
  });

  it('reads collection.cfg over global.cfg defaults', () => {
    const global = parseCfg(
      'push.max-generations=40\npush.auto-commit.max-changes=500\npush.worker-thread-count=3\n',
      'global.cfg',
    );
    const collection = parseCfg(
      'push.max-generations=20\nfilter.classes=Html\npush.create-snapshot-on-merge-failure=TRUE\n',
      'collection.cfg',
    );
    const config = resolveCollectionConfig({ global, collection });
    assert.equal(config.maxGenerations, 20);
    assert.equal(config.autoCommitMaxChanges, 500);
    assert.equal(config.workerThreadCount, 3);
    assert.equal(config.filterClasses, 'Html');
    assert.equal(config.createSnapshotOnMergeFailure, true);
    assert.equal(config.sources.get('push.max-generations'), 'collection.cfg');
    assert.equal(config.sources.get('push.auto-commit.max-changes'), 'global.cfg');
  });

  it('reads installation-wide keys from global.cfg only, warning about them in collection.cfg', () => {
    const config = resolveCollectionConfig({
      global: { 'push.max-request-bytes': '1048576' },
      collection: { 'push.max-request-bytes': '10', 'push.worker-thread-count': 'lots' },
      collectionFile: 'conf/news/collection.cfg',
      cpuCount: 2,
    });
    assert.equal(config.maxRequestBytes, 1048576);
    assert.equal(config.workerThreadCount, 2);
    assert.equal(config.warnings.length, 2);
    assert.match(
      config.warnings[0],
      /conf\/news\/collection.cfg: push.max-request-bytes is installation-wide/,
    );
  });

  it('replaces the query processor options entirely when set', () => {
    const config = resolveCollectionConfig({
      collection: { query_processor_options: '-stem=2 -SF=[t,a] -daat' },
    });
    assert.deepEqual(Object.fromEntries(config.queryProcessorFlags), {
      stem: '2',
      SF: '[t,a]',
      daat: 'true',
    });
    assert.equal(config.queryProcessorFlags.has('anniemode'), false);
  });

  it('keeps unknown keys as raw strings, collection over global', () => {
    const config = resolveCollectionConfig({
      global: { 'ui.title': 'Global', service_name: 'S' },
      collection: { 'ui.title': 'News search' },
    });
    assert.deepEqual(Object.fromEntries(config.extra), { 'ui.title': 'News search', service_name: 'S' });
    assert.equal(config.sources.get('service_name'), 'global.cfg');
  });

  it('names the key, the file and the accepted range of a bad value', () => {
    assert.throws(
      () =>
        resolveCollectionConfig({
          collection: { 'push.auto-commit.timeout-seconds': '30s' },
          collectionFile: 'conf/c/collection.cfg',
        }),
      (e: unknown) =>
        e instanceof ConfigFileError &&
        e.code === 'CONFIG_INVALID' &&
        e.file === 'conf/c/collection.cfg' &&
        /push.auto-commit.timeout-seconds must be a whole number from 0 to 604800, found "30s"/.test(
          e.message,
        ),
    );
    for (const [key, value] of [
      ['push.max-generations', '1'],
      ['push.scheduler.killed-percentage-for-reindex', '101'],
      ['push.scheduler.killed-percentage-for-reindex', '0'],
      ['push.auto-commit.max-changes', '-1'],
      ['push.auto-commit.max-changes', '1.5'],
      ['push.auto-commit.max-changes', ''],
      ['push.create-snapshot-on-merge-failure', 'yes'],
      ['push.create-snapshot-on-merge-failure', '1'],
      ['query_processor_options', 'anniemode=3'],
      ['filter.classes', 'Htlm'],
      ['filter.classes', 'Html,Pdf'],
    ]) {
      assert.throws(
        () => resolveCollectionConfig({ collection: { [key]: value } }),
        (e: unknown) =>
          e instanceof ConfigFileError && e.message.includes(key) && e.file === 'collection.cfg',
        `${key}=${value}`,
      );
    }
    assert.throws(
      () => resolveCollectionConfig({ global: { 'push.max-request-bytes': '10' } }),
      (e: unknown) =>
        e instanceof ConfigFileError && e.file === 'global.cfg' && /push.max-request-bytes/.test(e.message),
    );
  });

  it('filter.classes: known filter names in any case and separator pass; a misspelt one names the filter, the key and the file', () => {
    assert.equal(
      resolveCollectionConfig({ collection: { 'filter.classes': 'html:Json, text' } }).filterClasses,
      'html:Json, text',
    );
    assert.throws(
      () => resolveCollectionConfig({ global: { 'filter.classes': 'Htlm' } }),
      (e: unknown) =>
        e instanceof ConfigFileError &&
        e.file === 'global.cfg' &&
        /filter.classes: unknown filter "Htlm"/.test(e.message),
    );
  });

  it('reports every bad value at once', () => {
    assert.throws(
      () =>
        resolveCollectionConfig({
          collection: { 'push.max-generations': 'x' },
          global: { 'push.worker-thread-count': '0' },
        }),
      (e: unknown) =>
        e instanceof ConfigFileError &&
        /^collection.cfg and global.cfg: 2 problems/.test(e.message) &&
        e.problems?.length === 2 &&
        Array.isArray(e.details?.problems),
    );
  });

  it('describes every key it reads', () => {
    assert.deepEqual(
      CONFIG_KEYS.map((k) => k.key),
      [
        'push.auto-commit.timeout-seconds',
        'push.auto-commit.max-changes',
        'push.max-generations',
        'push.commit.indexing-timeout-ms',
        'push.scheduler.killed-percentage-for-reindex',
        'push.create-snapshot-on-merge-failure',
        'push.worker-thread-count',
        'push.max-request-bytes',
        'server.body-idle-timeout-seconds',
        'server.body-min-bytes-per-second',
        'server.request-timeout-seconds',
        'search.thread-count',
        'search.timeout-ms',
        'search.max-prefix-terms',
        'search.queue-size',
        'search.clicks.max-per-minute',
        'search.clicks.dedupe-seconds',
        'search.clicks.max-log-bytes',
        'filter.classes',
        'query_processor_options',
        'indexer_options',
        'collection_type',
        'meta.members',
        'search.public',
        'push.evidence.delay-seconds',
        'push.click-logs.interval-seconds',
        'push.click-logs.half-life-days',
        'push.click-logs.retention-days',
        'cors.allowed-origins',
        'push.run',
        'push.initial-mode',
        'push.replication.master-url',
        'server_secret',
        'replication.ready-max-lag-seconds',
        'metrics.public',
      ],
    );
  });
});

describe('resolveGlobalConfig', () => {
  it('reads only the installation-wide keys, ignoring bad collection defaults', () => {
    const config = resolveGlobalConfig(
      {
        'push.worker-thread-count': '4',
        'push.max-generations': 'oops',
        'server.body-idle-timeout-seconds': '5',
        'search.timeout-ms': '500',
      },
      { cpuCount: 3 },
    );
    assert.deepEqual(config, {
      workerThreadCount: 4,
      maxRequestBytes: 52428800,
      bodyIdleTimeoutSeconds: 5,
      bodyMinBytesPerSecond: 1024,
      requestTimeoutSeconds: 600,
      searchThreadCount: 3,
      searchTimeoutMs: 500,
      searchMaxPrefixTerms: 256,
      searchQueueSize: 64,
      clicksMaxPerMinute: 120,
      clicksDedupeSeconds: 3600,
      clicksMaxLogBytes: 67108864,
      corsOrigins: [],
      metricsPublic: true,
      readyMaxLagSeconds: undefined,
      warnings: [],
    });
    assert.throws(
      () => resolveGlobalConfig({ 'search.timeout-ms': '0' }),
      /global.cfg: search.timeout-ms must be a whole number from 1/,
    );
    assert.equal(resolveGlobalConfig({ 'search.thread-count': '0' }).searchThreadCount, 0);
    assert.throws(
      () => resolveGlobalConfig({ 'server.request-timeout-seconds': '0' }),
      /global.cfg: server.request-timeout-seconds/,
    );
    assert.throws(
      () => resolveGlobalConfig({ 'push.worker-thread-count': 'many' }),
      /global.cfg: push.worker-thread-count/,
    );
  });
});

describe('parseQueryProcessorOptions', () => {
  it('maps -name=value flags and bare -flag to true, later flags winning', () => {
    const flags = parseQueryProcessorOptions('  -anniemode=3\t-stem=2 -daat -x=a=b -stem=3 ');
    assert.deepEqual(Object.fromEntries(flags), { anniemode: '3', stem: '3', daat: 'true', x: 'a=b' });
    assert.equal(parseQueryProcessorOptions('').size, 0);
    assert.equal(parseQueryProcessorOptions('-empty=').get('empty'), '');
  });

  it('refuses tokens that are not flags', () => {
    assert.throws(() => parseQueryProcessorOptions('-a=1 b=2'), /"b=2" is not a flag/);
    assert.throws(() => parseQueryProcessorOptions('-=3'), /no flag name/);
    assert.throws(() => parseQueryProcessorOptions('--x'), /no flag name/);
  });

  it('serialises back to what it parses', () => {
    const flags = parseQueryProcessorOptions('-a=1 -b -c=x=y');
    assert.deepEqual(parseQueryProcessorOptions(serializeQueryProcessorOptions(flags)), flags);
  });
});
