import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  anchorFieldValues,
  linksOfStored,
  MAX_ANCHOR_REPEAT,
} from '../../src/collection/evidence/anchor-text.js';
import {
  LinkGraph,
  MAX_REDIRECT_HOPS,
  type GraphLink,
  type LinkGraphData,
} from '../../src/collection/evidence/link-graph.js';

const texts = (graph: LinkGraph, target: string) =>
  graph
    .anchorsFor(target)
    .map((a) => `${a.source}:${a.text}`)
    .sort();

describe('LinkGraph', () => {
  it('collects the texts of links aimed at a target, not those of its own links', () => {
    const graph = new LinkGraph();
    graph.setLinks('a', [
      { target: 't', text: 'kerberos tutorial' },
      { target: 'x', text: 'other' },
    ]);
    graph.setLinks('b', [{ target: 't', text: 'kerberos' }]);
    graph.setLinks('t', [{ target: 't', text: 'self' }]);
    assert.deepEqual(texts(graph, 't'), ['a:kerberos tutorial', 'b:kerberos']);
    assert.deepEqual(texts(graph, 'x'), ['a:other']);
  });

  it('follows redirect chains, and stops at cycles', () => {
    const graph = new LinkGraph();
    graph.setRedirect('old', 'mid');
    graph.setRedirect('mid', 'new');
    graph.setLinks('a', [{ target: 'old', text: 'via two redirects' }]);
    graph.setLinks('b', [{ target: 'mid', text: 'via one' }]);
    assert.equal(graph.resolve('old'), 'new');
    assert.deepEqual(texts(graph, 'new'), ['a:via two redirects', 'b:via one']);
    assert.deepEqual(texts(graph, 'old'), []);

    graph.setRedirect('new', 'old');
    assert.ok(['old', 'mid', 'new'].includes(graph.resolve('old')), 'a cycle ends somewhere');
    const long = new LinkGraph();
    for (let i = 0; i < MAX_REDIRECT_HOPS + 5; i++) long.setRedirect(`k${i}`, `k${i + 1}`);
    assert.equal(long.resolve('k0'), `k${MAX_REDIRECT_HOPS}`);
  });

  it('reports the targets whose anchor text changed', () => {
    const graph = new LinkGraph();
    assert.deepEqual(
      [
        ...graph.setLinks('a', [
          { target: 't', text: 'one' },
          { target: 'u', text: 'two' },
        ]),
      ].sort(),
      ['t', 'u'],
    );
    assert.deepEqual(
      [
        ...graph.setLinks('a', [
          { target: 'u', text: 'two' },
          { target: 't', text: 'one' },
        ]),
      ],
      [],
      'same links, other order',
    );
    assert.deepEqual([...graph.setLinks('a', [{ target: 't', text: 'one' }])], ['u']);
    assert.deepEqual([...graph.setRedirect('t', 'v')].sort(), ['t', 'v']);
    assert.deepEqual(
      [...graph.setRedirect('nobody-links-here', 'v')],
      [],
      'a redirect nothing aims at changes nothing',
    );
    assert.deepEqual([...graph.setLinks('a', [])], ['v']);
  });

  it('round-trips through its serialised form', () => {
    const graph = new LinkGraph();
    graph.setRedirect('old', 'new');
    graph.setLinks('a', [
      { target: 'old', text: 'x' },
      { target: 'b', text: 'y' },
    ]);
    const copy = LinkGraph.fromData(JSON.parse(JSON.stringify(graph.toData())) as LinkGraphData);
    assert.deepEqual(texts(copy, 'new'), ['a:x']);
    assert.deepEqual(texts(copy, 'b'), ['a:y']);
    assert.throws(
      () => LinkGraph.fromData({ links: [['a', [[1, 'x']]]], redirects: [] } as never),
      TypeError,
    );
  });

  it('agrees with a naive recomputation after any sequence of changes, and reports every changed target', () => {
    const keys = ['a', 'b', 'c', 'd', 'e'];
    const key = fc.constantFrom(...keys);
    const link = fc.record({ target: key, text: fc.constantFrom('x', 'y', 'z') });
    const op = fc.oneof(
      fc.record({
        kind: fc.constant('links' as const),
        source: key,
        links: fc.array(link, { maxLength: 4 }),
      }),
      fc.record({
        kind: fc.constant('redirect' as const),
        source: key,
        target: fc.option(key, { nil: undefined }),
      }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 30 }), (ops) => {
        const graph = new LinkGraph();
        const links = new Map<string, GraphLink[]>();
        const redirects = new Map<string, string>();
        for (const step of ops) {
          const before = new Map(keys.map((k) => [k, texts(graph, k)]));
          let affected: Set<string>;
          if (step.kind === 'links') {
            affected = graph.setLinks(step.source, step.links);
            links.set(step.source, step.links);
          } else {
            if (step.target === step.source) continue;
            affected = graph.setRedirect(step.source, step.target);
            if (step.target === undefined) redirects.delete(step.source);
            else redirects.set(step.source, step.target);
          }
          for (const k of keys) {
            if (!affected.has(k))
              assert.deepEqual(texts(graph, k), before.get(k), `${k} changed but was not reported`);
          }
        }
        // The oracle: resolve every link by walking the redirects, group by final target.
        const resolve = (k: string) => {
          const seen = new Set([k]);
          let current = k;
          for (;;) {
            const next = redirects.get(current);
            if (next === undefined || seen.has(next)) return current;
            seen.add(next);
            current = next;
          }
        };
        for (const target of keys) {
          const expected = new Set<string>();
          // A redirect (also one inside a cycle) is no result and gets nothing.
          if (resolve(target) !== target) {
            assert.deepEqual(texts(graph, target), [], `anchors of redirect ${target}`);
            continue;
          }
          for (const [source, list] of links) {
            if (source === target) continue;
            for (const l of list) if (resolve(l.target) === target) expected.add(`${source}:${l.text}`);
          }
          assert.deepEqual(new Set(texts(graph, target)), expected, `anchors of ${target}`);
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('anchor text', () => {
  it('repeats a text once per linking page, up to a cap, most frequent first', () => {
    const anchors = [
      ...Array.from({ length: 20 }, (_, i) => ({ source: `s${i}`, text: 'RFC 2119' })),
      { source: 's1', text: 'Key words' },
      { source: 's2', text: 'key WORDS' },
      { source: 's3', text: 'Requirement levels' },
    ];
    const values = anchorFieldValues(anchors);
    assert.deepEqual(values, [
      ...new Array<string>(MAX_ANCHOR_REPEAT).fill('RFC 2119'),
      'Key words',
      'Key words',
      'Requirement levels',
    ]);
    assert.deepEqual(anchorFieldValues([...anchors].reverse()), values, 'the order of links does not matter');
    // One page linking twice with the same text counts once.
    assert.deepEqual(
      anchorFieldValues([
        { source: 'a', text: 't' },
        { source: 'a', text: 't' },
      ]),
      ['t'],
    );
  });

  it('reads stored links as canonical keys, without empty texts, self links or duplicates', () => {
    const stored = JSON.stringify([
      ['https://Example.org/a/../b', ' the   B page '],
      ['https://example.org/b', 'the B page'],
      ['https://example.org', 'home'],
      ['https://example.org/self', 'me'],
      ['https://example.org/c', ''],
      ['not a key', 'bad'],
    ]);
    assert.deepEqual(linksOfStored('https://example.org/self', stored), [
      { target: 'https://example.org/b', text: 'the B page' },
      { target: 'https://example.org/', text: 'home' },
    ]);
    assert.deepEqual(linksOfStored('k', undefined), []);
    assert.deepEqual(linksOfStored('k', '{not json'), []);
  });
});
