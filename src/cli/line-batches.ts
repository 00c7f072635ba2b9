const LF = 0x0a;
const CR = 0x0d;

/**
 * The non-blank lines of a byte stream with their line numbers (from 1), a batch per chunk.
 * Lines end at LF, CRLF or a lone CR, as node:readline splits them (the numbers are the ones
 * an editor shows); the split works on bytes (memchr through `indexOf`) and decodes nothing,
 * so counting the RFC corpus's 580 MB before a load costs the decompression and little else
 * (readline, decoding every line to a string, took three times as long).
 */
export async function* lineBatches(input: AsyncIterable<Buffer>): AsyncGenerator<[number, Buffer][]> {
  let line = 1;
  let carry: Buffer[] = [];
  // The previous chunk ended with CR: an LF first in this one belongs to it (CRLF).
  let afterCR = false;
  const finish = (piece: Buffer, batch: [number, Buffer][]): void => {
    const whole = carry.length === 0 ? piece : Buffer.concat([...carry, piece]);
    carry = [];
    if (!isBlank(whole)) batch.push([line, whole]);
    line++;
  };
  for await (const chunk of input) {
    const batch: [number, Buffer][] = [];
    let pos = afterCR && chunk[0] === LF ? 1 : 0;
    afterCR = false;
    const hasCR = chunk.indexOf(CR, pos) !== -1;
    let nextLF = chunk.indexOf(LF, pos);
    let nextCR = hasCR ? chunk.indexOf(CR, pos) : -1;
    for (;;) {
      if (nextLF !== -1 && nextLF < pos) nextLF = chunk.indexOf(LF, pos);
      if (nextCR !== -1 && nextCR < pos) nextCR = chunk.indexOf(CR, pos);
      let end: number;
      let next: number;
      if (nextCR !== -1 && (nextLF === -1 || nextCR < nextLF)) {
        end = nextCR;
        if (nextCR + 1 === chunk.length) afterCR = true;
        next = chunk[nextCR + 1] === LF ? nextCR + 2 : nextCR + 1;
      } else if (nextLF !== -1) {
        end = nextLF;
        next = nextLF + 1;
      } else break;
      finish(chunk.subarray(pos, end), batch);
      pos = next;
    }
    if (pos < chunk.length) carry.push(chunk.subarray(pos));
    if (batch.length > 0) yield batch;
  }
  const batch: [number, Buffer][] = [];
  if (carry.length > 0) finish(Buffer.alloc(0), batch);
  if (batch.length > 0) yield batch;
}

/** Only spaces, tabs, vertical tabs and form feeds (what `String.prototype.trim` removes of ASCII). */
function isBlank(line: Buffer): boolean {
  for (const byte of line) if (byte !== 0x20 && (byte < 0x09 || byte > 0x0d)) return false;
  return true;
}
