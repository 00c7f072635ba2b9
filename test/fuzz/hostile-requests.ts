/**
 * fast-check arbitraries of hostile HTTP requests against every route family of the server,
 * rendered to raw bytes (see `raw-http.ts`), so that what reaches the server is exactly what
 * was generated: odd paths and key encodings, invalid UTF-8 in headers, lying framing,
 * broken multipart bodies.
 *
 * The generators stay off three things that would be legitimate data loss rather than a
 * server fault, so that "everything acknowledged is still found" keeps meaning something:
 * no admin credentials on free-form paths (they could delete the collection `docs` or change
 * the canary's password), no restore of `docs` from a snapshot that exists, no upgrade
 * preparation by an administrator (it refuses writes until restart; its own test covers it).
 */
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { anyCodePoint } from '../support/code-point-unit.js';

/** Credentials a request carries. `pusher` may push to `docs` and `scratch`; `admin` may do anything. */
export type Auth = 'admin' | 'pusher' | 'none' | 'wrong-password' | 'garbage' | 'bogus-token';

/** How the body is framed on the wire. */
export type Framing =
  | 'length' // correct Content-Length
  | 'chunked' // valid chunked encoding, random chunk sizes
  | 'none' // no framing header and no body
  | 'huge-length' // Content-Length far above every limit, body sent short (must be refused, not awaited)
  | 'bad-length' // a Content-Length the HTTP parser must reject
  | 'bad-chunked'; // a chunked body with broken framing, yet terminated

/** One generated request. */
export interface HostileRequest {
  /** Route family, for failure messages. */
  family: string;
  method: string;
  /** Request target as bytes (latin1 string: one character per byte). */
  target: string;
  /** Header lines, latin1 strings (byte per character). */
  headers: [string, string][];
  body: Uint8Array;
  framing: Framing;
  auth: Auth;
  /**
   * The answer a limit must give (family `limits`): its status and stable code. Checked when
   * the request is otherwise valid; other answers only need the general properties.
   */
  expect?: { status: number; code: string };
}

/** Collection names of the fuzz server. `docs` holds the data that must survive. */
export const DOCS = 'docs';
export const SCRATCH = 'scratch';
/** Snapshot names the fuzz may create on `docs`; restore of `docs` never uses them. */
const DOCS_SNAPSHOTS = ['fz-a', 'fz-b', 'fz-c'];
/** Snapshot names restore of `docs` uses: never created there. */
const MISSING_SNAPSHOTS = ['never-made', 'gone', '..', '%2e%2e', 'a%2Fb', '%00', 'x'.repeat(300), '', 'ÿ'];

// ---------------------------------------------------------------------------------------
// Building blocks

/** Usually absent (undefined), sometimes a value: `absentWeight` to 1. */
function rarely<T>(arbitrary: fc.Arbitrary<T>, absentWeight: number): fc.Arbitrary<T | undefined> {
  return mostly(fc.constant(undefined), arbitrary, absentWeight);
}

/**
 * Mostly the sane value, sometimes a hostile one: with every dimension of a request hostile
 * at once, almost nothing would get past the first check, and the code behind it would go
 * untested.
 */
function mostly<T>(sane: fc.Arbitrary<T>, hostile: fc.Arbitrary<T>, saneWeight = 6): fc.Arbitrary<T> {
  return fc.oneof({ weight: saneWeight, arbitrary: sane }, { weight: 1, arbitrary: hostile });
}

/** Text as UTF-8 bytes in a latin1 string (how a raw socket client puts non-ASCII on the wire). */
export function utf8Bytes(text: string): string {
  return Buffer.from(text, 'utf8').toString('latin1');
}

/** Percent-encodes every byte of the UTF-8 form that is not unreserved (lone surrogates become invalid UTF-8, on purpose). */
function percentEncode(text: string): string {
  let out = '';
  for (const char of text) {
    const code = char.codePointAt(0)!;
    if (/[A-Za-z0-9\-._~]/.test(char)) out += char;
    else if (code >= 0xd800 && code <= 0xdfff)
      out += `%ED%${(0xa0 + ((code >> 6) & 0x1f)).toString(16).toUpperCase()}%${(0x80 + (code & 0x3f)).toString(16).toUpperCase()}`;
    else
      for (const byte of Buffer.from(char, 'utf8'))
        out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** A query parameter value on the wire: encoded properly, sent raw, double-encoded, or broken. */
const wireValue = (value: string): fc.Arbitrary<string> =>
  fc.constantFrom(
    percentEncode(value),
    percentEncode(value),
    percentEncode(value),
    utf8Bytes(value),
    percentEncode(percentEncode(value)),
    `${percentEncode(value)}%`,
    `${percentEncode(value)}%E2%82`,
    `%FF%FE${percentEncode(value)}`,
  );

const weirdText = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.string({ unit: anyCodePoint, maxLength: 20 }),
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    '\r\n',
    '\ud800',
    '\u202e',
    'ÿ',
    '../..',
    '%00',
    'NaN',
    '-1',
    '1e999',
    'null',
    '[]',
    '{}',
    '<script>',
  ),
);

const hugeNumber = fc.constantFrom(
  '0',
  '-1',
  '-0',
  '1.5',
  'NaN',
  'Infinity',
  '-Infinity',
  '1e999',
  '9007199254740993',
  '99999999999999999999999999',
  '0x10',
  '1_000',
  ' 7 ',
  '',
  'true',
  '10000',
  '10001',
  '1000',
  '1001',
  '2147483648',
  '%00',
  '１０',
);

