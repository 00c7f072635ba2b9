import assert from 'node:assert/strict';
import { createServer, type IncomingMessage } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { SearchError } from '../../src/errors.js';
import { decodeHeaderValue, extractPushMetadata } from '../../src/http/metadata-headers.js';

/** Sends raw header bytes to a real Node HTTP server and returns what it sees as rawHeaders. */
async function rawHeadersOf(headerBytes: Buffer): Promise<string[]> {
  let seen: string[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    seen = req.rawHeaders;
    res.end('ok');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    await new Promise<void>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.write(
          Buffer.concat([
            Buffer.from('GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n'),
            headerBytes,
            Buffer.from('\r\n'),
          ]),
        );
      });
      socket.on('data', () => undefined);
      socket.on('end', resolve);
      socket.on('error', reject);
    });
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
  return seen;
}

describe('extractPushMetadata', () => {
  it('takes both prefixes in any case and keeps the case of the name', () => {
    const metadata = extractPushMetadata([
      'Host',
      'x',
      'X-Service-Push-Metadata-Author',
      'Ann',
      'x-service-push-metadata-DC.Title',
      'Title',
      'X-FUNNELBACK-PUSH-META-DATA-Subject',
      'Cats',
      'X-Service-Push-Other',
      'ignored',
      'Content-Type',
      'text/html',
    ]);
    assert.deepEqual({ ...metadata }, { Author: ['Ann'], 'DC.Title': ['Title'], Subject: ['Cats'] });
  });

  it('adds a value per repeated header, in order, without splitting at commas', () => {
    const metadata = extractPushMetadata([
      'X-Service-Push-Metadata-Tag',
      'a, b',
      'X-Funnelback-Push-Meta-Data-Tag',
      'c',
      'x-service-push-metadata-Tag',
      'd',
      'X-Service-Push-Metadata-tag',
      'lower',
    ]);
    assert.deepEqual(metadata.Tag, ['a, b', 'c', 'd']);
    assert.deepEqual(metadata.tag, ['lower']);
  });

  it('keeps empty values', () => {
    assert.deepEqual(extractPushMetadata(['X-Service-Push-Metadata-Empty', '']).Empty, ['']);
  });

  it('refuses an empty name', () => {
    assert.throws(
      () => extractPushMetadata(['X-Service-Push-Metadata-', 'v']),
      (e: unknown) =>
        e instanceof SearchError && e.code === 'METADATA_INVALID' && /no metadata name/.test(e.message),
    );
  });

  it('treats __proto__ and constructor as ordinary names', () => {
    const metadata = extractPushMetadata([
      'X-Service-Push-Metadata-__proto__',
      'p',
      'X-Service-Push-Metadata-constructor',
      'c',
    ]);
    assert.deepEqual(Object.keys(metadata).sort(), ['__proto__', 'constructor']);
    assert.deepEqual(metadata['__proto__'], ['p']);
    assert.equal(Object.getPrototypeOf(metadata), null);
  });

  it('decodes UTF-8 bytes sent by a client through a real Node server', async () => {
    const raw = await rawHeadersOf(
      Buffer.concat([
        Buffer.from('X-Service-Push-Metadata-City: '),
        Buffer.from('Zürich – 東京', 'utf8'),
        Buffer.from('\r\n'),
        Buffer.from('X-Service-Push-Metadata-Latin1: '),
        Buffer.from([0x47, 0x72, 0xfc, 0xdf, 0x65]),
        Buffer.from('\r\n'),
      ]),
    );
    const metadata = extractPushMetadata(raw);
    assert.deepEqual(metadata.City, ['Zürich – 東京']);
    // 0xFC 0xDF is not UTF-8: kept as latin1
    assert.deepEqual(metadata.Latin1, ['Grüße']);
  });
});

describe('decodeHeaderValue', () => {
  it('leaves ASCII and already-decoded text alone', () => {
    assert.equal(decodeHeaderValue('plain'), 'plain');
    assert.equal(decodeHeaderValue('東京'), '東京');
    assert.equal(decodeHeaderValue(Buffer.from('é', 'utf8').toString('latin1')), 'é');
  });
});
