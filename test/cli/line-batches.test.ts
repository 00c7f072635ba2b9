import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { createInterface } from 'node:readline';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { lineBatches } from '../../src/cli/line-batches.js';

/** node:readline's lines, numbered, blank ones left out: what `load` numbered before. */
async function readlineOracle(text: string): Promise<[number, string][]> {
  const out: [number, string][] = [];
  let line = 0;
  for await (const raw of createInterface({
    input: Readable.from([Buffer.from(text)]),
    crlfDelay: Infinity,
  })) {
    line++;
    if (raw.trim() !== '') out.push([line, raw]);
  }
  return out;
}

async function split(bytes: Buffer, cuts: number[]): Promise<[number, string][]> {
  const chunks: Buffer[] = [];
  let start = 0;
  for (const cut of [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b)) {
    chunks.push(bytes.subarray(start, cut));
    start = cut;
  }
  chunks.push(bytes.subarray(start));
  const out: [number, string][] = [];
  for await (const batch of lineBatches(Readable.from(chunks.filter((c) => c.length > 0))))
    for (const [line, raw] of batch) out.push([line, raw.toString('utf8')]);
  return out;
}

describe('lineBatches', () => {
  it('numbers and splits lines as node:readline does, however the bytes are chunked', async () => {
    const piece = fc.constantFrom(
      '{"key":"a"}',
      'x',
      ' ',
      '\t',
      'é',
      '€ü',
      '\n',
      '\r\n',
      '\r',
      '\n\n',
      '  \n',
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(piece, { maxLength: 40 }).map((parts) => parts.join('')),
        fc.array(fc.nat(200), { maxLength: 8 }),
        async (text, cuts) => {
          assert.deepEqual(await split(Buffer.from(text), cuts), await readlineOracle(text));
        },
      ),
    );
  });
});