/** A document key: plausible, pooled (so that replacements and deletes meet), or hostile. */
export const keyArb: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.webUrl({ withQueryParameters: true, withFragments: true }) },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      'https://fuzz.example/p1',
      'https://fuzz.example/p2',
      'local:p3',
      'https://FUZZ.example:443/p1#frag',
    ),
  },
  {
    weight: 3,
    arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }).map((s) => `https://fuzz.example/${s}`),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(2000, 2001, 4000, 70000).map((n) => `https://e.x/${'k'.repeat(n - 12)}`),
  },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      'fuzz.example/no-scheme',
      'localhost:8080/x',
      '/abs/path',
      '//host/p',
      'https:',
      'https://',
      'https://[::1',
      'https://e.x/a\u0000b',
      'https://e.x/a\tb',
      'https://e.x/a\nb',
      'https://e.x/\u007f',
      'https://e.x/\u202ertl',
      'https://e.x/a/../../../etc/passwd',
      'https://e.x/%2e%2e/%2e%2e/x',
      'file:///etc/passwd',
      'javascript:alert(1)',
      'data:text/html,x',
      'JAVASCRIPT:x',
      'https://e.x/a#b#c',
      'https://e.x/\ud800',
      'https://e.x/a b',
      'https://user:pw@e.x:99999/',
      'https://e.x:-1/',
      'mailto:a@b',
      'https://e.x/?a=[1]',
      '',
      ' ',
      'https://ex.ample/%ZZ',
      'HTTPS://E.X/./a/./b/../c',
    ),
  },
  { weight: 1, arbitrary: weirdText },
);

const collectionArb = mostly(
  fc.constantFrom(DOCS, DOCS, DOCS, SCRATCH),
  fc.constantFrom('nope', 'Docs', '..', '%2e%2e', 'docs%00', 'a%2Fb', 'x'.repeat(300), '%FF', 'd%6fcs', ''),
);
const versionArb = mostly(fc.constantFrom('v1', 'v2'), fc.constantFrom('v3', 'V1', '', 'v1/', '%76%31'), 10);
const pushAuthArb: fc.Arbitrary<Auth> = mostly(
  fc.constantFrom<Auth>('pusher', 'pusher', 'admin'),
  fc.constantFrom<Auth>('none', 'wrong-password', 'garbage', 'bogus-token'),
);

/** `?name=value&…` from parameter pairs; values already in wire form. */
function queryString(pairs: [string, string][]): string {
  return pairs.length === 0 ? '' : `?${pairs.map(([n, v]) => (v === '\u0001' ? n : `${n}=${v}`)).join('&')}`;
}

/** The key parameter: once, twice (an array), as `key[]`, empty, or missing. */
const keyParams: fc.Arbitrary<[string, string][]> = fc.oneof(
  { weight: 12, arbitrary: keyArb.map((k): [string, string][] => [['key', percentEncode(k)]]) },
  { weight: 3, arbitrary: keyArb.chain(wireValue).map((v): [string, string][] => [['key', v]]) },
  {
    weight: 1,
    arbitrary: fc.tuple(keyArb, keyArb).map(([a, b]): [string, string][] => [
      ['key', percentEncode(a)],
      ['key', percentEncode(b)],
    ]),
  },
  { weight: 1, arbitrary: keyArb.map((a): [string, string][] => [['key[]', percentEncode(a)]]) },
  {
    weight: 1,
    arbitrary: fc.constantFrom<[string, string][]>(
      [],
      [['key', '']],
      [['key', '\u0001']],
      [['KEY', 'https%3A%2F%2Fe.x%2F']],
    ),
  },
);

const extraParams: fc.Arbitrary<[string, string][]> = fc.array(
  fc.tuple(
    fc.constantFrom(
      'filters',
      'wait',
      'target',
      'vacuum-type',
      'x',
      '__proto__',
      'constructor',
      'a[b]',
      '%00',
      'key',
    ),
    fc.oneof(
      hugeNumber,
      weirdText.map(percentEncode),
      fc.constantFrom(
        'true',
        'false',
        'MERGE',
        'RE_INDEX',
        'merge',
        'JsonFilter',
        'HtmlFilter,XmlFilter',
        'NoSuchFilter',
        ',,,',
      ),
    ),
  ),
  { maxLength: 2 },
);

const contentTypeArb = mostly(
  fc.constantFrom(
    'text/plain',
    'text/html; charset=utf-8',
    'application/json',
    'application/xml',
    'application/octet-stream',
  ),
  fc.oneof(
    fc.constantFrom(
      'text/plain',
      'text/html; charset=utf-8',
      'application/json',
      'application/xml',
      'text/xml; charset=ISO-8859-1',
      'application/pdf',
      '',
      'garbage',
      'multipart/form-data',
      'text/plain; charset=ebcdic',
      'a/b; c="unterminated',
      '*/*',
      'text/plain;;;charset==',
      'application/x-www-form-urlencoded',
      `text/plain; ${'p=v;'.repeat(2000)}`,
      'text/html; charset=\u00ff\u00fe',
    ),
    fc.string({ maxLength: 40 }).map(utf8Bytes),
  ),
  3,
);

/** Metadata header names (both prefixes), odd ones included, with odd values (raw bytes allowed). */
const metadataHeaderArb: fc.Arbitrary<[string, string]> = mostly<[string, string, string]>(
  // Valid on the wire: token names, values of printable ASCII or UTF-8 bytes (obs-text).
  fc.tuple(
    fc.constantFrom('X-Service-Push-Metadata-', 'x-service-push-metadata-', 'X-Funnelback-Push-Meta-Data-'),
    fc.oneof(
      fc.constantFrom(
        'title',
        'Title',
        'author',
        'a.b-c_d',
        'X-Service-Push-Received-Time',
        '__proto__',
        'constructor',
        'n'.repeat(2000),
      ),
      fc.string({ unit: fc.constantFrom(..."abcXYZ019-_.!#$%&'*+^`|~"), minLength: 1, maxLength: 20 }),
    ),
    fc.oneof(
      fc.string({ maxLength: 30 }),
      fc.string({ unit: 'grapheme', maxLength: 20 }).map(utf8Bytes),
      fc.constantFrom(
        '\xff\xfe\xc3\x28',
        '\xed\xa0\x80',
        '=?utf-8?B?w6k=?=',
        ' padded ',
        '',
        'a, b, c',
        'v'.repeat(10_000),
      ),
    ),
  ),
  // Names and values the HTTP parser must refuse (non-token names, control bytes), or too large.
  fc.tuple(
    fc.constantFrom('X-Service-Push-Metadata-', 'X-Service-Push-Metadata'),
    fc.oneof(
      fc.constantFrom('', 'é', 'a b', 'a:b'),
      fc.string({ unit: 'grapheme', maxLength: 8 }).map(utf8Bytes),
    ),
    fc.oneof(
      weirdText.map(utf8Bytes),
      fc.uint8Array({ maxLength: 30 }).map((b) => Buffer.from(b).toString('latin1')),
      fc.constant('v'.repeat(70_000)),
    ),
  ),
  8,
).map(([prefix, name, value]) => [prefix + name, value]);

