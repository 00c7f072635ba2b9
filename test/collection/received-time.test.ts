import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  formatReceivedTime,
  parseReceivedTime,
  RECEIVED_TIME_METADATA,
} from '../../src/collection/received-time.js';
import { SearchError } from '../../src/errors.js';

describe('received time', () => {
  it('formats UTC as yyyyMMddHHmmss.SSSZ in 19 characters', () => {
    const text = formatReceivedTime(new Date('2024-01-31T23:59:59.123Z'));
    assert.equal(text, '20240131235959.123Z');
    assert.equal(text.length, 19);
    assert.equal(RECEIVED_TIME_METADATA, 'X-Service-Push-Received-Time');
  });

  it('uses UTC whatever the local offset of the Date was written in', () => {
    assert.equal(formatReceivedTime(new Date('2024-06-01T02:03:04.005+10:00')), '20240531160304.005Z');
  });

  it('pads every field, including small years', () => {
    assert.equal(formatReceivedTime(new Date('0005-02-03T04:05:06.007Z')), '00050203040506.007Z');
    assert.equal(formatReceivedTime(new Date(0)), '19700101000000.000Z');
  });

  it('refuses dates it cannot write in 19 characters', () => {
    assert.throws(() => formatReceivedTime(new Date(NaN)), SearchError);
    assert.throws(() => formatReceivedTime(new Date('+010000-01-01T00:00:00Z')), SearchError);
    assert.throws(() => formatReceivedTime(new Date('-000001-01-01T00:00:00Z')), SearchError);
  });

  it('parses what it formats', () => {
    fc.assert(
      fc.property(
        fc.date({
          min: new Date('0000-01-01T00:00:00Z'),
          max: new Date('9999-12-31T23:59:59.999Z'),
          noInvalidDate: true,
        }),
        (d) => {
          const text = formatReceivedTime(d);
          assert.equal(text.length, 19);
          assert.equal(parseReceivedTime(text).getTime(), d.getTime());
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('refuses malformed and out-of-range texts', () => {
    for (const bad of [
      '',
      '20240131235959.123',
      '20240131235959.123z',
      '2024-01-31T23:59:59Z',
      '20240231000000.000Z',
      '20241301000000.000Z',
      '20240101240000.000Z',
      '20240101000060.000Z',
      ' 20240131235959.123Z',
      '20240131235959.1234Z',
    ]) {
      assert.throws(
        () => parseReceivedTime(bad),
        (e: unknown) => e instanceof SearchError && e.code === 'METADATA_INVALID',
        bad,
      );
    }
    assert.equal(parseReceivedTime('20240229120000.000Z').toISOString(), '2024-02-29T12:00:00.000Z');
  });
});
