import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { isSearchError } from '../../src/errors.js';
import { readContentAndMetadata, parseMetadataJson } from '../../src/http/content-and-metadata.js';
import { multipartBoundary, parseMultipart } from '../../src/http/multipart.js';
import { multipartBody } from './helpers.js';

function code(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    assert.ok(isSearchError(error), String(error));
    return error.code;
  }
  assert.fail('expected a SearchError');
}

describe('parseMultipart', () => {
  it('splits parts, ignoring preamble, epilogue and transport padding', () => {
    const body = Buffer.from(
      'preamble text\r\n--b \t\r\nContent-Type: text/plain\r\n\r\none\r\n--b\r\nX-A: 1\r\n  folded\r\n\r\ntwo\r\n--b--\r\nepilogue --b\r\n',
    );
    const parts = parseMultipart(body, 'b');
    assert.equal(parts.length, 2);
    assert.equal(parts[0].body.toString(), 'one');
    assert.equal(parts[0].headers.get('content-type'), 'text/plain');
    assert.equal(parts[1].body.toString(), 'two');
    assert.equal(parts[1].headers.get('x-a'), '1 folded');
  });

  it('keeps content that holds the boundary text but not as a whole delimiter line', () => {
    const content = 'line1\r\n--bx not a delimiter\r\n--b\tx neither\r\nend\r\n';
    const parts = parseMultipart(Buffer.from(`--b\r\n\r\n${content}\r\n--b--`), 'b');
    assert.equal(parts.length, 1);
    assert.equal(parts[0].body.toString(), content);
  });

  it('a part without headers and an empty part', () => {
    const parts = parseMultipart(Buffer.from('--b\r\n\r\nno headers\r\n--b\r\n\r\n--b--'), 'b');
    assert.equal(parts[0].headers.size, 0);
    assert.equal(parts[0].body.toString(), 'no headers');
    assert.equal(parts[1].body.length, 0);
  });

  it('round-trips arbitrary binary parts (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.uint8Array({ maxLength: 200 }), { minLength: 1, maxLength: 5 }), (bodies) => {
        const boundary = 'q1w2e3r4t5y6-boundary';
        const encoded = multipartBody(
          boundary,
          bodies.map((b) => ({
            headers: { 'Content-Type': 'application/octet-stream' },
            body: Buffer.from(b),
          })),
        );
        const parts = parseMultipart(encoded, boundary);
        assert.equal(parts.length, bodies.length);
        parts.forEach((part, i) => assert.deepEqual(new Uint8Array(part.body), bodies[i]));
      }),
    );
  });

  it('refuses malformed bodies with MULTIPART_INVALID', () => {
    const cases = [
      'no boundary at all',
      '--b\r\nContent-Type: text/plain\r\n\r\nunterminated',
      '--b\r\nContent-Type text/plain\r\n\r\nx\r\n--b--',
      '--b\r\nContent-Type: text/plain\r\nno blank line\r\n--b--',
      '--bjunk\r\n\r\nx\r\n--b--',
      '--b--',
    ];
    for (const text of cases)
      assert.equal(
        code(() => parseMultipart(Buffer.from(text), 'b')),
        'MULTIPART_INVALID',
        text,
      );
    const many = multipartBody(
      'b',
      Array.from({ length: 17 }, () => ({ headers: {}, body: 'x' })),
    );
    assert.equal(
      code(() => parseMultipart(many, 'b')),
      'MULTIPART_INVALID',
    );
  });
});

describe('multipartBoundary', () => {
  it('reads the boundary, quoted or not; refuses other types and bad boundaries', () => {
    assert.deepEqual(multipartBoundary('multipart/form-data; boundary="a b:c"'), {
      subtype: 'form-data',
      boundary: 'a b:c',
    });
    assert.deepEqual(multipartBoundary('Multipart/Mixed;boundary=xyz'), {
      subtype: 'mixed',
      boundary: 'xyz',
    });
    assert.equal(
      code(() => multipartBoundary('text/plain')),
      'UNSUPPORTED_MEDIA_TYPE',
    );
    assert.equal(
      code(() => multipartBoundary(undefined)),
      'UNSUPPORTED_MEDIA_TYPE',
    );
    assert.equal(
      code(() => multipartBoundary('multipart/form-data')),
      'MULTIPART_INVALID',
    );
    assert.equal(
      code(() => multipartBoundary(`multipart/form-data; boundary=${'x'.repeat(71)}`)),
      'MULTIPART_INVALID',
    );
    assert.equal(
      code(() => multipartBoundary('multipart/form-data; boundary="ends with space "')),
      'MULTIPART_INVALID',
    );
  });
});