const bodyArb: fc.Arbitrary<Uint8Array> = fc.oneof(
  fc.uint8Array({ maxLength: 600 }),
  fc.string({ unit: 'grapheme', maxLength: 200 }).map((s) => Buffer.from(s)),
  fc
    .constantFrom(
      '<html><head><title>t</title><meta name="a" content="b"></head><body>fuzz body</body></html>',
      '<?xml version="1.0"?><!DOCTYPE a [<!ENTITY e SYSTEM "file:///etc/passwd">]><a>&e;</a>',
      '<?xml version="1.0"?><!DOCTYPE l [<!ENTITY l "ll"><!ENTITY l2 "&l;&l;&l;&l;&l;&l;&l;&l;"><!ENTITY l3 "&l2;&l2;&l2;&l2;&l2;&l2;&l2;&l2;">]><r>&l3;&l3;&l3;</r>',
      '{"a": [1, 2, {"b": null}], "title": "x"}',
      '{"a":',
      '[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[',
      '<html>'.repeat(3000),
      '',
      '\u0000\u0000\u0000',
    )
    .map((s) => Buffer.from(s)),
);

const framingArb: fc.Arbitrary<Framing> = mostly(
  fc.constantFrom<Framing>('length', 'length', 'length', 'chunked'),
  fc.constantFrom<Framing>('none', 'huge-length', 'bad-length', 'bad-chunked'),
);

const methodArb = fc.constantFrom(
  'GET',
  'PUT',
  'POST',
  'DELETE',
  'HEAD',
  'OPTIONS',
  'PATCH',
  'TRACE',
  'FOO',
  'get',
  'PROPFIND',
  'M-SEARCH',
);

function pushPath(version: string, collection: string, rest: string): string {
  return `/push-api/${version}/collections/${collection}${rest}`;
}

// ---------------------------------------------------------------------------------------
// Route families

const documentsPut = fc
  .record({
    version: versionArb,
    collection: collectionArb,
    method: mostly(fc.constant('PUT'), fc.constantFrom('POST', 'PATCH')),
    key: keyParams,
    extra: extraParams,
    contentType: fc.option(contentTypeArb, { nil: undefined }),
    metadata: fc.array(metadataHeaderArb, { maxLength: 3 }),
    body: bodyArb,
    framing: framingArb,
    auth: pushAuthArb,
  })
  .map((r): HostileRequest => ({
    family: 'documents PUT',
    method: r.method,
    target: pushPath(r.version, r.collection, `/documents${queryString([...r.key, ...r.extra])}`),
    headers: [
      ...(r.contentType === undefined ? [] : [['Content-Type', r.contentType] as [string, string]]),
      ...r.metadata,
    ],
    body: r.body,
    framing: r.framing,
    auth: r.auth,
  }));

/** A multipart body built right, then possibly broken: truncated, wrong boundary, garbage parts. */
const multipartArb = fc
  .record({
    boundary: fc.oneof(
      fc.constantFrom(
        'b1',
        'fuzz-boundary',
        '----WebKitFormBoundary7MA4YWxkTrZu0gW',
        'x'.repeat(71),
        'x'.repeat(5000),
        'a b',
        '"q"',
        '',
      ),
      fc.string({ unit: fc.constantFrom(..."abcXYZ0189'()+_,-./:=? "), minLength: 1, maxLength: 70 }),
    ),
    declared: mostly(fc.constantFrom('same', 'quoted'), fc.constantFrom('other', 'missing', 'empty')),
    subtype: mostly(
      fc.constantFrom('form-data', 'mixed'),
      fc.constantFrom('related', 'alternative', 'byteranges'),
    ),
    parts: fc.array(
      fc.record({
        name: mostly(
          fc.constantFrom('content', 'metadata'),
          fc.constantFrom('metdata', '', 'CONTENT', 'content"; filename="../../x', 'é'),
        ),
        disposition: mostly(fc.constant('form-data'), fc.constantFrom('attachment', 'inline', '')),
        contentType: fc.option(
          fc.constantFrom(
            'text/plain',
            'application/json',
            'text/html',
            'application/octet-stream',
            'garbage',
            'application/json; charset=latin1',
          ),
          { nil: undefined },
        ),
        body: fc.oneof(
          bodyArb,
          fc
            .dictionary(
              weirdText,
              fc.oneof(weirdText, fc.array(weirdText, { maxLength: 3 }), fc.integer(), fc.constant(null)),
              { maxKeys: 4 },
            )
            .map((d) => Buffer.from(JSON.stringify(d))),
          fc
            .constantFrom(
              '{"title": "t", "multi": ["a", "b\\nc"]}',
              '{"a": {"nested": 1}}',
              '[]',
              'null',
              '"s"',
              '{"x": "\\ud800"}',
              '{"__proto__": {"polluted": "yes"}}',
            )
            .map((s) => Buffer.from(s)),
          fc.constant(Buffer.from([0xff, 0xfe, 0x7b, 0xc3, 0x28, 0x7d])),
        ),
      }),
      { maxLength: 4 },
    ),
    damage: mostly(
      fc.constant('none'),
      fc.constantFrom('truncate', 'no-final', 'no-crlf', 'prefix-garbage', 'lf-only', 'double'),
      3,
    ),
    cut: fc.nat(),
  })
  .map((m) => {
    const chunks: Buffer[] = [];
    const crlf = m.damage === 'lf-only' ? '\n' : '\r\n';
    for (const part of m.parts) {
      let head = `--${m.boundary}${crlf}`;
      if (part.disposition !== '')
        head += `Content-Disposition: ${part.disposition}; name="${part.name}"${crlf}`;
      if (part.contentType !== undefined) head += `Content-Type: ${part.contentType}${crlf}`;
      chunks.push(
        Buffer.from(utf8Bytes(head + crlf), 'latin1'),
        Buffer.from(part.body),
        Buffer.from(m.damage === 'no-crlf' ? '' : crlf),
      );
    }
    if (m.damage !== 'no-final') chunks.push(Buffer.from(`--${m.boundary}--${crlf}`, 'latin1'));
    let body = Buffer.concat(chunks);
    if (m.damage === 'truncate') body = body.subarray(0, m.cut % (body.length + 1));
    if (m.damage === 'prefix-garbage')
      body = Buffer.concat([Buffer.from('garbage before the first boundary\r\n'), body]);
    if (m.damage === 'double') body = Buffer.concat([body, body]);
    const boundaryParam =
      m.declared === 'same'
        ? `; boundary=${m.boundary}`
        : m.declared === 'other'
          ? '; boundary=not-the-one'
          : m.declared === 'quoted'
            ? `; boundary="${m.boundary}"`
            : m.declared === 'empty'
              ? '; boundary='
              : '';
    return { contentType: utf8Bytes(`multipart/${m.subtype}${boundaryParam}`), body: new Uint8Array(body) };
  });

