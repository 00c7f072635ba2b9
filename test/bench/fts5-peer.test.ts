import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { Fts5Peer, toFts5Match } from '../../bench/lib/fts5-peer.js';
import { type BenchQuery, QUERY_CLASSES, QUERY_SET } from '../../bench/lib/query-set.js';
import type { RfcPage } from '../../bench/lib/rfc-corpus.js';
import { sqliteUnavailable } from '../../bench/lib/sqlite-available.js';

/** The FTS5 peer needs better-sqlite3's native module, which a plain `npm ci` does not build. */
const skip = sqliteUnavailable() ?? false;

const scratch = mkdtempSync(join(tmpdir(), 'bench-fts5-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

const filler = 'lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor';

function page(n: number, title: string, text: string): RfcPage {
  return { key: `https://rfc.example.org/rfc${n}/page-1`, rfc: n, page: 1, title, text };
}

const PAGES: RfcPage[] = [
  page(1, 'RFC 1: Congestion Avoidance', `${filler} window ${filler}`),
  page(2, 'RFC 2: Something Else', `${filler} congestion window ${filler}`),
  page(3, 'RFC 3: Mail', 'the message body follows the header; a body message is different'),
  page(4, 'RFC 4: Mail again', 'a body of the message and then the message'),
  page(5, 'RFC 5: Résumé', 'accents: naïve café résumé'),
  page(6, 'RFC 6: Operators', 'near and or not are plain words here'),
];

async function* stream(pages: readonly RfcPage[]): AsyncGenerator<RfcPage> {
  for (const p of pages) yield p;
}

const q = (queryClass: BenchQuery['class'], text: string): BenchQuery => ({
  class: queryClass,
  terms: text.split(' '),
});
const keysOf = (peer: Fts5Peer, query: BenchQuery): number[] =>
  peer
    .search(query)
    .map((hit) => Number(/rfc(\d+)/.exec(hit.key)?.[1]))
    .sort((a, b) => a - b);

void describe('toFts5Match', () => {
  void it('maps each query class to FTS5 syntax with every term quoted', () => {
    assert.equal(toFts5Match(q('single', 'protocol')), '"protocol"');
    assert.equal(toFts5Match(q('single-common', 'the')), '"the"');
    assert.equal(toFts5Match(q('and', 'congestion window')), '"congestion" AND "window"');
    assert.equal(toFts5Match(q('or', 'ipv4 ipv6 ipx')), '"ipv4" OR "ipv6" OR "ipx"');
    assert.equal(toFts5Match(q('phrase', 'security considerations')), '"security considerations"');
  });

  void it('escapes double quotes inside a term', () => {
    assert.equal(toFts5Match({ class: 'single', terms: ['a"b'] }), '"a""b"');
  });

  void it('rejects a query without terms', () => {
    assert.throws(() => toFts5Match({ class: 'and', terms: [] }), /at least one term/);
  });
});

void describe('QUERY_SET', () => {
  void it('has queries of every class, in lower-case single-word terms, several terms where the class needs them', () => {
    for (const queryClass of QUERY_CLASSES) assert.ok(QUERY_SET.some((query) => query.class === queryClass));
    for (const query of QUERY_SET) {
      for (const term of query.terms) assert.match(term, /^[a-z0-9]+$/, `term ${term}`);
      const several = query.class === 'and' || query.class === 'or' || query.class === 'phrase';
      assert.equal(query.terms.length > 1, several, query.terms.join(' '));
    }
  });
});

void describe('Fts5Peer', { skip }, () => {
  const folder = join(scratch, 'index');
  const peer = Fts5Peer.create(folder);
  after(() => peer.close());

  void it('indexes a stream in batches and finds pages by each query class', async () => {
    const stats = await peer.index(stream(PAGES), 4);
    assert.equal(stats.docs, PAGES.length);
    assert.equal(peer.docCount(), PAGES.length);

    assert.deepEqual(keysOf(peer, q('single', 'congestion')), [1, 2]);
    assert.deepEqual(keysOf(peer, q('and', 'congestion window')), [1, 2]);
    assert.deepEqual(keysOf(peer, q('and', 'congestion mail')), []);
    assert.deepEqual(keysOf(peer, q('or', 'congestion mail')), [1, 2, 3, 4]);
    // Only page 3 has the two words next to each other in this order.
    assert.deepEqual(keysOf(peer, q('phrase', 'message body')), [3]);
    assert.equal(peer.count(q('single', 'message')), 2);
  });

  void it('ranks a title match above the same word in the text (title weight 2.5)', () => {
    const hits = peer.search(q('single', 'congestion'));
    assert.equal(hits[0].key, PAGES[0].key);
    assert.ok(hits[0].score > hits[1].score, 'scores are higher-is-better');
  });

  void it('folds case and diacritics like our analyzer', () => {
    assert.deepEqual(keysOf(peer, q('single', 'resume')), [5]);
    assert.deepEqual(keysOf(peer, q('phrase', 'naive cafe')), [5]);
  });

  void it('treats FTS5 operator words in the terms as plain words', () => {
    assert.deepEqual(keysOf(peer, q('and', 'near and or not')), [6]);
    assert.deepEqual(keysOf(peer, q('single', 'near')), [6]);
  });

  void it('counts matches up to a limit, as an engine that counts exactly up to a threshold does', () => {
    // "the" is on pages 3 and 4, "lorem" on 1 and 2: four pages match either.
    assert.equal(peer.countUpTo(q('or', 'the lorem'), 10), 4);
    assert.equal(peer.countUpTo(q('or', 'the lorem'), 3), 3);
    assert.equal(peer.countUpTo(q('phrase', 'message body'), 3), 1);
    assert.equal(peer.countUpTo(q('single', 'absent'), 3), 0);
  });

  void it('returns at most k hits', () => {
    assert.equal(peer.search(q('single', 'the'), 1).length, 1);
    assert.equal(peer.search(q('or', 'the lorem'), 10).length, 4);
  });

  void it('commitLatency adds the pages and reports the time it took', () => {
    const fresh = PAGES.slice(0, 3).map((p) => ({ ...p, key: `${p.key}#copy` }));
    const ms = peer.commitLatency(fresh);
    assert.ok(ms > 0);
    assert.equal(peer.docCount(), PAGES.length + 3);
    assert.equal(peer.count(q('single', 'congestion')), 4);
    peer.commitLatency(
      PAGES.slice(3).map((p) => ({ ...p, key: `${p.key}#copy` })),
      { synchronous: 'NORMAL' },
    );
    assert.equal(peer.docCount(), 2 * PAGES.length);
  });

  void it('reports its size on disk, all of it in the database file after a checkpoint', () => {
    peer.checkpoint();
    assert.ok(peer.diskBytes() > 4096);
  });

  void it('create starts from an empty index even where one exists', async () => {
    const other = join(scratch, 'recreated');
    const first = Fts5Peer.create(other);
    await first.index(PAGES);
    first.close();
    const second = Fts5Peer.create(other);
    try {
      assert.equal(second.docCount(), 0);
      await second.index(PAGES.slice(0, 2), 1000);
      assert.deepEqual(keysOf(second, q('single', 'congestion')), [1, 2]);
    } finally {
      second.close();
    }
  });
});
