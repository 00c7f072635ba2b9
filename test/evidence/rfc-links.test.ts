import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pageToHtml } from '../../bench/rfc-evidence.js';
import { runFilterChain } from '../../src/collection/filters/filter-chain.js';

// The RFC benchmark's cross references, read back through the HTML filter as the collection would.

function linksOf(text: string, rfc = 1000, contextWords = 2): { href: string; text: string }[] {
  const page = {
    key: `https://rfc.example.org/rfc${rfc}/page-3`,
    rfc,
    page: 3,
    title: `RFC ${rfc}: Test`,
    text,
  };
  const { html } = pageToHtml(page, contextWords);
  const filtered = runFilterChain(
    { key: page.key, content: Buffer.from(html), contentType: 'text/html', metadata: {} },
    undefined,
  );
  return filtered.links.map((l) => ({ href: l.href, text: l.text }));
}

describe('RFC cross references as links', () => {
  it('links every form of reference to the first page of the cited RFC, with the words around it', () => {
    assert.deepEqual(linksOf('as the Transmission Control Protocol [RFC793] says, and'), [
      { href: 'https://rfc.example.org/rfc793/page-1', text: 'Control Protocol [RFC793] says, and' },
    ]);
    assert.deepEqual(
      linksOf('see RFC 2616 and RFC-959 <here> & there').map((l) => l.href),
      ['https://rfc.example.org/rfc2616/page-1', 'https://rfc.example.org/rfc959/page-1'],
    );
  });

  it("cuts the context where the next reference starts, and leaves references to the page's own RFC as text", () => {
    const links = linksOf('one two RFC 1 RFC 2 three four, this RFC 1000 itself');
    assert.deepEqual(links, [
      { href: 'https://rfc.example.org/rfc1/page-1', text: 'one two RFC 1' },
      { href: 'https://rfc.example.org/rfc2/page-1', text: 'RFC 2 three four,' },
    ]);
  });
});
