/**
 * PushCollection on its own, over an in-memory journal whose flushes the test holds, fails
 * and releases: the stop/start races are put in a chosen order, not waited for.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CollectionManager } from '../../src/collection/collection-manager.js';
import { PushCollection } from '../../src/collection/push-collection.js';
import { silentPushLog } from '../../src/collection/push-log.js';
import { SearchHome } from '../../src/collection/search-home.js';
import { MemoryJournalStore } from '../../src/journal/memory-journal.js';

describe('PushCollection over an in-memory journal', () => {
  let root: string;
  let home: SearchHome;
  let manager: CollectionManager;
  let count = 0;

  before(() => {
    root = mkdtempSync(join(tmpdir(), 'pushsearch-collection-'));
    home = new SearchHome(root);
    manager = new CollectionManager(home, silentPushLog());
  });
  const opened: PushCollection[] = [];
  // A failed test leaves no running collection (its threads would keep the process alive).
  after(async () => {
    for (const collection of opened) await collection.stop();
    rmSync(root, { recursive: true, force: true });
  });

  /** A new collection and its journal store; `open()` makes a collection object on them (a process). */
  function fresh(): { store: MemoryJournalStore; open: () => PushCollection } {
    const name = `c${++count}`;
    manager.create(name, 'push');
    const store = new MemoryJournalStore();
    return {
      store,
      open: () => {
        const collection = new PushCollection(
          name,
          home,
          silentPushLog(),
          undefined,
          manager.settings,
          store.open,
        );
        opened.push(collection);
        return collection;
      },
    };
  }

  const put = (collection: PushCollection, key: string, text = `text of ${key}`) =>
    collection.putDocument({
      key,
      content: Buffer.from(text),
      contentType: 'text/plain',
      metadata: {},
    });

  /** The committed keys among `keys`, and the committed document count. */
  async function committed(collection: PushCollection, keys: string[]) {
    const searcher = await collection.acquireSearcher();
    try {
      return {
        found: keys.filter((key) => searcher.getDocument(key) !== null),
        documents: searcher.documentCount,
      };
    } finally {
      searcher.release();
    }
  }

  /** Lets every pending callback and immediate run (a step of the event loop, several times). */
  const settle = async () => {
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
  };

  it('replays acknowledged changes that no commit holds, once, after a stop and a new start', async () => {
    const { open } = fresh();
    const first = open();
    await put(first, 'https://x.example/a');
    await first.commit();
    await put(first, 'https://x.example/b');
    await put(first, 'https://x.example/a', 'replaced');
    await first.stop();
    assert.equal(first.state, 'STOPPED');

    const second = open();
    const result = await second.commit();
    assert.equal(result.changes, 2);
    assert.deepEqual(await committed(second, ['https://x.example/a', 'https://x.example/b']), {
      found: ['https://x.example/a', 'https://x.example/b'],
      documents: 2,
    });
    const a = await second.getDocument('https://x.example/a');
    assert.equal(Buffer.from(a!.pushContent.content, 'base64').toString(), 'replaced');
    await second.stop();
  });

  it('stop waits for a put whose append is not durable yet; the put is acknowledged and kept', async () => {
    const { store, open } = fresh();
    const collection = open();
    await put(collection, 'https://x.example/first');
    store.holdFlushes();
    const pending = put(collection, 'https://x.example/held');
    await store.appendsWaiting(1);
    let stopped = false;
    const stop = collection.stop().then(() => (stopped = true));
    await settle();
    assert.equal(collection.state, 'STOPPING');
    assert.equal(stopped, false, 'stop waits for the put in flight');
    store.releaseFlushes();
    assert.equal(await pending, 'https://x.example/held');
    await stop;
    assert.equal(collection.state, 'STOPPED');

    const again = open();
    await again.commit();
    assert.equal((await committed(again, ['https://x.example/held'])).found.length, 1);
    await again.stop();
  });

  it('a request that arrives while the collection stops starts it again afterwards', async () => {
    const { store, open } = fresh();
    const collection = open();
    await put(collection, 'https://x.example/one');
    store.holdFlushes();
    const one = put(collection, 'https://x.example/two');
    await store.appendsWaiting(1);
    const stop = collection.stop();
    await settle();
    assert.equal(collection.state, 'STOPPING');
    const three = put(collection, 'https://x.example/three');
    store.releaseFlushes();
    await Promise.all([one, stop, three]);
    assert.equal(collection.state, 'RUNNING');
    await collection.commit();
    assert.deepEqual(
      await committed(collection, [
        'https://x.example/one',
        'https://x.example/two',
        'https://x.example/three',
      ]),
      {
        found: ['https://x.example/one', 'https://x.example/two', 'https://x.example/three'],
        documents: 3,
      },
    );
    await collection.stop();
  });

  it('a put whose flush fails is refused, leaves no hole in the journal and nothing in the index', async () => {
    const { store, open } = fresh();
    const collection = open();
    store.failNextFlush(new Error('EIO: input/output error'));
    await assert.rejects(put(collection, 'https://x.example/lost'), { code: 'JOURNAL_WRITE_FAILED' });
    await put(collection, 'https://x.example/kept');
    await collection.commit();
    assert.deepEqual(await committed(collection, ['https://x.example/lost', 'https://x.example/kept']), {
      found: ['https://x.example/kept'],
      documents: 1,
    });
    await collection.stop();
    const again = open();
    await again.commit();
    assert.equal((await committed(again, ['https://x.example/lost'])).found.length, 0);
    await again.stop();
  });

  it('stop finishes a commit started with wait=false; the next start holds its documents', async () => {
    const { open } = fresh();
    const collection = open();
    await put(collection, 'https://x.example/c1');
    await put(collection, 'https://x.example/c2');
    const started = await collection.commit(false);
    assert.equal(started.changes, 2);
    await collection.stop();
    const again = open();
    assert.deepEqual(await committed(again, ['https://x.example/c1', 'https://x.example/c2']), {
      found: ['https://x.example/c1', 'https://x.example/c2'],
      documents: 2,
    });
    await again.stop();
  });

  /** Starts a vacuum without waiting; one already running refuses (409 over HTTP), as it may. */
  async function vacuum(collection: PushCollection, type: 'MERGE' | 'RE_INDEX'): Promise<void> {
    try {
      await collection.vacuum(type, false);
    } catch (error) {
      if ((error as { code?: string }).code !== 'WRONG_STATE') throw error;
    }
  }

  // The HTTP stop-race test's mix (test/collection/stop-race.test.ts) without HTTP: commits,
  // merges and re-indexing left running when the collection stops, with objects of one
  // "process" replaced by new ones at random; what was committed is there, once.
  for (const startSeed of process.env.PUSHSEARCH_LONG_TESTS === '1' ? [1, 2, 3, 4, 5, 6] : [1]) {
    it(`committed documents stay, once each, whatever stops meanwhile (seed ${startSeed})`, async () => {
      const { open } = fresh();
      let collection = open();
      let seed = startSeed;
      const random = (): number => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
      const keys = new Set<string>();
      const marks: string[] = [];
      for (let round = 0; round < 25; round++) {
        const mark = `https://race.example/${round}`;
        await put(collection, mark);
        keys.add(mark);
        for (let step = 0; step < 5; step++) {
          const r = random();
          if (r < 0.15) await vacuum(collection, 'RE_INDEX');
          else if (r < 0.3) await vacuum(collection, 'MERGE');
          else if (r < 0.45) await collection.commit(false);
          else if (r < 0.55) await collection.stop();
          else if (r < 0.6) {
            await collection.stop();
            collection = open(); // a new process on the same files and journal
          } else {
            const key = `https://race.example/pool${Math.floor(random() * 5)}`;
            await put(collection, key, `pool ${round}`);
            keys.add(key);
          }
        }
        await collection.commit();
        marks.push(mark);
        const state = await committed(collection, [...keys]);
        assert.deepEqual(state.found.sort(), [...keys].sort(), `after ${round + 1} rounds`);
        assert.equal(state.documents, keys.size, `no document twice after ${round + 1} rounds`);
      }
      await collection.stop();
    });
  }
});
