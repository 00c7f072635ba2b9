import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { canonicalizeKey, MAX_KEY_LENGTH, removeDotSegments } from '../../src/collection/key.js';
import { SearchError, isSearchError } from '../../src/errors.js';

function rejects(raw: string | undefined, code: string, messagePart?: RegExp): void {
  assert.throws(
    () => canonicalizeKey(raw),
    (e: unknown) => {
      assert.ok(e instanceof SearchError, `expected SearchError, got ${String(e)}`);
      assert.equal(e.code, code, e.message);
      if (messagePart !== undefined) assert.match(e.message, messagePart);
      return true;
    },
  );
}

describe('canonicalizeKey: the spec rules', () => {
  it('appends / to a URI with an authority and no path', () => {
    assert.equal(canonicalizeKey('http://a.com'), 'http://a.com/');
    assert.equal(canonicalizeKey('https://a.com:8443'), 'https://a.com:8443/');
    assert.equal(canonicalizeKey('http://a.com?q=1'), 'http://a.com/?q=1');
    assert.equal(canonicalizeKey('http://a.com#top'), 'http://a.com/');
    assert.equal(canonicalizeKey('file://'), 'file:///');
  });

  it('removes the fragment, also a lone #', () => {
    assert.equal(canonicalizeKey('http://a.com/page#section-2'), 'http://a.com/page');
    assert.equal(canonicalizeKey('http://a.com/page#'), 'http://a.com/page');
    assert.equal(canonicalizeKey('http://a.com/page?x=1#f'), 'http://a.com/page?x=1');
    assert.equal(canonicalizeKey('local:doc-1#part'), 'local:doc-1');
    assert.equal(canonicalizeKey('http://a.com/p#?not-a-query'), 'http://a.com/p');
  });

  it('resolves . and .. segments', () => {
    assert.equal(canonicalizeKey('http://a.com/a/b/c/./../../g'), 'http://a.com/a/g');
    assert.equal(canonicalizeKey('http://a.com/a/./b/'), 'http://a.com/a/b/');
    assert.equal(canonicalizeKey('http://a.com/a/b/..'), 'http://a.com/a/');
    assert.equal(canonicalizeKey('http://a.com/a/b/.'), 'http://a.com/a/b/');
    assert.equal(canonicalizeKey('http://a.com/a/..?x=../y'), 'http://a.com/?x=../y');
  });

  it('keeps .. that climbs past the root at the root', () => {
    assert.equal(canonicalizeKey('http://a.com/../../../etc/passwd'), 'http://a.com/etc/passwd');
    assert.equal(canonicalizeKey('http://a.com/a/../../..'), 'http://a.com/');
    assert.equal(canonicalizeKey('http://a.com/..'), 'http://a.com/');
    assert.equal(canonicalizeKey('file:/../x'), 'file:/x');
  });

  it('treats percent-encoded dots as ordinary text, and keeps all percent-encoding as sent', () => {
    assert.equal(canonicalizeKey('http://a.com/a/%2e%2e/b'), 'http://a.com/a/%2e%2e/b');
    assert.equal(canonicalizeKey('http://a.com/a/%2E%2E/b'), 'http://a.com/a/%2E%2E/b');
    assert.equal(canonicalizeKey('http://a.com/a/.%2e/b'), 'http://a.com/a/.%2e/b');
    assert.equal(canonicalizeKey('http://a.com/%7euser/%41'), 'http://a.com/%7euser/%41');
    assert.equal(canonicalizeKey('http://a.com/x?q=a%20b%2Bc'), 'http://a.com/x?q=a%20b%2Bc');
  });

  it('lower-cases scheme and host, and nothing else', () => {
    assert.equal(
      canonicalizeKey('HTTP://WWW.Example.COM/Path/File.HTML?Q=Yes'),
      'http://www.example.com/Path/File.HTML?Q=Yes',
    );
    assert.equal(canonicalizeKey('Http://User:PassWord@Host.com/'), 'http://User:PassWord@host.com/');
    assert.equal(canonicalizeKey('LOCAL:Doc-ONE'), 'local:Doc-ONE');
    // percent-triplets in the host keep their case
    assert.equal(canonicalizeKey('http://A%C3%BC.com/'), 'http://a%C3%BC.com/');
  });

  it('keeps the port and an empty query as sent', () => {
    assert.equal(canonicalizeKey('http://a.com:80/x'), 'http://a.com:80/x');
    assert.equal(canonicalizeKey('http://a.com/x?'), 'http://a.com/x?');
  });

  it('accepts any RFC 3986 scheme', () => {
    assert.equal(canonicalizeKey('ftp://files.example.org/pub/a.txt'), 'ftp://files.example.org/pub/a.txt');
    assert.equal(canonicalizeKey('local:doc-1'), 'local:doc-1');
    assert.equal(canonicalizeKey('x-my.scheme+v2://thing/1'), 'x-my.scheme+v2://thing/1');
    assert.equal(canonicalizeKey('file:///C:/docs/../a.txt'), 'file:///C:/a.txt');
  });
});

