import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  MAX_ELEMENT_CHARS,
  MAX_ELEMENT_VALUES,
  MAX_LINKS,
} from '../../src/collection/filters/filtered-document.js';
import { runFilters } from './run-filter.js';

const html = (s: string, key?: string) => runFilters(s, 'text/html', key === undefined ? {} : { key });

describe('HTML filter: title and text', () => {
  it('takes the title from <title>, entities decoded and whitespace collapsed', () => {
    const doc = html(
      '<html><head><title>\n  Fish &amp; Chips\t Guide </title></head><body><h1>Heading</h1></body></html>',
    );
    assert.equal(doc.title, 'Fish & Chips Guide');
  });

  it('falls back to the first <h1> when there is no title, or an empty one', () => {
    assert.equal(html('<body><h1>First <em>one</em></h1><h1>Second</h1>').title, 'First one');
    assert.equal(html('<title>  </title><h1>From h1</h1>').title, 'From h1');
    assert.equal(html('<p>no heading at all</p>').title, undefined);
  });

  it('cuts a title at 1024 characters; an unclosed <title> swallows the page, as in browsers', () => {
    const long = html(`<title>${'word '.repeat(1000)}</title><p>body</p>`);
    assert.ok(long.title !== undefined && long.title.length <= 1024 && long.title.startsWith('word word'));
    assert.equal(long.text, 'body');
    const unclosed = html(`<title>Start ${'x '.repeat(100_000)}<p>never body</p>`);
    assert.ok(
      unclosed.title !== undefined && unclosed.title.length <= 1024 && unclosed.title.startsWith('Start x'),
    );
    assert.equal(unclosed.text, '');
  });

  it('does not take an SVG tooltip title for the page title, nor put any title in the text', () => {
    const doc = html('<body><svg><title>tooltip</title></svg><p>body</p><title>Real</title></body>');
    assert.equal(doc.title, 'Real');
    assert.equal(doc.text, 'body');
  });

  it('keeps visible text and drops script, style, noscript and template content', () => {
    const doc = html(
      '<p>visible</p><script>var hidden1 = 1;</script><style>.hidden2 { }</style>' +
        '<noscript>hidden3</noscript><template><p>hidden4</p></template><p>end</p>',
    );
    assert.equal(doc.text, 'visible\nend');
  });

  it('is not fooled by "</" and markup inside script strings', () => {
    const doc = html('<p>a</p><script>var s = "</div><p>hidden</p>"; if (a </b) {}</script><p>b</p>');
    assert.equal(doc.text, 'a\nb');
  });

  it('separates words at block boundaries, never gluing them', () => {
    const doc = html(
      '<div>one</div><div>two</div><p>three<br>four</p><table><tr><td>five</td><td>six</td></tr></table><li>seven<li>eight',
    );
    assert.deepEqual(doc.text.split(/\s+/), ['one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight']);
    // Inline elements do not separate: a browser shows "bold" glued too.
    assert.equal(html('<p>un<b>bold</b>ed</p>').text, 'unbolded');
  });

  it('collapses whitespace, keeping one line break between blocks', () => {
    assert.equal(html('<p>  a \t\r\n  b  </p>\n\n<p>c&nbsp;&nbsp;d</p>').text, 'a b\nc d');
  });

  it('keeps the line breaks of <pre>', () => {
    assert.equal(html('<p>a\nb</p><pre>line 1\nline 2</pre>').text, 'a b\nline 1\nline 2');
  });

  it('reads the language from <html lang>', () => {
    assert.equal(html('<html lang="de-CH"><p>Grüezi</p></html>').language, 'de-CH');
    assert.equal(html('<p>none</p>').language, undefined);
  });
});

describe('HTML filter: meta tags', () => {
  it('stores <meta name> and <meta property> as <lower-case name>, values in order', () => {
    const doc = html(
      '<head><meta name="Description" content="First  description"><meta name="keywords" content="a, b">' +
        '<meta property="og:Title" content="OG title"><meta name="DESCRIPTION" content="second">' +
        '<meta name="empty" content=""><meta charset="utf-8"></head>',
    );
    assert.deepEqual(doc.metadata, {
      '<description>': ['First description', 'second'],
      '<keywords>': ['a, b'],
      '<og:title>': ['OG title'],
    });
  });
});

describe('HTML filter: text of mapped elements (metamap.cfg <h1> sources)', () => {
  const elements = (s: string, names: string[]) =>
    runFilters(s, 'text/html', { htmlElements: new Set(names) }).elements;

  it('gives one value per element, in document order, with the visible text of its children', () => {
    const page =
      '<title> The  page </title><h1>Main <em>title</em></h1><p>intro</p>' +
      '<h2>First<br>part</h2><h2>  </h2><h2>Second <script>x()</script>part</h2>';
    assert.deepEqual(elements(page, ['h1', 'h2', 'title', 'h3']), {
      h1: ['Main title'],
      h2: ['First part', 'Second part'],
      title: ['The page'],
    });
  });

  it('collects only the elements asked for, and none when none are asked for', () => {
    assert.deepEqual(elements('<h1>a</h1><h2>b</h2>', ['h2']), { h2: ['b'] });
    assert.equal(elements('<h1>a</h1>', []), undefined);
    assert.equal(elements('<p>no heading</p>', ['h1']), undefined);
  });

  it('an element inside one of the same name is part of the outer value', () => {
    assert.deepEqual(elements('<div>outer <div>inner</div> tail</div><div>next</div>', ['div']), {
      div: ['outer inner tail', 'next'],
    });
  });

  it(`keeps at most ${MAX_ELEMENT_VALUES} values a name, each cut at ${MAX_ELEMENT_CHARS} characters`, () => {
    const many = elements('<li>x</li>'.repeat(MAX_ELEMENT_VALUES + 10), ['li']);
    assert.equal(many?.li?.length, MAX_ELEMENT_VALUES);
    const long = elements(`<p>${'word '.repeat(5000)}</p>`, ['p']);
    assert.ok(long?.p?.[0] !== undefined && long.p[0].length <= MAX_ELEMENT_CHARS);
    assert.ok(long.p[0].startsWith('word word'));
  });
});

