import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { SearchError } from '../../src/errors.js';
import { runFilterChain } from '../../src/collection/filters/filter-chain.js';
import {
  MAX_ELEMENT_CHARS,
  MAX_ELEMENT_VALUES,
  MAX_LINKS,
  type FilteredDocument,
} from '../../src/collection/filters/filtered-document.js';
import type { XmlConfigLike } from '../../src/collection/filters/xml-config-like.js';
import { anyCodePoint } from '../support/code-point-unit.js';

const CONTENT_TYPES = [
  'text/html',
  'application/xhtml+xml',
  'application/xml',
  'text/xml',
  'application/rss+xml',
  'application/json',
  'text/plain',
  'text/csv',
  '',
  'application/octet-stream',
  'image/png',
  'text/html; charset=latin1',
  'text/plain; charset=utf-16le',
  'text/plain; charset=windows-1252',
  'application/xml; charset=utf-8',
  'application/json; charset=unknown-charset',
  ';;;',
  'text/html; charset="',
];

const XML_CONFIG: XmlConfigLike = {
  mappings: [
    { className: 'a', type: 0, xpath: '//a' },
    { className: 'b', type: 1, xpath: '/a/b/@id' },
    { className: 'c', type: 0, xpath: '/a//c' },
  ],
  docUrlXpath: '//url',
};

/** Fragments that take the parsers down their rarer paths when strung together. */
const FRAGMENTS = [
  '<?xml version="1.0"?>',
  '<?xml version="1.0" encoding="latin1"?>',
  '<!DOCTYPE a [<!ENTITY e "x">]>',
  '<!DOCTYPE html>',
  '<a>',
  '</a>',
  '<b id="1">',
  '</b>',
  '<c/>',
  '<url>',
  '</url>',
  '<title>',
  '</title>',
  '<script>',
  '</script>',
  '<style>',
  '<svg>',
  '</svg>',
  '<a href="',
  '../x#y',
  'javascript:',
  '">',
  '<base href="/z/">',
  '<meta name="N" content="v">',
  '<img alt="i">',
  '<pre>',
  '<!--',
  '-->',
  '<![CDATA[',
  ']]>',
  '&amp;',
  '&#x1F600;',
  '&#99999999;',
  '&lol;',
  '&',
  '<',
  '>',
  '"',
  "'",
  '=',
  '{',
  '}',
  '[',
  ']',
  ':',
  ',',
  '"k"',
  '"v"',
  '1',
  'true',
  'null',
  '"title"',
  '\\',
  '\\u00e9',
  ' ',
  '\n',
  '\r\n',
  '\t',
  'word',
  'é',
  '✓',
  '\u0000',
  '\uFEFF',
  '\uD800',
];

const fragments = fc.array(fc.constantFrom(...FRAGMENTS), { maxLength: 60 }).map((parts) => parts.join(''));
const encode = (s: string) => new TextEncoder().encode(s);
const content = fc.oneof(
  fc.uint8Array({ maxLength: 300 }),
  fragments.map(encode),
  // Mostly well-formed starts, so that the XML and JSON parsers get past their first bytes.
  fragments.map((s) => encode(`<?xml version="1.0"?><a><b id="7">${s}</b><url>u</url></a>`)),
  fragments.map((s) => encode(`{"title": "t", "k": [${s}]}`)),
  fc.string({ unit: anyCodePoint, maxLength: 200 }).map(encode),
  fc.json({ maxDepth: 4 }).map(encode),
  wellFormedXml().map((xml) => encode(`<?xml version="1.0"?>${xml}`)),
);

/** Well-formed XML with the names the xml.cfg above uses, and text that needs escaping. */
function wellFormedXml(): fc.Arbitrary<string> {
  const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;');
  const text = fc.string({ unit: 'grapheme', maxLength: 12 }).map(escape);
  const { element } = fc.letrec<{ element: string; node: string }>((tie) => ({
    element: fc
      .tuple(
        fc.constantFrom('a', 'b', 'c', 'url', 'd:e'),
        fc.option(text),
        fc.array(tie('node'), { maxLength: 4 }),
      )
      .map(
        ([name, id, children]) =>
          `<${name}${id === null ? '' : ` id="${id}"`}>${children.join('')}</${name}>`,
      ),
    node: fc.oneof({ depthSize: 'small', withCrossShrink: true }, text, tie('element')),
  }));
  return element;
}

const chain = fc.constantFrom(
  undefined,
  'Auto',
  'Html',
  'Xml',
  'Json',
  'PlainText',
  'Html,PlainText',
  'Html:Json',
  'text:auto',
);

function assertWellFormed(doc: FilteredDocument): void {
  assert.equal(typeof doc.text, 'string');
  if (doc.title !== undefined) assert.equal(typeof doc.title, 'string');
  for (const [name, values] of Object.entries(doc.metadata)) {
    assert.ok(Array.isArray(values) && values.length > 0, name);
    for (const v of values) assert.equal(typeof v, 'string');
  }
  for (const [name, values] of Object.entries(doc.elements ?? {})) {
    assert.ok(values.length > 0 && values.length <= MAX_ELEMENT_VALUES, name);
    for (const v of values) assert.ok(v.length > 0 && v.length <= MAX_ELEMENT_CHARS && v.trim() === v, name);
  }
  assert.ok(doc.links.length <= MAX_LINKS);
  for (const link of doc.links) {
    const url = new URL(link.href);
    assert.equal(url.hash, '');
    assert.ok(!['javascript:', 'mailto:', 'data:'].includes(url.protocol), link.href);
    assert.equal(typeof link.text, 'string');
  }
}

describe('filters on arbitrary input', () => {
  it('any bytes, any content type, any chain: a well-formed document or a SearchError, nothing else', () => {
    fc.assert(
      fc.property(content, fc.constantFrom(...CONTENT_TYPES), chain, (bytes, contentType, filters) => {
        let doc: FilteredDocument;
        try {
          doc = runFilterChain(
            { key: 'http://example.com/d/e.html', content: bytes, contentType, metadata: {} },
            filters,
            { xmlConfig: XML_CONFIG, htmlElements: new Set(['h1', 'div', 'title', 'p']) },
          );
        } catch (e) {
          assert.ok(e instanceof SearchError, `not a SearchError: ${String(e)}`);
          assert.equal(e.code, 'FILTER_FAILED', e.message);
          // Only errors a filter means to throw, not the chain's safety net for the unforeseen.
          assert.notEqual(e.details?.unexpected, true, e.message);
          assert.ok(e.message.length > 0);
          return;
        }
        assertWellFormed(doc);
      }),
      { numRuns: 3000 },
    );
  });

  it('the HTML and plain text filters never fail on content, whatever the bytes', () => {
    fc.assert(
      fc.property(
        content,
        fc.constantFrom(
          'text/html',
          'text/plain',
          'application/octet-stream',
          'text/html; charset=windows-1252',
        ),
        fc.constantFrom(undefined, 'Html', 'PlainText', 'Html,Html'),
        (bytes, contentType, filters) => {
          const doc = runFilterChain(
            { key: 'http://example.com/', content: bytes, contentType, metadata: {} },
            filters,
          );
          assertWellFormed(doc);
        },
      ),
      { numRuns: 2000 },
    );
  });
});