const contentAndMetadata = fc
  .record({
    version: versionArb,
    collection: collectionArb,
    method: mostly(fc.constantFrom('POST', 'PUT'), fc.constant('GET')),
    key: keyParams,
    extra: extraParams,
    multipart: multipartArb,
    otherType: rarely(contentTypeArb, 8),
    metadata: fc.array(metadataHeaderArb, { maxLength: 1 }),
    framing: framingArb,
    auth: pushAuthArb,
  })
  .map((r): HostileRequest => ({
    family: 'content-and-metadata',
    method: r.method,
    target: pushPath(
      r.version,
      r.collection,
      `/documents/content-and-metadata${queryString([...r.key, ...r.extra])}`,
    ),
    headers: [['Content-Type', r.otherType ?? r.multipart.contentType], ...r.metadata],
    body: r.multipart.body,
    framing: r.framing,
    auth: r.auth,
  }));

/** A request without a meaningful body on a push route (GET/DELETE documents, redirects, commit, vacuum, state...). */
function pushRoute(
  family: string,
  methods: string[],
  rest: fc.Arbitrary<string>,
  collection = collectionArb,
): fc.Arbitrary<HostileRequest> {
  return fc
    .record({
      version: versionArb,
      collection,
      method: mostly(fc.constant(methods[0]!), fc.constantFrom(...methods), 2),
      rest,
      body: fc.oneof(fc.constant(new Uint8Array()), fc.constant(new Uint8Array()), bodyArb),
      contentType: rarely(contentTypeArb, 4),
      framing: mostly(fc.constant<Framing>('none'), framingArb, 3),
      auth: pushAuthArb,
    })
    .map((r) => ({
      family,
      method: r.method,
      target: pushPath(r.version, r.collection, r.rest),
      headers: r.contentType === undefined ? [] : [['Content-Type', r.contentType]],
      body: r.body,
      framing: r.framing,
      auth: r.auth,
    }));
}

const documentsOther = pushRoute(
  'documents GET/DELETE',
  ['GET', 'GET', 'DELETE', 'DELETE', 'HEAD', 'OPTIONS'],
  fc.tuple(keyParams, extraParams).map(([k, e]) => `/documents${queryString([...k, ...e])}`),
);

const redirects = pushRoute(
  'redirects',
  ['PUT', 'PUT', 'DELETE', 'GET', 'POST'],
  fc
    .tuple(keyParams, fc.option(keyArb.chain(wireValue), { nil: undefined }), extraParams)
    .map(
      ([k, t, e]) =>
        `/redirects${queryString([...k, ...(t === undefined ? [] : ([['target', t]] as [string, string][])), ...e])}`,
    ),
);

const commit = pushRoute(
  'commit',
  ['POST', 'POST', 'POST', 'GET', 'PUT'],
  fc
    .array(
      fc.tuple(
        fc.constantFrom('wait', 'wait', 'wait[]', 'x'),
        mostly(
          fc.constantFrom('true', 'false'),
          fc.oneof(hugeNumber, fc.constantFrom('TRUE', '0', '1', 'yes')),
          2,
        ),
      ),
      { maxLength: 2 },
    )
    .map((p) => `/commit${queryString(p)}`),
);

const vacuum = pushRoute(
  'vacuum',
  ['POST', 'POST', 'GET'],
  fc
    .array(
      fc.tuple(
        fc.constantFrom('vacuum-type', 'vacuum-type', 'wait', 'vacuum-type[]'),
        mostly(
          fc.constantFrom('MERGE', 'RE_INDEX', 'true', 'false'),
          fc.oneof(hugeNumber, fc.constantFrom('merge', 'MERGE,RE_INDEX', '')),
        ),
      ),
      { maxLength: 3 },
    )
    .map((p) => `/vacuum${queryString(p)}`),
);

const snapshotName = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...DOCS_SNAPSHOTS) },
  fc.constantFrom(...MISSING_SNAPSHOTS),
  weirdText.map(percentEncode),
);
const snapshots = pushRoute(
  'snapshot',
  ['PUT', 'PUT', 'GET', 'DELETE', 'POST'],
  fc.oneof(
    snapshotName.map((n) => `/snapshot/${n}`),
    fc.constantFrom('/snapshot', '/snapshot/', '/snapshot//', '/snapshot/a/b'),
  ),
);

/** Restore: on `docs` only from snapshots that do not exist; on other collections from any (with stops in between). */
const restore = fc.oneof(
  pushRoute(
    'restore',
    ['POST', 'POST', 'GET'],
    fc.constantFrom(...MISSING_SNAPSHOTS).map((n) => `/restore/from-snapshot/${n}`),
    fc.constant(DOCS),
  ),
  pushRoute(
    'restore',
    ['POST'],
    snapshotName.map((n) => `/restore/from-snapshot/${n}`),
    fc.constantFrom(SCRATCH, 'nope', '..'),
  ),
  pushRoute('restore (stop first)', ['POST'], fc.constant('/state/stop'), fc.constant(SCRATCH)),
);

/**
 * State calls. Stopping is left out for `docs` (and names that decode to it): stopping a
 * collection while merges or a RE_INDEX vacuum run loses committed documents or duplicates
 * them (a known bug, see the todo test "stop during merges" in http-fuzz.test.ts), and the
 * checks on `docs` would fail for that reason in many runs. `scratch` is still stopped.
 */
const stateRoutes = fc.oneof(
  pushRoute(
    'state',
    ['GET', 'GET', 'POST', 'DELETE', 'HEAD'],
    fc.constantFrom('/state', '/state/start', '/state/', '/click-logs'),
  ),
  pushRoute(
    'state',
    ['POST', 'GET'],
    fc.constantFrom('/state/stop', '/state/stop/'),
    fc.constantFrom(SCRATCH, SCRATCH, 'nope', '..', '', 'x'.repeat(300)),
  ),
);