describe('canonicalizeKey: URIs without an authority', () => {
  it('keeps mailto: and urn: keys as sent (no / appended)', () => {
    assert.equal(canonicalizeKey('mailto:Someone@Example.com'), 'mailto:Someone@Example.com');
    assert.equal(canonicalizeKey('urn:isbn:0451450523'), 'urn:isbn:0451450523');
    assert.equal(canonicalizeKey('URN:ISBN:0451450523'), 'urn:ISBN:0451450523');
  });

  it('keeps opaque paths as sent, dots included', () => {
    assert.equal(canonicalizeKey('local:abc'), 'local:abc');
    assert.equal(canonicalizeKey('local:a/../b'), 'local:a/../b');
    assert.equal(canonicalizeKey('local:abc?v=2'), 'local:abc?v=2');
  });

  it('resolves dots of an absolute path without authority, and never lets it read as one', () => {
    assert.equal(canonicalizeKey('file:/a/./b/../c'), 'file:/a/c');
    assert.equal(canonicalizeKey('file:/.//etc'), 'file:/.//etc');
    assert.equal(canonicalizeKey(canonicalizeKey('file:/.//etc')), 'file:/.//etc');
  });

  it('rejects a scheme with nothing after it', () => {
    rejects('local:', 'KEY_INVALID', /nothing follows "local:"/);
    rejects('local:?x=1', 'KEY_INVALID', /nothing follows/);
    rejects('local:#frag', 'KEY_INVALID', /nothing follows/);
  });

  it('requires a host for web schemes', () => {
    rejects('http:/path', 'KEY_INVALID', /need a host/);
    rejects('https:example.com', 'KEY_INVALID', /need a host/);
    rejects('http:///path', 'KEY_INVALID', /need a host/);
    rejects('http://:80/', 'KEY_INVALID', /need a host/);
  });
});

describe('canonicalizeKey: hosts', () => {
  it('keeps unicode hosts and paths as sent (IRI), lower-casing the host', () => {
    assert.equal(canonicalizeKey('http://BÜCHER.de/Straße'), 'http://bücher.de/Straße');
    assert.equal(canonicalizeKey('https://例え.テスト/パス?q=値'), 'https://例え.テスト/パス?q=値');
    assert.equal(canonicalizeKey('http://a.com/😀'), 'http://a.com/😀');
  });

  it('accepts IPv6 literals and lower-cases them', () => {
    assert.equal(canonicalizeKey('http://[::1]/'), 'http://[::1]/');
    assert.equal(canonicalizeKey('http://[2001:DB8::A]:8080'), 'http://[2001:db8::a]:8080/');
    assert.equal(canonicalizeKey('http://[fe80::1%25en0]/'), 'http://[fe80::1%25en0]/');
    rejects('http://[not-ipv6]/', 'KEY_INVALID', /not an IPv6 address/);
    rejects('http://[::1/', 'KEY_INVALID', /not closed/);
    rejects('http://[::1]x/', 'KEY_INVALID', /after the "\]"/);
  });

  it('rejects a bad port and a second @', () => {
    rejects('http://a.com:8o/', 'KEY_INVALID', /port "8o" is not a number/);
    rejects('http://u@v@a.com/', 'KEY_INVALID', /second "@"/);
  });
});

