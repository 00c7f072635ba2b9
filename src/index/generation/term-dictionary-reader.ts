import { ByteReader } from '../store/byte-reader.js';

/** Where a term's postings lie, as the dictionary records it. */
export interface TermInfo {
  docFreq: number;
  docStart: number;
  docLength: number;
  posStart: number;
  posLength: number;
}

interface FieldIndex {
  name: string;
  positions: boolean;
  termCount: number;
  firstTerms: string[];
  blockOffsets: number[];
  docBases: number[];
  posBases: number[];
}

/**
 * Reads `.tim` (written by TermDictionaryWriter). The block index (first term of every block)
 * is kept in memory; a lookup binary-searches it and scans one block of at most 32 terms.
 */
export class TermDictionaryReader {
  private readonly fields = new Map<string, FieldIndex>();

  /** `body` holds the file's body bytes; offsets in the file are relative to `bodyStart`. */
  constructor(
    private readonly body: Uint8Array,
    private readonly bodyStart: number,
  ) {
    const view = new DataView(body.buffer, body.byteOffset, body.byteLength);
    const indexOffset = view.getFloat64(body.length - 8, true) - bodyStart;
    const index = new ByteReader(body, indexOffset, body.length - 8);
    const fieldCount = index.readVInt();
    for (let f = 0; f < fieldCount; f++) {
      const name = index.readString();
      const positions = index.readVInt() === 1;
      const termCount = index.readVInt();
      const blockCount = index.readVInt();
      const field: FieldIndex = {
        name,
        positions,
        termCount,
        firstTerms: [],
        blockOffsets: [],
        docBases: [],
        posBases: [],
      };
      for (let b = 0; b < blockCount; b++) {
        field.firstTerms.push(index.readString());
        field.blockOffsets.push(index.readVInt() - bodyStart);
        field.docBases.push(index.readVInt());
        field.posBases.push(index.readVInt());
      }
      this.fields.set(name, field);
    }
  }

  fieldNames(): string[] {
    return [...this.fields.keys()];
  }

  termCount(field: string): number {
    return this.fields.get(field)?.termCount ?? 0;
  }

  lookup(field: string, term: string): TermInfo | undefined {
    const index = this.fields.get(field);
    if (index === undefined) return undefined;
    const block = lastBlockNotAfter(index.firstTerms, term);
    if (block < 0) return undefined;
    let found: TermInfo | undefined;
    this.scanBlock(index, block, (candidate, info) => {
      if (candidate === term) {
        found = info;
        return false;
      }
      return candidate < term;
    });
    return found;
  }

  /** Calls `visit` for terms >= `from` in order until it returns false. */
  forEachTermFrom(field: string, from: string, visit: (term: string, info: TermInfo) => boolean): void {
    const index = this.fields.get(field);
    if (index === undefined) return;
    let block = Math.max(0, lastBlockNotAfter(index.firstTerms, from));
    let going = true;
    for (; going && block < index.firstTerms.length; block++) {
      this.scanBlock(index, block, (term, info) => {
        if (term < from) return true;
        going = visit(term, info);
        return going;
      });
    }
  }

  /** Every term of a field in order (merges). */
  *terms(field: string): Generator<[string, TermInfo]> {
    const index = this.fields.get(field);
    if (index === undefined) return;
    for (let block = 0; block < index.firstTerms.length; block++) {
      const entries: [string, TermInfo][] = [];
      this.scanBlock(index, block, (term, info) => {
        entries.push([term, info]);
        return true;
      });
      yield* entries;
    }
  }

  private scanBlock(
    index: FieldIndex,
    block: number,
    visit: (term: string, info: TermInfo) => boolean,
  ): void {
    const input = new ByteReader(this.body, index.blockOffsets[block]!);
    const count = input.readVInt();
    let term = '';
    let docStart = index.docBases[block]!;
    let posStart = index.posBases[block]!;
    for (let i = 0; i < count; i++) {
      const prefix = input.readVInt();
      term = term.slice(0, prefix) + input.readString();
      const docFreq = input.readVInt();
      docStart += input.readVInt();
      const docLength = input.readVInt();
      posStart += input.readVInt();
      const posLength = input.readVInt();
      if (!visit(term, { docFreq, docStart, docLength, posStart, posLength })) return;
    }
  }
}

/** Index of the last block whose first term is <= term, or -1. */
function lastBlockNotAfter(firstTerms: string[], term: string): number {
  let low = 0;
  let high = firstTerms.length - 1;
  let answer = -1;
  while (low <= high) {
    const mid = (low + high) >>> 1;
    if (firstTerms[mid]! <= term) {
      answer = mid;
      low = mid + 1;
    } else high = mid - 1;
  }
  return answer;
}