/** Upgrade preparation, never with administrator credentials (see the file comment). */
const upgrade = fc
  .record({
    version: versionArb,
    rest: fc.constantFrom(
      '/upgrade/prepare',
      '/upgrade/prepare/status',
      '/upgrade',
      '/upgrade/prepare/',
      '/upgrade/prepare/status?x=1',
    ),
    method: fc.constantFrom('POST', 'POST', 'GET', 'PUT'),
    auth: fc.constantFrom<Auth>('pusher', 'none', 'wrong-password', 'garbage', 'bogus-token'),
    framing: framingArb,
    body: bodyArb,
  })
  .map((r): HostileRequest => ({
    family: 'upgrade',
    method: r.method,
    target: `/push-api/${r.version}${r.rest}`,
    headers: [],
    body: r.body,
    framing: r.framing,
    auth: r.auth,
  }));

/**
 * Names the admin API may touch with admin credentials: never `docs`, `admin` or `pusher`,
 * and never a name the push routes use: a collection the admin API creates has no commit
 * yet, and a snapshot of such a collection is a known bug (see the todo test in
 * http-fuzz.test.ts), which would otherwise fail every run.
 */
const adminCollectionName = fc.oneof(
  fc.constantFrom('fz-new', 'fz-meta', '..', '%2e%2e', 'a%2Fb', 'x'.repeat(300), '%00'),
  fc.string({ unit: fc.constantFrom(...'abz09-_.'), minLength: 1, maxLength: 12 }).map((s) => `fz${s}`),
);
const adminUserName = fc.oneof(
  fc.constantFrom('fz-user', 'fz.user@x', '..', '%2e%2e', 'a%2Fb', 'u'.repeat(300), '%00', 'é', 'fz user'),
  fc.string({ unit: fc.constantFrom(...'abz09-_.@'), minLength: 1, maxLength: 12 }).map((s) => `fz${s}`),
);
const jsonishBody: fc.Arbitrary<Uint8Array> = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }).map((v) => Buffer.from(JSON.stringify(v))),
  fc
    .record(
      {
        type: fc.constantFrom('push', 'meta', 'PUSH', '', 'other', 1),
        members: fc.oneof(
          fc.array(fc.constantFrom(DOCS, SCRATCH, 'nope', '', '..'), { maxLength: 3 }),
          fc.constant('docs'),
        ),
        password: fc.oneof(weirdText, fc.constant('long-enough-password-1')),
        permissions: fc.array(fc.constantFrom('sec.continuous.rest', 'sec.administer', 'nope', ''), {
          maxLength: 3,
        }),
        collections: fc.array(fc.constantFrom('*', DOCS, SCRATCH, 'nope', ''), { maxLength: 3 }),
        files: fc.dictionary(
          fc.constantFrom(
            'collection.cfg',
            'metamap.cfg',
            'xml.cfg',
            'gscopes.cfg',
            'qie.cfg',
            'other.cfg',
            '../x',
          ),
          fc.oneof(
            fc.constant(null),
            weirdText,
            fc.constantFrom(
              'push.max-generations=-1',
              'collection_type=meta',
              'a,1,title',
              'PADRE XML Mapping Version: 2\nx,1,,//x[',
              'ID [unclosed',
              '2 .*',
              'search.public=false\n',
            ),
          ),
        ),
      },
      { requiredKeys: [] },
    )
    .map((v) => Buffer.from(JSON.stringify(v))),
  bodyArb,
);

/** Admin API with admin credentials on names that cannot hurt `docs` or the users the checks rely on. */
const adminApi = fc
  .record({
    path: fc.oneof(
      adminCollectionName.map((c) => `/admin-api/v1/collections/${c}`),
      adminCollectionName.map((c) => `/admin-api/v1/collections/${c}/config`),
      adminUserName.map((u) => `/admin-api/v1/users/${u}`),
      adminUserName.map((u) => `/admin-api/v1/users/${u}/tokens`),
      fc.constantFrom(
        '/admin-api/v1/collections',
        '/admin-api/v1/users',
        '/admin-api/v1/',
        '/admin-api/v2/collections',
      ),
    ),
    readOnlyDocs: fc.constantFrom(
      '/admin-api/v1/collections/docs/config',
      '/admin-api/v1/collections/docs',
      '/admin-api/v1/users/admin',
    ),
    useReadOnly: fc.boolean(),
    method: fc.constantFrom('GET', 'PUT', 'PUT', 'DELETE', 'POST', 'HEAD'),
    contentType: mostly(
      fc.constant('application/json'),
      fc.constantFrom(
        undefined,
        'application/json; charset=utf-8',
        'text/plain',
        'application/x-www-form-urlencoded',
        'garbage',
      ),
    ),
    body: jsonishBody,
    framing: framingArb,
    auth: fc.constantFrom<Auth>('admin', 'admin', 'admin', 'pusher', 'none', 'wrong-password', 'bogus-token'),
  })
  .map((r): HostileRequest => ({
    family: 'admin API',
    // On docs and admin only reads: a PUT could change their configuration or password legitimately.
    method: r.useReadOnly ? (r.method === 'HEAD' ? 'HEAD' : 'GET') : r.method,
    target: r.useReadOnly ? r.readOnlyDocs : r.path,
    headers: r.contentType === undefined ? [] : [['Content-Type', r.contentType]],
    body: r.body,
    framing: r.framing,
    auth: r.auth,
  }));