describe('canonicalizeKey: invalid keys', () => {
  it('says KEY_MISSING for nothing', () => {
    rejects(undefined, 'KEY_MISSING', /key query parameter/);
    rejects('', 'KEY_MISSING');
  });

  it('says there is no scheme', () => {
    rejects('example.com/page', 'KEY_INVALID', /no scheme/);
    rejects('/relative/path', 'KEY_INVALID', /no scheme/);
    rejects('#', 'KEY_INVALID', /no scheme/);
    rejects('//a.com/x', 'KEY_INVALID', /no scheme/);
    rejects('1http://a.com/', 'KEY_INVALID', /"1http" is not a scheme/);
    rejects('localhost:8080/page', 'KEY_INVALID', /looks like host:port/);
    rejects('www.example.com:80', 'KEY_INVALID', /looks like host:port/);
  });

  it('refuses javascript:, vbscript: and data: keys in any case', () => {
    rejects('javascript:alert(1)', 'KEY_INVALID', /javascript: is not allowed/);
    rejects('JavaScript:alert(1)', 'KEY_INVALID', /javascript: is not allowed/);
    rejects('vbscript:msgbox', 'KEY_INVALID', /vbscript/);
    rejects('data:text/plain,hello', 'KEY_INVALID', /data: is not allowed/);
  });

  it('names whitespace and says how to encode it', () => {
    rejects(
      'http://a.com/a b',
      'KEY_INVALID',
      /whitespace \(a space, U\+0020\) at position 15; percent-encode it as %20/,
    );
    rejects(' http://a.com/', 'KEY_INVALID', /whitespace/);
    rejects('http://a.com/\t', 'KEY_INVALID', /a tab/);
    rejects('http://a.com/x\n', 'KEY_INVALID', /a line break/);
    rejects('http://a.com/\u00a0', 'KEY_INVALID', /whitespace.*%C2%A0/);
    rejects('http://a.com/\u3000', 'KEY_INVALID', /whitespace/);
  });

  it('names control characters', () => {
    rejects('http://a.com/\u0000', 'KEY_INVALID', /control character/);
    rejects('http://a.com/\u007f', 'KEY_INVALID', /control character/);
    rejects('http://a.com/\u0085', 'KEY_INVALID', /control character/);
  });

  it('names characters that must be percent-encoded', () => {
    for (const [ch, enc] of [
      ['|', '%7C'],
      ['"', '%22'],
      ['<', '%3C'],
      ['>', '%3E'],
      ['\\', '%5C'],
      ['^', '%5E'],
      ['`', '%60'],
      ['{', '%7B'],
      ['}', '%7D'],
    ]) {
      rejects(`http://a.com/x${ch}y`, 'KEY_INVALID', new RegExp(`percent-encode it as ${enc}`));
    }
    rejects('http://a.com/?a[]=1', 'KEY_INVALID', /"\[" outside an IPv6 host.*%5B/);
    rejects('http://a.com/#a#b', 'KEY_INVALID', /second "#"/);
    rejects('http://a.com/100%', 'KEY_INVALID', /percent-encoding.*%25/);
    rejects('http://a.com/%zz', 'KEY_INVALID', /percent-encoding/);
    rejects('C:\\docs\\a.txt', 'KEY_INVALID', /"\\"/);
  });

  it('refuses invisible and broken Unicode', () => {
    rejects('http://a.com/\u202Eevil', 'KEY_INVALID', /bidirectional/);
    rejects('http://a.com/\ufeff', 'KEY_INVALID', /whitespace/);
    rejects('http://a.com/\uffff', 'KEY_INVALID', /noncharacter/);
    rejects('http://a.com/\ud800x', 'KEY_INVALID', /unpaired surrogate/);
    rejects('http://a.com/\udc00', 'KEY_INVALID', /unpaired surrogate/);
  });

  it('validates the fragment before dropping it', () => {
    rejects('http://a.com/p#a b', 'KEY_INVALID', /whitespace/);
  });
});

