import assert from 'node:assert/strict';
import { createHmac, randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import {
  clickTrackingUrl,
  ClickTrackingUrls,
  formEncode,
  signUrl,
} from '../../src/search/click-tracking-url.js';

/** Values that exercise every class of character the form encoding treats differently. */
const AWKWARD = [
  '',
  'plain',
  'two words',
  "!'()~*-._",
  'a+b=c&d#e%f/g?h;i:j@k,l$m',
  'https://example.com/a b/ü?q=1&r=two words#frag',
  'ünïcödé 日本語 🔍',
  '\u0000\t\n\r\u007f',
  'lone \ud800 high and \udc00 low surrogates',
  '"quoted" <tag> [brackets] {braces} |pipe| \\back\\ `tick` ^caret',
];

/** A random string over a mix of ASCII, BMP, astral and lone-surrogate code units. */
function randomText(length: number): string {
  let text = '';
  for (let i = 0; i < length; i++) {
    const pick = Math.random();
    if (pick < 0.6) text += String.fromCharCode(0x20 + Math.floor(Math.random() * 95));
    else if (pick < 0.8) text += String.fromCharCode(Math.floor(Math.random() * 0x2000));
    else if (pick < 0.95) text += String.fromCodePoint(0x10000 + Math.floor(Math.random() * 0x1000));
    else text += String.fromCharCode(0xd800 + Math.floor(Math.random() * 0x800));
  }
  return text;
}

describe('click-tracking URLs', () => {
  it('formEncode writes what URLSearchParams writes', () => {
    const values = [
      ...AWKWARD,
      ...Array.from({ length: 2000 }, () => randomText(1 + Math.floor(Math.random() * 40))),
    ];
    for (const value of values) {
      const expected = new URLSearchParams([['v', value]]).toString().slice(2);
      assert.equal(formEncode(value), expected, JSON.stringify(value));
    }
  });

  it('answers the URL clickTrackingUrl builds, for every collection, URL, rank and query', () => {
    const secret = randomBytes(32);
    const urls = new ClickTrackingUrls(secret);
    let rank = 1;
    // The same URL several times (from the cache), in queries and collections that alternate.
    for (let round = 0; round < 3; round++)
      for (const collection of ['docs', 'my.collection~2'])
        for (const query of AWKWARD)
          for (const url of AWKWARD) {
            assert.equal(
              urls.url(collection, url, rank, query),
              clickTrackingUrl(secret, collection, url, rank, query),
              JSON.stringify({ collection, url, query }),
            );
            rank = (rank % 1000) + 1;
          }
  });

  it('signs with the HMAC of the URL under its own secret, also once the cache has turned over', () => {
    const secret = randomBytes(32);
    const other = new ClickTrackingUrls(randomBytes(32));
    const urls = new ClickTrackingUrls(secret);
    const fresh = (url: string) => createHmac('sha256', secret).update(url).digest('base64url').slice(0, 32);
    const first = 'https://example.com/first';
    assert.equal(urls.signature(first), fresh(first));
    assert.equal(urls.signature(first), signUrl(secret, first));
    assert.notEqual(other.signature(first), urls.signature(first));
    // More URLs than the cache holds: the first is evicted, then signed again alike.
    for (let i = 0; i < 20_000; i++) urls.signature(`https://example.com/page/${i}`);
    assert.equal(urls.signature(first), fresh(first));
    assert.equal(urls.signature('https://example.com/page/19999'), fresh('https://example.com/page/19999'));
    assert.equal(urls.signature('https://example.com/page/0'), fresh('https://example.com/page/0'));
  });
});