const login = fc
  .record({
    path: mostly(
      fc.constant('/admin-api/account/v1/login'),
      fc.constantFrom('/admin-api/account/v1/session', '/admin-api/account/v1/', '/search/admin/login'),
      3,
    ),
    method: mostly(fc.constant('POST'), fc.constantFrom('GET', 'DELETE'), 3),
    contentType: mostly(
      fc.constantFrom('application/x-www-form-urlencoded', 'application/json'),
      fc.constantFrom('text/plain', 'multipart/form-data; boundary=x', ''),
      3,
    ),
    fields: fc.array(
      fc.tuple(
        fc.constantFrom('username', 'password', 'next', 'csrf', 'username'),
        fc.oneof(weirdText, fc.constantFrom('admin', 'pusher', 'wrong', 'http://evil.example/', '//evil')),
      ),
    ),
    raw: rarely(bodyArb, 3),
    framing: framingArb,
    auth: fc.constantFrom<Auth>('none', 'none', 'wrong-password', 'garbage', 'bogus-token', 'pusher'),
  })
  .map((r): HostileRequest => {
    const form =
      r.contentType === 'application/json'
        ? JSON.stringify(Object.fromEntries(r.fields))
        : r.fields.map(([n, v]) => `${n}=${percentEncode(v)}`).join('&');
    return {
      family: 'login',
      method: r.method,
      target: r.path,
      headers: r.contentType === '' ? [] : [['Content-Type', r.contentType]],
      body: r.raw ?? Buffer.from(form),
      framing: r.framing,
      auth: r.auth,
    };
  });

const searchParams: fc.Arbitrary<[string, string][]> = fc.array(
  fc.oneof(
    fc.tuple(
      fc.constantFrom('collection'),
      fc.oneof(fc.constantFrom(DOCS, SCRATCH, 'nope', '', '..', 'fz-meta'), weirdText.map(percentEncode)),
    ),
    fc.tuple(
      fc.constantFrom('query', 'query'),
      fc.oneof(
        weirdText.chain(wireValue),
        fc
          .constantFrom(
            '"unclosed',
            '[a b',
            '+-+-',
            'a:b:c',
            '*',
            '**',
            't:"x',
            '-',
            '"" "" ""',
            `${'('.repeat(500)}`,
            'a '.repeat(2000),
            'canarymark OR fuzz',
          )
          .map(percentEncode),
      ),
    ),
    fc.tuple(
      fc.constantFrom('start_rank', 'num_ranks', 'start_rank', 'num_ranks', 'ge_x', 'le_x', 'ge_', 'le_d'),
      hugeNumber.map(percentEncode),
    ),
    fc.tuple(
      fc.constantFrom(
        'gscope1',
        'fmo',
        'f.Format|f',
        'f.',
        'f.Missing',
        'f.x|',
        'facet.x',
        'profile',
        'form',
        'sort',
        'collection[]',
        'start_rank[]',
      ),
      weirdText.map(percentEncode),
    ),
  ),
  { maxLength: 6 },
);

const search = fc
  .record({
    path: mostly(
      fc.constantFrom('/s/search.json', '/s/search.html'),
      fc.constantFrom('/s/search', '/s/', '/s/search.json/'),
    ),
    method: mostly(fc.constant('GET'), fc.constantFrom('HEAD', 'POST'), 5),
    collection: mostly(
      fc.constantFrom<[string, string][]>([['collection', DOCS]], [['collection', SCRATCH]]),
      fc.constant<[string, string][]>([]),
      5,
    ),
    query: mostly(
      fc
        .constantFrom('canarymark', 'fuzz body', 'title:t', '"check document"', 'canary* -x', '[a b] +c')
        .map((q): [string, string][] => [['query', percentEncode(q)]]),
      fc.constant<[string, string][]>([]),
      3,
    ),
    params: searchParams,
    framing: mostly(
      fc.constant<Framing>('none'),
      fc.constantFrom<Framing>('length', 'huge-length', 'bad-length'),
      5,
    ),
    body: bodyArb,
    auth: mostly(
      fc.constant<Auth>('none'),
      fc.constantFrom<Auth>('pusher', 'wrong-password', 'garbage', 'bogus-token'),
      3,
    ),
    accept: fc.option(fc.constantFrom('text/html', 'application/json', '*/*', 'image/png', '\xff'), {
      nil: undefined,
    }),
  })
  .map((r): HostileRequest => ({
    family: 'search',
    method: r.method,
    target: `${r.path}${queryString([...r.collection, ...r.query, ...r.params])}`,
    headers: r.accept === undefined ? [] : [['Accept', r.accept]],
    body: r.body,
    framing: r.framing,
    auth: r.auth,
  }));

const clickRedirect = fc
  .record({
    params: fc.array(
      fc.tuple(
        fc.constantFrom('collection', 'url', 'auth', 'rank', 'query', 'url', 'auth'),
        fc.oneof(
          hugeNumber,
          keyArb.chain(wireValue),
          fc.constantFrom(
            DOCS,
            'https://evil.example/',
            '//evil.example',
            'javascript:alert(1)',
            '0'.repeat(64),
            'a'.repeat(10_000),
            '%0d%0aSet-Cookie:%20x=1',
          ),
        ),
      ),
      { maxLength: 6 },
    ),
    auth: fc.constantFrom<Auth>('none', 'pusher', 'garbage'),
  })
  .map((r): HostileRequest => ({
    family: 's/redirect',
    method: 'GET',
    target: `/s/redirect${queryString(r.params)}`,
    headers: [],
    body: new Uint8Array(),
    framing: 'none',
    auth: r.auth,
  }));

const PATH_SEGMENTS = [
  'push-api',
  'v1',
  'v2',
  'collections',
  DOCS,
  SCRATCH,
  'documents',
  'content-and-metadata',
  'redirects',
  'commit',
  'vacuum',
  'snapshot',
  'restore',
  'from-snapshot',
  'state',
  'stop',
  'upgrade',
  'prepare',
  'status',
  'admin-api',
  'account',
  'login',
  'session',
  'users',
  'config',
  's',
  'search.json',
  'search.html',
  'redirect',
  'search',
  'admin',
  'api-ui',
  'openapi.json',
  'metrics',
  'health',
  'ready',
  'static',
  'index.html',
  'admin.css',
  'click-logs',
  '..',
  '.',
  '%2e%2e',
  '%2E%2E%2F',
  '%2e',
  '%00',
  '%',
  '%zz',
  '%ff',
  '%c0%ae%c0%ae',
  '',
  '~',
  ';',
  '%2F',
  '\\..\\',
  '..;',
  'é',
  '\u0000',
  '\t',
  ' ',
  '?',
  '#',
  '*',
  '%ED%A0%80',
];