describe('canonicalizeKey: length', () => {
  const base = 'http://a.com/';
  const ofLength = (n: number): string => base + 'x'.repeat(n - base.length);

  it('accepts 2000 characters and refuses 2001', () => {
    assert.equal(canonicalizeKey(ofLength(2000)).length, 2000);
    rejects(ofLength(2001), 'KEY_TOO_LONG', /2001 characters.*at most 2000/);
    assert.equal(MAX_KEY_LENGTH, 2000);
  });

  it('counts the canonical key: a removed fragment or resolved dots do not count', () => {
    const withFragment = ofLength(2000) + '#' + 'f'.repeat(500);
    assert.equal(canonicalizeKey(withFragment).length, 2000);
    const withDots = base + 'a/../'.repeat(100) + 'x'.repeat(2000 - base.length);
    assert.equal(canonicalizeKey(withDots).length, 2000);
    // and growth counts too: "http://a.com" + 1988 query chars is 2000 raw, 2001 canonical
    rejects('http://a.com?' + 'q'.repeat(1987), 'KEY_TOO_LONG');
  });

  it('refuses absurdly long input before parsing it', () => {
    rejects(base + 'x'.repeat(100000), 'KEY_TOO_LONG');
  });
});

describe('removeDotSegments', () => {
  it('follows the RFC 3986 5.2.4 examples', () => {
    assert.equal(removeDotSegments('/a/b/c/./../../g'), '/a/g');
    assert.equal(removeDotSegments('/./a'), '/a');
    assert.equal(removeDotSegments('/a//../b'), '/a/b');
    assert.equal(removeDotSegments('/'), '/');
    assert.equal(removeDotSegments('/..'), '/');
    assert.equal(removeDotSegments('/a/...'), '/a/...');
  });
});

describe('canonicalizeKey: properties', () => {
  const segment = fc.constantFrom('a', 'B', '.', '..', '', '%2e', 'x.y', '~u', 'ü');
  const path = fc.array(segment, { maxLength: 12 }).map((s) => (s.length === 0 ? '' : '/' + s.join('/')));
  const key = fc
    .record({
      scheme: fc.constantFrom('http', 'HTTPS', 'ftp', 'file', 'Local'),
      host: fc.constantFrom('a.com', 'Example.ORG', 'bücher.de', '[::1]', 'h:8080'),
      path,
      query: fc.constantFrom('', '?', '?q=1', '?x=/../y'),
      fragment: fc.constantFrom('', '#', '#frag', '#/../x'),
    })
    .map(({ scheme, host, path: p, query, fragment }) => `${scheme}://${host}${p}${query}${fragment}`);

  it('is idempotent, drops fragments and keeps the path absolute', () => {
    fc.assert(
      fc.property(key, (raw) => {
        const once = canonicalizeKey(raw);
        assert.equal(canonicalizeKey(once), once);
        assert.ok(!once.includes('#'));
        assert.match(once, /^[a-z]+:\/\/[^/?#]*\//);
        const pathPart = once.replace(/^[a-z]+:\/\/[^/?#]*/, '').replace(/\?.*$/, '');
        assert.ok(!pathPart.split('/').some((s) => s === '.' || s === '..'), once);
      }),
      { numRuns: 2000 },
    );
  });

  it('resolves dot segments like the WHATWG URL parser on plain paths', () => {
    const plain = fc
      .array(fc.constantFrom('a', 'b', '.', '..', ''), { maxLength: 12 })
      .map((s) => '/' + s.join('/'));
    fc.assert(
      fc.property(plain, (p) => {
        const ours = canonicalizeKey('http://a.com' + p).slice('http://a.com'.length);
        assert.equal(ours, new URL('http://a.com' + p).pathname, p);
      }),
      { numRuns: 2000 },
    );
  });

  // URI syntax characters often, any code point (lone surrogates included) sometimes.
  const anyChar = fc.oneof(
    fc.constantFrom(
      '/',
      '.',
      '..',
      '#',
      '?',
      '%',
      '%2',
      '%41',
      '[',
      ']',
      '@',
      ':',
      ' ',
      '|',
      '\u0000',
      'ü',
      '😀',
    ),
    fc.integer({ min: 0, max: 0x10ffff }).map((cp) => String.fromCodePoint(cp)),
  );

  it('either returns a key of at most 2000 characters or throws a SearchError', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 60, unit: anyChar }), fc.nat(2100), (text, pad) => {
        try {
          const k = canonicalizeKey('http://a.com/' + 'p'.repeat(pad) + text);
          assert.ok(k.length <= 2000);
        } catch (e) {
          assert.ok(isSearchError(e));
          assert.ok(['KEY_INVALID', 'KEY_TOO_LONG'].includes(e.code));
        }
      }),
      { numRuns: 1000 },
    );
  });
});