describe('readContentAndMetadata', () => {
  const json = { 'Content-Type': 'application/json' };

  it('named parts in any order; content part type defaults to text/plain', () => {
    const body = multipartBody('b', [
      { headers: { 'Content-Disposition': 'form-data; name="metadata"', ...json }, body: '{"A": "1"}' },
      { headers: { 'Content-Disposition': 'form-data; name="content"' }, body: 'text' },
    ]);
    const read = readContentAndMetadata(body, 'multipart/form-data; boundary=b');
    assert.equal(read.content.toString(), 'text');
    assert.equal(read.contentType, 'text/plain');
    assert.deepEqual({ ...read.metadata }, { A: ['1'] });
  });

  it('unnamed parts: the JSON one is the metadata, whichever comes first; a single one is the content', () => {
    const first = readContentAndMetadata(
      multipartBody('b', [
        { headers: json, body: '{"A": ["x", "y"]}' },
        { headers: { 'Content-Type': 'text/html' }, body: '<p>' },
      ]),
      'multipart/mixed; boundary=b',
    );
    assert.equal(first.content.toString(), '<p>');
    assert.equal(first.contentType, 'text/html');
    assert.deepEqual(first.metadata.A, ['x', 'y']);

    // A JSON document with JSON metadata: the first is the content.
    const both = readContentAndMetadata(
      multipartBody('b', [
        { headers: json, body: '{"doc": 1}' },
        { headers: json, body: '{"M": "m"}' },
      ]),
      'multipart/mixed; boundary=b',
    );
    assert.equal(both.content.toString(), '{"doc": 1}');
    assert.deepEqual(both.metadata.M, ['m']);

    const single = readContentAndMetadata(
      multipartBody('b', [{ headers: json, body: '{"doc": 1}' }]),
      'multipart/mixed; boundary=b',
    );
    assert.equal(single.content.toString(), '{"doc": 1}');
    assert.deepEqual(Object.keys(single.metadata), []);

    assert.equal(
      code(() =>
        readContentAndMetadata(
          multipartBody('b', [
            { headers: {}, body: 'a' },
            { headers: {}, body: 'b' },
          ]),
          'multipart/mixed; boundary=b',
        ),
      ),
      'MULTIPART_INVALID',
    );
    assert.equal(
      code(() =>
        readContentAndMetadata(
          multipartBody('b', [
            { headers: {}, body: 'a' },
            { headers: json, body: '{}' },
            { headers: {}, body: 'c' },
          ]),
          'multipart/mixed; boundary=b',
        ),
      ),
      'MULTIPART_INVALID',
    );
  });

  it('decodes a base64 content part; refuses unknown transfer encodings', () => {
    const body = multipartBody('b', [
      {
        headers: { 'Content-Disposition': 'form-data; name=content', 'Content-Transfer-Encoding': 'base64' },
        body: 'aGVs\r\nbG8=',
      },
    ]);
    assert.equal(readContentAndMetadata(body, 'multipart/form-data; boundary=b').content.toString(), 'hello');
    const qp = multipartBody('b', [
      {
        headers: {
          'Content-Disposition': 'form-data; name=content',
          'Content-Transfer-Encoding': 'quoted-printable',
        },
        body: 'x',
      },
    ]);
    assert.equal(
      code(() => readContentAndMetadata(qp, 'multipart/form-data; boundary=b')),
      'MULTIPART_INVALID',
    );
  });

  it('a duplicate part name is refused', () => {
    const body = multipartBody('b', [
      { headers: { 'Content-Disposition': 'form-data; name="content"' }, body: 'a' },
      { headers: { 'Content-Disposition': 'form-data; name="content"' }, body: 'b' },
    ]);
    assert.equal(
      code(() => readContentAndMetadata(body, 'multipart/form-data; boundary=b')),
      'MULTIPART_INVALID',
    );
  });
});

describe('parseMetadataJson', () => {
  it('keeps names as sent (case, Unicode, __proto__), values with line breaks; drops empty arrays', () => {
    const parsed = parseMetadataJson(
      Buffer.from(
        '\uFEFF{"Name": "a\\nb", "name": ["1", "2"], "ÄÖ 名前": "v", "__proto__": "p", "empty": []}',
      ),
    );
    assert.deepEqual(Object.keys(parsed), ['Name', 'name', 'ÄÖ 名前', '__proto__']);
    assert.deepEqual(parsed.Name, ['a\nb']);
    assert.deepEqual(parsed.name, ['1', '2']);
    assert.deepEqual(parsed.__proto__, ['p']);
    assert.equal(Object.getPrototypeOf(parsed), null);
  });

  it('refuses invalid UTF-8, other charsets, non-objects, non-string values, empty names', () => {
    const cases: [Uint8Array, string?][] = [
      [Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xe9, 0x22, 0x7d])],
      [Buffer.from('{"a": "b"}'), 'application/json; charset=iso-8859-1'],
      [Buffer.from('null')],
      [Buffer.from('"text"')],
      [Buffer.from('{"a": 1}')],
      [Buffer.from('{"a": ["x", 2]}')],
      [Buffer.from('{"": "x"}')],
      [Buffer.from('{"a": ')],
    ];
    for (const [bytes, type] of cases)
      assert.equal(
        code(() => parseMetadataJson(bytes, type)),
        'METADATA_INVALID',
        Buffer.from(bytes).toString('latin1'),
      );
  });
});