/** Free-form paths mixing real segments with traversal and encoding tricks; never admin credentials. */
const randomPath = fc
  .record({
    prefix: fc.constantFrom('/', '/', '/', '', '//', 'http://127.0.0.1/', 'http://evil.example/', '*', '/./'),
    segments: fc.array(
      fc.oneof(
        { weight: 6, arbitrary: fc.constantFrom(...PATH_SEGMENTS) },
        { weight: 1, arbitrary: fc.constantFrom(257, 1000, 70_000).map((n) => 's'.repeat(n)) },
        { weight: 1, arbitrary: weirdText.map(utf8Bytes) },
      ),
      { maxLength: 9 },
    ),
    query: fc.option(
      fc.tuple(keyParams, extraParams).map(([k, e]) => queryString([...k, ...e])),
      { nil: '' },
    ),
    method: methodArb,
    contentType: rarely(contentTypeArb, 1),
    body: bodyArb,
    framing: framingArb,
    auth: fc.constantFrom<Auth>('pusher', 'pusher', 'none', 'wrong-password', 'garbage', 'bogus-token'),
    cookie: rarely(
      fc.constantFrom('session=x', 'session=; csrf=', `session=${'a'.repeat(5000)}`, 'a=b; a=c', '\xff=\xfe'),
      3,
    ),
  })
  .map((r): HostileRequest => ({
    family: 'random path',
    method: r.method,
    target: `${r.prefix}${r.segments.join('/')}${r.query}`,
    headers: [
      ...(r.contentType === undefined ? [] : [['Content-Type', r.contentType] as [string, string]]),
      ...(r.cookie === undefined ? [] : [['Cookie', r.cookie] as [string, string]]),
    ],
    body: r.body,
    framing: r.framing,
    auth: r.auth,
  }))
  // The stop of `docs` is left out on purpose (see stateRoutes).
  .filter((r) => !/collections\/docs\/state\/stop/i.test(r.target));

// ---------------------------------------------------------------------------------------
// Limits: each hostile input past one of the server's limits, with the answer it must get

/** 64 MiB of zeros, gzip-compressed once (about 64 KB): decodes past push.max-request-bytes. */
const GZIP_BOMB = gzipSync(Buffer.alloc(64 * 1024 * 1024), { level: 9 });
const MULTIPART_BOUNDARY = 'fuzz-limits-boundary';

/** A content-and-metadata body whose metadata part is `metadata` (JSON text). */
function limitsMultipart(metadata: string): Uint8Array {
  return Buffer.from(
    `--${MULTIPART_BOUNDARY}\r\nContent-Disposition: form-data; name="content"\r\nContent-Type: text/plain\r\n\r\n` +
      `limits page\r\n--${MULTIPART_BOUNDARY}\r\nContent-Disposition: form-data; name="metadata"\r\n` +
      `Content-Type: application/json\r\n\r\n${metadata}\r\n--${MULTIPART_BOUNDARY}--\r\n`,
    'utf8',
  );
}

interface LimitCase {
  what: string;
  method: string;
  path: string;
  headers: [string, string][];
  body: Uint8Array;
  expect?: { status: number; code: string };
}

const limitCase: fc.Arbitrary<LimitCase> = fc.oneof(
  // Metadata: names, values per name, bytes (metadata-limits.ts).
  fc.integer({ min: 1001, max: 3000 }).map((names): LimitCase => ({
    what: 'metadata names',
    method: 'POST',
    path: '/documents/content-and-metadata',
    headers: [['Content-Type', `multipart/form-data; boundary=${MULTIPART_BOUNDARY}`]],
    body: limitsMultipart(
      JSON.stringify(Object.fromEntries(Array.from({ length: names }, (_, i) => [`n${i}`, 'v']))),
    ),
    expect: { status: 413, code: 'METADATA_TOO_MANY_NAMES' },
  })),
  fc.integer({ min: 1001, max: 5000 }).map((values): LimitCase => ({
    what: 'metadata values',
    method: 'POST',
    path: '/documents/content-and-metadata',
    headers: [['Content-Type', `multipart/form-data; boundary=${MULTIPART_BOUNDARY}`]],
    body: limitsMultipart(JSON.stringify({ tags: Array.from({ length: values }, (_, i) => `t${i}`) })),
    expect: { status: 413, code: 'METADATA_TOO_MANY_VALUES' },
  })),
  fc.integer({ min: 1024 * 1024 + 1, max: 1024 * 1024 + 4096 }).map((bytes): LimitCase => ({
    what: 'metadata bytes',
    method: 'POST',
    path: '/documents/content-and-metadata',
    headers: [['Content-Type', `multipart/form-data; boundary=${MULTIPART_BOUNDARY}`]],
    body: limitsMultipart(JSON.stringify({ big: 'x'.repeat(bytes) })),
    expect: { status: 413, code: 'METADATA_TOO_LARGE' },
  })),
  // Compressed bodies: a bomb, codings we do not decode, corrupt data, and good ones.
  fc.constantFrom('gzip', 'GZip', 'x-gzip').map((coding): LimitCase => ({
    what: 'gzip bomb',
    method: 'PUT',
    path: '/documents',
    headers: [
      ['Content-Type', 'text/plain'],
      ['Content-Encoding', coding],
    ],
    body: GZIP_BOMB,
    expect: { status: 413, code: 'BODY_TOO_LARGE' },
  })),
  fc
    .constantFrom('compress', 'zstd', 'gzip, br', 'deflate, deflate', 'x-unknown', 'gzip;q=1')
    .map((coding): LimitCase => ({
      what: 'unsupported coding',
      method: 'PUT',
      path: '/documents',
      headers: [
        ['Content-Type', 'text/plain'],
        ['Content-Encoding', coding],
      ],
      body: gzipSync('text'),
      expect: { status: 415, code: 'CONTENT_ENCODING_UNSUPPORTED' },
    })),
  fc
    .tuple(fc.constantFrom('gzip', 'deflate', 'br'), fc.uint8Array({ minLength: 1, maxLength: 200 }))
    .map(([coding, garbage]): LimitCase => ({
      what: 'corrupt compressed body',
      method: 'PUT',
      path: '/documents',
      headers: [
        ['Content-Type', 'text/plain'],
        ['Content-Encoding', coding],
      ],
      // A valid gzip, deflate or brotli stream never starts with 0xff 0xff 0xff.
      body: Buffer.concat([Buffer.from([0xff, 0xff, 0xff]), garbage]),
      expect: { status: 400, code: 'BODY_INVALID' },
    })),
  fc
    .tuple(fc.constantFrom('gzip', 'deflate', 'br'), fc.string({ maxLength: 500 }))
    .map(([coding, text]): LimitCase => ({
      what: 'compressed document',
      method: 'PUT',
      path: '/documents',
      headers: [
        ['Content-Type', 'text/plain'],
        ['Content-Encoding', coding],
      ],
      body:
        coding === 'gzip'
          ? gzipSync(text)
          : coding === 'deflate'
            ? deflateSync(text)
            : brotliCompressSync(text),
    })),
);