describe('HTML filter: links', () => {
  it('resolves relative links (../, ./) against the key and removes fragments', () => {
    const doc = html(
      '<a href="../c/d.html#part">up</a> <a href="./e.html">same dir</a> <a href="/root?q=1#x">root</a>',
    );
    assert.deepEqual(doc.links, [
      { href: 'http://example.com/a/c/d.html', text: 'up' },
      { href: 'http://example.com/a/b/e.html', text: 'same dir' },
      { href: 'http://example.com/root?q=1', text: 'root' },
    ]);
  });

  it('resolves against <base href> (itself relative to the key), also for links before it', () => {
    const doc = html(
      '<a href="early.html">early</a><head><base href="../base/"></head><a href="x.html">x</a><base href="http://ignored.org/">',
    );
    assert.deepEqual(
      doc.links.map((l) => l.href),
      ['http://example.com/a/base/early.html', 'http://example.com/a/base/x.html'],
    );
  });

  it('keeps http, https, ftp and local links; drops javascript:, mailto:, data: and same-page links', () => {
    const doc = html(
      '<a href="https://s.org/">s</a><a href="ftp://f.org/file">f</a><a href="local://docs/x">l</a>' +
        '<a href="javascript:alert(1)">js</a><a href=" JavaScript:void(0)">js2</a><a href="mailto:a@b.org">m</a>' +
        '<a href="data:text/html,x">d</a><a href="tel:123">t</a><a href="#top">top</a><a href="">self</a>' +
        '<a href="page.html#x">self again</a><a>no href</a><a href="http://[bad">bad url</a>',
    );
    assert.deepEqual(
      doc.links.map((l) => l.href),
      ['https://s.org/', 'ftp://f.org/file', 'local://docs/x'],
    );
  });

  it('resolves relative links of a document whose key has a local scheme', () => {
    const doc = html('<a href="../other.html">o</a>', 'local://intranet/docs/page.html');
    assert.deepEqual(doc.links, [{ href: 'local://intranet/other.html', text: 'o' }]);
  });

  it('takes the link text with the alt text of images inside the link', () => {
    const doc = html(
      '<a href="/x"> Read <b>more</b><img src="i.png" alt="about fish"></a><img alt="outside">',
    );
    assert.deepEqual(doc.links, [{ href: 'http://example.com/x', text: 'Read more about fish' }]);
  });

  it('ends an open link when the next one starts', () => {
    const doc = html('<a href="/one">first <a href="/two">second</a> after');
    assert.deepEqual(doc.links, [
      { href: 'http://example.com/one', text: 'first' },
      { href: 'http://example.com/two', text: 'second' },
    ]);
  });

  it(`keeps at most ${MAX_LINKS} links`, () => {
    const doc = html(
      '<a href="javascript:x">j</a>'.repeat(5000) + '<a href="/p?i=N">n</a>'.repeat(MAX_LINKS + 50),
    );
    assert.equal(doc.links.length, MAX_LINKS);
    assert.equal(doc.links[0].href, 'http://example.com/p?i=N');
  });
});

describe('HTML filter: broken HTML', () => {
  it('reads unclosed tags, stray end tags and bad nesting as a browser would, without throwing', () => {
    const doc = html('<html><body><div><p>one<p>two</span></div></b><i>three<div>four</i>five');
    assert.deepEqual(doc.text.split(/\s+/), ['one', 'two', 'three', 'four', 'five']);
  });

  it('survives an unterminated comment, attribute or tag at the end', () => {
    assert.equal(html('<p>kept</p><!-- never closed <p>lost').text, 'kept');
    assert.equal(html('<p>kept</p><a href="x').text, 'kept');
    assert.equal(html('<p>kept</p><').text, 'kept\n<');
  });

  it('treats a lone "<" and "&" in text as text', () => {
    assert.equal(html('<p>1 < 2 & 3 > 2 &zzz; &amp</p>').text, '1 < 2 & 3 > 2 &zzz; &');
  });

  it('handles very deep nesting (200,000 unclosed <div>s) and many stray end tags', () => {
    const doc = html('<div>x'.repeat(200_000) + '</span>'.repeat(200_000) + '<title>T</title>');
    assert.equal(doc.title, 'T');
    assert.equal(doc.text.split('\n').length, 200_000);
  });

  it('never treats attribute names from the document as object internals', () => {
    const doc = html(
      '<meta __proto__="x" name="constructor" content="c"><a href="/y" __proto__="z" constructor="w">y</a>',
    );
    assert.deepEqual(doc.metadata, { '<constructor>': ['c'] });
    assert.deepEqual(doc.links, [{ href: 'http://example.com/y', text: 'y' }]);
  });
});
