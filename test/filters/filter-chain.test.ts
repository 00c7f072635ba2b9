import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { chooseAutoFilter, parseFilterChain } from '../../src/collection/filters/filter-chain.js';
import { expectSearchError, runFilters } from './run-filter.js';

/** The kinds of a parsed chain, step by step. */
const kinds = (spec: string | undefined) => parseFilterChain(spec).map((step) => step.map((c) => c.kind));

describe('filter chain syntax (the original\'s: ":" separates steps, "," the choices of a step)', () => {
  it('splits steps on ":" and choices on ",", ignores case, spaces and empty entries, knows the aliases', () => {
    assert.deepEqual(kinds('Html:PlainText'), [['Html'], ['PlainText']]);
    assert.deepEqual(kinds(' html : TEXT ,json::xml, '), [['Html'], ['PlainText', 'Json'], ['Xml']]);
    assert.deepEqual(kinds('plaintext:AUTO'), [['PlainText'], ['Auto']]);
  });

  it("knows the original's filter names, with or without their Java package", () => {
    assert.deepEqual(
      kinds(
        'TikaFilterProvider,ExternalFilterProvider:JSoupProcessingFilterProvider:DocumentFixerFilterProvider',
      ),
      [['Binary', 'Skip'], ['HtmlDocument'], ['FixDocument']],
    );
    assert.deepEqual(
      kinds(
        'com.funnelback.common.filter.TikaFilterProvider,CombinerFilterProvider:InjectNoIndexFilterProvider:ForkFilterProvider',
      ),
      [['Binary', 'Skip'], ['Skip'], ['Skip']],
    );
    assert.equal(parseFilterChain('tikafilterprovider')[0]![0]!.name, 'tikafilterprovider');
  });

  it('means Auto when there is no chain', () => {
    assert.deepEqual(kinds(undefined), [['Auto']]);
    assert.deepEqual(kinds(''), [['Auto']]);
    assert.deepEqual(kinds(' , : '), [['Auto']]);
  });

  it('refuses an unknown filter with FILTER_UNKNOWN, listing the known ones', () => {
    const err = expectSearchError(() => parseFilterChain('Html,PdfBoxFilterProvider'), 'FILTER_UNKNOWN');
    assert.match(err.message, /PdfBoxFilterProvider/);
    for (const name of [
      'PlainText',
      'Html',
      'Xml',
      'Json',
      'Auto',
      'TikaFilterProvider',
      'ExternalFilterProvider',
    ])
      assert.match(err.message, new RegExp(name));
    expectSearchError(() => runFilters('x', 'text/plain', { chain: 'Pdf' }), 'FILTER_UNKNOWN');
  });
});

describe("the original's chain on documents that are not binary", () => {
  const CMS =
    'TikaFilterProvider,ExternalFilterProvider:JSoupProcessingFilterProvider:DocumentFixerFilterProvider';

  it('an HTML page: Tika and External do not apply, JSoup reads the HTML, the fixer repairs a useless title', () => {
    const skipped: string[] = [];
    const doc = runFilters(
      '<title>Untitled Document</title><h2>Ferry timetable</h2><p>Sailings</p>',
      'text/html',
      {
        chain: CMS,
        onSkipped: (filter) => skipped.push(filter),
      },
    );
    assert.equal(doc.title, 'Ferry timetable');
    assert.equal(doc.text, 'Ferry timetable\nSailings');
    assert.deepEqual(skipped, ['ExternalFilterProvider']);
  });

  it('a plain text document: no step applies, so Auto reads it; JSoup never parses text as HTML', () => {
    const doc = runFilters('a <b> c', 'text/plain', { chain: CMS });
    assert.equal(doc.text, 'a <b> c');
    assert.equal(doc.title, 'a <b> c');
  });

  it('the first filter of a choice that applies runs, the others not', () => {
    assert.equal(
      runFilters('<p>&amp;lt;b&amp;gt;</p>', 'text/html', { chain: 'Html,Html' }).text,
      '&lt;b&gt;',
    );
    assert.equal(
      runFilters('<p>x</p>', 'text/html', { chain: 'ExternalFilterProvider,PlainText' }).text,
      '<p>x</p>',
    );
  });
});

describe('filter chain order', () => {
  it('runs filters in order, each on the text of the one before', () => {
    // One Html pass decodes &amp;lt; to &lt;; a second pass reads that as "<".
    assert.equal(runFilters('<p>&amp;lt;b&amp;gt;</p>', 'text/html', { chain: 'Html' }).text, '&lt;b&gt;');
    assert.equal(runFilters('<p>&amp;lt;b&amp;gt;</p>', 'text/html', { chain: 'Html:Html' }).text, '<b>');
    // PlainText first keeps the markup, Html then removes it.
    assert.equal(runFilters('<p>a</p><p>b</p>', 'text/plain', { chain: 'PlainText:Html' }).text, 'a\nb');
  });

  it('lets a later filter read what an earlier one extracted, keeping the metadata of both', () => {
    const page =
      '<meta name="author" content="Ada"><title>Page</title><pre>{"title": "From JSON", "x": "y"}</pre>';
    const doc = runFilters(page, 'text/html', { chain: 'Html:Json' });
    assert.equal(doc.title, 'From JSON');
    assert.deepEqual(doc.metadata, { '<author>': ['Ada'], title: ['From JSON'], x: ['y'] });
    assert.equal(doc.text, 'From JSON\ny');
    // The other order cannot work: the page is not JSON.
    expectSearchError(() => runFilters(page, 'text/html', { chain: 'Json:Html' }), 'FILTER_FAILED');
  });

  it('keeps the links of an earlier filter', () => {
    const doc = runFilters('<a href="/x">x</a>', 'text/html', { chain: 'Html:PlainText' });
    assert.deepEqual(doc.links, [{ href: 'http://example.com/x', text: 'x' }]);
  });
});