/** Requests past a limit, on a valid route with valid credentials (mostly), framed either way. */
const limits = fc
  .record({
    version: fc.constantFrom('v1', 'v2'),
    key: fc.nat(1000).map((n) => `?key=${encodeURIComponent(`https://limits.example/${n}`)}`),
    limit: limitCase,
    framing: mostly(fc.constant<Framing>('length'), fc.constant<Framing>('chunked'), 3),
    auth: mostly(fc.constant<Auth>('pusher'), fc.constantFrom<Auth>('admin', 'none'), 4),
  })
  .map((r): HostileRequest => ({
    family: `limits: ${r.limit.what}`,
    method: r.limit.method,
    target: pushPath(r.version, SCRATCH, `${r.limit.path}${r.key}`),
    headers: r.limit.headers,
    body: r.limit.body,
    framing: r.framing,
    auth: r.auth,
    ...(r.limit.expect !== undefined && r.auth !== 'none' ? { expect: r.limit.expect } : {}),
  }));

/** Click logging (`/s/redirect`): floods of one query, long queries; 400 (unsigned) or 429 (rate), never logged. */
const clickFlood = fc
  .record({
    query: fc.oneof(fc.constant('flood'), fc.string({ minLength: 2000, maxLength: 8000 })),
    rank: fc.integer({ min: 1, max: 100 }),
  })
  .map((r): HostileRequest => ({
    family: 'limits: clicks',
    method: 'GET',
    target: `/s/redirect?${new URLSearchParams({ collection: DOCS, url: 'https://evil.example/', auth: 'AAAA', rank: String(r.rank), query: r.query }).toString()}`,
    headers: [],
    body: new Uint8Array(),
    framing: 'none',
    auth: 'none',
  }));

/** Every family, weighted towards the document routes (the most code behind them). */
export const hostileRequestArb: fc.Arbitrary<HostileRequest> = fc.oneof(
  { weight: 5, arbitrary: documentsPut },
  { weight: 4, arbitrary: contentAndMetadata },
  { weight: 3, arbitrary: documentsOther },
  { weight: 2, arbitrary: redirects },
  { weight: 2, arbitrary: commit },
  { weight: 1, arbitrary: vacuum },
  { weight: 2, arbitrary: snapshots },
  { weight: 2, arbitrary: restore },
  { weight: 2, arbitrary: stateRoutes },
  { weight: 1, arbitrary: upgrade },
  { weight: 3, arbitrary: adminApi },
  { weight: 2, arbitrary: login },
  { weight: 3, arbitrary: search },
  { weight: 1, arbitrary: clickRedirect },
  { weight: 2, arbitrary: limits },
  { weight: 1, arbitrary: clickFlood },
  { weight: 4, arbitrary: randomPath },
);

/** Credentials on the wire for each {@link Auth}. */
export interface Credentials {
  admin: string;
  pusher: string;
  wrongPassword: string;
}

/**
 * The request as bytes. Always `Connection: close`, so that the server ends the exchange
 * after its first answer and a lying body cannot be mistaken for a next request's wait.
 */
export function renderRequest(request: HostileRequest, credentials: Credentials): Buffer {
  const lines: string[] = [
    `${request.method} ${request.target} HTTP/1.1`,
    'Host: 127.0.0.1',
    'Connection: close',
  ];
  if (request.auth === 'admin') lines.push(`Authorization: ${credentials.admin}`);
  if (request.auth === 'pusher') lines.push(`Authorization: ${credentials.pusher}`);
  if (request.auth === 'wrong-password') lines.push(`Authorization: ${credentials.wrongPassword}`);
  if (request.auth === 'garbage') lines.push('Authorization: Basic !!!not-base64\xff');
  if (request.auth === 'bogus-token') lines.push('X-Security-Token: 00000000000000000000000000000000');
  for (const [name, value] of request.headers) lines.push(`${name}: ${value}`);
  const body = Buffer.from(request.body);
  let payload: Buffer = Buffer.alloc(0);
  switch (request.framing) {
    case 'length':
      lines.push(`Content-Length: ${body.length}`);
      payload = body;
      break;
    case 'chunked': {
      lines.push('Transfer-Encoding: chunked');
      const chunks: Buffer[] = [];
      for (let at = 0, size = 1; at < body.length; at += size, size = size * 3 + 1) {
        const piece = body.subarray(at, at + size);
        chunks.push(Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n'));
      }
      chunks.push(Buffer.from('0\r\n\r\n'));
      payload = Buffer.concat(chunks);
      break;
    }
    case 'huge-length':
      // Above push.max-request-bytes (50 MiB) and every other limit: refused before reading.
      lines.push(`Content-Length: ${[99_999_999_999, 52_428_801 + body.length, 2 ** 53][body.length % 3]}`);
      payload = body;
      break;
    case 'bad-length':
      lines.push(
        `Content-Length: ${['-1', 'abc', '1e3', '0x10', '5, 5', '18446744073709551616', '+5'][body.length % 7]}`,
      );
      break;
    case 'bad-chunked':
      lines.push(
        ['Transfer-Encoding: chunked', 'Transfer-Encoding: chunked', 'Transfer-Encoding: gzip, chunked'][
          body.length % 3
        ]!,
      );
      if (body.length % 5 === 0) lines.push('Content-Length: 3');
      payload = Buffer.from(
        [
          'zz\r\nabc\r\n0\r\n\r\n',
          '5\r\nabc\r\n0\r\n\r\n',
          '-1\r\n\r\n0\r\n\r\n',
          'ffffffffffffffffffff\r\nx\r\n0\r\n\r\n',
          '3;ext="\xff"\r\nabc\r\n0\r\n\r\n',
        ][body.length % 5]!,
        'latin1',
      );
      break;
    case 'none':
      break;
  }
  return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), payload]);
}
