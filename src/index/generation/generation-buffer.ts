import { ByteWriter } from '../store/byte-writer.js';
import { isKeywordField, KEY_FIELD, type DocumentInput } from '../document.js';
import type { Schema } from '../schema.js';
import { writeStoredRecord } from './stored-record-codec.js';

/** Positions between two values of a multi-valued field, so a phrase never spans them. */
export const VALUE_POSITION_GAP = 100;

/** Postings of one term while the buffer fills: docs ascending, positions concatenated. */
export interface TermPostingsBuffer {
  docs: number[];
  freqs: number[];
  positions: number[];
}

export interface FieldBuffer {
  readonly positions: boolean;
  readonly terms: Map<string, TermPostingsBuffer>;
  /** Per-document token count (text fields only), index = docId. */
  readonly lengths: number[];
  sumLength: number;
  docCount: number;
}

/**
 * The in-memory generation that staged documents are inverted into as they arrive, so
 * that a commit only has to write files (Lucene's indexing buffer). Not searchable:
 * searchers only see published generations.
 */
export class GenerationBuffer {
  readonly fields = new Map<string, FieldBuffer>();
  readonly numbers = new Map<string, number[]>();
  readonly stored: Uint8Array[] = [];
  readonly keys: string[] = [];
  /** docIds superseded inside this buffer (the same key put again, or deleted). */
  readonly killed = new Set<number>();
  /** Every key put or deleted here: older generations lose their copy at commit. */
  readonly changedKeys = new Set<string>();
  private readonly liveDocByKey = new Map<string, number>();
  private readonly scratch = new ByteWriter(4096);
  private approximateBytes = 0;
  /** Number of put and delete operations applied. */
  changes = 0;

  constructor(private readonly schema: Schema) {}

  get docCount(): number {
    return this.keys.length;
  }

  /** A rough size of the buffer in memory, to decide when to flush it early. */
  get bytesUsed(): number {
    return this.approximateBytes;
  }

  get isEmpty(): boolean {
    return this.changes === 0;
  }

  put(doc: DocumentInput): void {
    this.supersede(doc.key);
    const docId = this.keys.length;
    this.keys.push(doc.key);
    this.liveDocByKey.set(doc.key, docId);
    this.addTerm(this.field(KEY_FIELD), doc.key, docId, 0);
    for (const [name, value] of Object.entries(doc.fields)) {
      if (name === KEY_FIELD) continue;
      const values: readonly string[] = typeof value === 'string' ? [value] : value;
      if (values.length === 0) continue;
      const field = this.field(name);
      if (isKeywordField(name)) {
        for (const term of values) this.addTerm(field, term, docId, 0);
        continue;
      }
      const analyzer = this.schema.analyzerFor(name);
      let position = 0;
      let length = 0;
      for (const text of values) {
        position =
          analyzer.forEachTerm(text, position, (term, at) => {
            this.addTerm(field, term, docId, at);
            length++;
          }) + VALUE_POSITION_GAP;
      }
      while (field.lengths.length < docId) field.lengths.push(0);
      field.lengths.push(length);
      field.sumLength += length;
      if (length > 0) field.docCount++;
    }
    if (doc.numbers !== undefined) {
      for (const [name, value] of Object.entries(doc.numbers)) {
        let column = this.numbers.get(name);
        if (column === undefined) this.numbers.set(name, (column = []));
        while (column.length < docId) column.push(Number.NaN);
        column.push(value);
      }
    }
    this.scratch.reset();
    writeStoredRecord(this.scratch, { ...doc.stored, [KEY_FIELD]: doc.key });
    this.stored.push(this.scratch.toBytes());
    this.approximateBytes += this.scratch.length;
    this.changes++;
  }

  delete(key: string): void {
    this.supersede(key);
    this.changes++;
  }

  /** The newest live docId of `key` in this buffer. */
  liveDoc(key: string): number | undefined {
    return this.liveDocByKey.get(key);
  }

  private supersede(key: string): void {
    this.changedKeys.add(key);
    const previous = this.liveDocByKey.get(key);
    if (previous !== undefined) {
      this.killed.add(previous);
      this.liveDocByKey.delete(key);
    }
  }

  private field(name: string): FieldBuffer {
    let field = this.fields.get(name);
    if (field === undefined) {
      field = { positions: this.schema.hasPositions(name), terms: new Map(), lengths: [], sumLength: 0, docCount: 0 };
      this.fields.set(name, field);
    }
    return field;
  }

  private addTerm(field: FieldBuffer, term: string, docId: number, position: number): void {
    let postings = field.terms.get(term);
    if (postings === undefined) {
      postings = { docs: [], freqs: [], positions: [] };
      field.terms.set(term, postings);
      this.approximateBytes += 64 + term.length * 2;
    }
    const last = postings.docs.length - 1;
    if (last >= 0 && postings.docs[last] === docId) {
      postings.freqs[last]!++;
    } else {
      postings.docs.push(docId);
      postings.freqs.push(1);
      this.approximateBytes += 16;
    }
    if (field.positions) {
      postings.positions.push(position);
      this.approximateBytes += 8;
    }
  }
}