describe('Auto: the filter chosen by content type', () => {
  it('chooses by media type, and for XML types by the declaration', () => {
    const decl = '<?xml version="1.0"?><a/>';
    const cases: [string, string, string][] = [
      ['text/html', '<p>x</p>', 'Html'],
      ['application/xhtml+xml', decl, 'Html'],
      ['application/xml', decl, 'Xml'],
      ['text/xml', decl, 'Xml'],
      ['application/atom+xml', decl, 'Xml'],
      ['application/xml', '<a/>', 'PlainText'],
      ['application/json', '{}', 'Json'],
      ['application/ld+json', '{}', 'Json'],
      ['text/plain', '<p>x</p>', 'PlainText'],
      ['text/csv', 'a,b', 'PlainText'],
      ['', 'some text', 'PlainText'],
      ['application/octet-stream', 'some text', 'PlainText'],
      ['application/octet-stream', 'PK\u0003\u0004\u0000\u0000', 'Binary'],
      ['image/png', '\u0089PNG\r\n\u001a\n\u0000\u0000', 'Binary'],
    ];
    for (const [type, content, expected] of cases)
      assert.equal(chooseAutoFilter(type, content), expected, type);
  });

  it('reads the media type from a full Content-Type header, any case, with parameters', () => {
    const doc = runFilters('<title>T</title>', 'Text/HTML ; charset="UTF-8"');
    assert.equal(doc.title, 'T');
  });

  it('indexes no text for binary content of a non-text type, but keeps text pushed as text/plain', () => {
    const bytes = new Uint8Array([0x50, 0x4b, 3, 4, 0, 0, 0x41, 0x42]);
    assert.equal(runFilters(bytes, 'application/zip').text, '');
    assert.equal(runFilters(bytes, 'text/plain').text.length, 8);
  });

  it('plain text keeps the text as it is, line ends made LF, no title', () => {
    const doc = runFilters('  Line one\r\nLine two\rLine three  ', 'text/plain');
    assert.equal(doc.text, '  Line one\nLine two\nLine three  ');
    assert.equal(doc.title, undefined);
    assert.deepEqual(doc.metadata, {});
    assert.deepEqual(doc.links, []);
  });
});

describe('charsets', () => {
  const latin1Cafe = new Uint8Array([0x63, 0x61, 0x66, 0xe9]);

  it('decodes latin1, iso-8859-1, windows-1252 and utf-16le from the Content-Type', () => {
    assert.equal(runFilters(latin1Cafe, 'text/plain; charset=latin1').text, 'café');
    assert.equal(runFilters(latin1Cafe, 'text/plain; charset="ISO-8859-1"').text, 'café');
    assert.equal(
      runFilters(new Uint8Array([0x80, 0x20, 0x93, 0x94]), 'text/plain; charset=windows-1252').text,
      '\u20ac \u201c\u201d',
    );
    const utf16 = new Uint8Array(Buffer.from('naïve ✓', 'utf16le'));
    assert.equal(runFilters(utf16, 'text/plain; charset=utf-16le').text, 'naïve ✓');
  });

  it('defaults to UTF-8 and turns invalid UTF-8 into replacement characters instead of failing', () => {
    assert.equal(runFilters(new Uint8Array(Buffer.from('café ✓')), 'text/plain').text, 'café ✓');
    assert.equal(runFilters(latin1Cafe, 'text/plain').text, 'caf\ufffd');
    assert.equal(
      runFilters(new Uint8Array([0x3c, 0x70, 0x3e, 0xff, 0xfe, 0x41]), 'text/html').text,
      '\ufffd\ufffdA',
    );
  });

  it('refuses an unknown charset with a clear FILTER_FAILED', () => {
    const err = expectSearchError(() => runFilters('x', 'text/plain; charset=klingon-8'), 'FILTER_FAILED');
    assert.match(err.message, /unsupported charset "klingon-8"/);
  });

  it('lets a byte order mark win and strips it', () => {
    const bom8 = new Uint8Array([0xef, 0xbb, 0xbf, ...Buffer.from('é')]);
    assert.equal(runFilters(bom8, 'text/plain; charset=latin1').text, 'é');
    const bom16 = new Uint8Array([0xff, 0xfe, ...Buffer.from('hé', 'utf16le')]);
    assert.equal(runFilters(bom16, 'text/plain').text, 'hé');
  });

  it("uses the document's own declaration when the Content-Type has no charset", () => {
    const xmlLatin1 = new Uint8Array(
      Buffer.from('<?xml version="1.0" encoding="ISO-8859-1"?><a>café</a>', 'latin1'),
    );
    assert.equal(runFilters(xmlLatin1, 'application/xml').text, 'café');
    const htmlLatin1 = new Uint8Array(
      Buffer.from('<meta charset="windows-1252"><title>café</title>', 'latin1'),
    );
    assert.equal(runFilters(htmlLatin1, 'text/html').title, 'café');
    const httpEquiv = new Uint8Array(
      Buffer.from(
        '<meta http-equiv="Content-Type" content="text/html; charset=iso-8859-1"><p>café</p>',
        'latin1',
      ),
    );
    assert.equal(runFilters(httpEquiv, 'text/html').text, 'café');
    // The Content-Type charset wins over the document's declaration.
    const utf8 = new Uint8Array(Buffer.from('<meta charset="latin1"><p>café</p>'));
    assert.equal(runFilters(utf8, 'text/html; charset=utf-8').text, 'café');
    // A declaration we cannot use is ignored: UTF-8.
    assert.equal(
      runFilters(new Uint8Array(Buffer.from('<meta charset="bogus"><p>café</p>')), 'text/html').text,
      'café',
    );
  });
});
