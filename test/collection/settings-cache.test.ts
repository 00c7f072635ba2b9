/**
 * The manager's cached collection settings: read once, replaced when told (config written,
 * collection started), never read again per use; a bad file is an error every time.
 */
import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { CollectionManager } from '../../src/collection/collection-manager.js';
import { loadCollectionSettings } from '../../src/collection/collection-settings.js';
import { silentPushLog } from '../../src/collection/push-log.js';
import { SearchHome } from '../../src/collection/search-home.js';
import { SettingsCache } from '../../src/collection/settings-cache.js';
import { SearchError } from '../../src/errors.js';

const roots: string[] = [];
after(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

function home(): { home: SearchHome; manager: CollectionManager } {
  const root = mkdtempSync(join(tmpdir(), 'pushsearch-settings-'));
  roots.push(root);
  const searchHome = new SearchHome(root);
  const manager = new CollectionManager(searchHome, silentPushLog());
  manager.create('docs', 'push');
  return { home: searchHome, manager };
}

/** A cache whose loader counts its disk reads. */
function countingCache(searchHome: SearchHome): { cache: SettingsCache; reads: () => number } {
  let reads = 0;
  const cache = new SettingsCache(searchHome, (h, name) => {
    reads++;
    return loadCollectionSettings(h, name);
  });
  return { cache, reads: () => reads };
}

void describe('SettingsCache', () => {
  void it('reads a collection once and hands out the same object on every use', () => {
    const { home: searchHome } = home();
    const { cache, reads } = countingCache(searchHome);
    const first = cache.get('docs');
    for (let i = 0; i < 10; i++) assert.equal(cache.get('docs'), first);
    assert.equal(reads(), 1);
  });

  void it('keeps the copy it has when the file changes on disk, until reloaded or forgotten', () => {
    const { home: searchHome } = home();
    const { cache, reads } = countingCache(searchHome);
    assert.equal(cache.get('docs').config.extra.get('facet.Author'), undefined);
    appendFileSync(searchHome.collectionConfigFile('docs'), 'facet.Author=author\n');
    assert.equal(cache.get('docs').config.extra.get('facet.Author'), undefined);
    assert.equal(cache.reload('docs').config.extra.get('facet.Author'), 'author');
    appendFileSync(searchHome.collectionConfigFile('docs'), 'facet.Price=price\n');
    cache.forget('docs');
    assert.equal(cache.get('docs').config.extra.get('facet.Price'), 'price');
    assert.equal(reads(), 3);
  });

  void it('caches no bad configuration: every use throws COLLECTION_CONFIG_BROKEN (503) with the reason until the file is fixed', () => {
    const { home: searchHome } = home();
    const { cache, reads } = countingCache(searchHome);
    const file = searchHome.collectionConfigFile('docs');
    writeFileSync(file, 'collection_type=push\npush.max-generations=many\n');
    for (let i = 0; i < 2; i++) {
      assert.throws(
        () => cache.get('docs'),
        (error: unknown) =>
          error instanceof SearchError &&
          error.code === 'COLLECTION_CONFIG_BROKEN' &&
          /conf\/docs\/collection\.cfg: push\.max-generations must be a whole number/.test(error.message),
      );
    }
    assert.equal(reads(), 2);
    writeFileSync(file, 'collection_type=push\npush.max-generations=12\n');
    assert.equal(cache.get('docs').config.maxGenerations, 12);
  });

  void it("is the manager's: created and deleted collections are forgotten, a start reads the files again", async () => {
    const { home: searchHome, manager } = home();
    assert.equal(manager.settings.get('docs').config.maxGenerations, 64);
    appendFileSync(searchHome.collectionConfigFile('docs'), 'push.max-generations=20\n');
    assert.equal(manager.settings.get('docs').config.maxGenerations, 64, 'not read again per use');
    const collection = manager.collection('docs');
    await collection.ensureRunning();
    try {
      assert.equal(manager.settings.get('docs').config.maxGenerations, 20, 'a start reads the files');
    } finally {
      await manager.closeAll();
    }
    await manager.delete('docs');
    manager.create('docs', 'push');
    assert.equal(manager.settings.get('docs').config.maxGenerations, 64, 'a new collection, new settings');
  });
});
