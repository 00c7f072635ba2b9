import { ByteWriter } from '../store/byte-writer.js';
import { isKeywordField, KEY_FIELD, type DocumentInput } from '../document.js';
import type { Schema } from '../schema.js';
import { writeStoredRecord } from './stored-record-codec.js';

/** Positions between two values of a multi-valued field, so a phrase never spans them. */
export const VALUE_POSITION_GAP = 100;

/**
 * One field's postings while the buffer fills, kept as a stream of (termId, docId, position)
 * entries in arrival order (docs ascending, positions ascending within a doc). Flushing sorts
 * the stream by term with a stable counting sort, which gives every term its postings in
 * order: per token, indexing costs one map lookup and three typed-array writes.
 */
export class FieldBuffer {
  readonly positions: boolean;
  readonly termIds = new Map<string, number>();
  readonly terms: string[] = [];
  ids = new Int32Array(1024);
  docs = new Int32Array(1024);
  positionsOf: Int32Array;
  count = 0;
  /** Per-document token count (text fields only), index = docId. */
  readonly lengths: number[] = [];
  sumLength = 0;
  docCount = 0;

  constructor(positions: boolean) {
    this.positions = positions;
    this.positionsOf = new Int32Array(positions ? 1024 : 0);
  }

  add(term: string, docId: number, position: number): void {
    let id = this.termIds.get(term);
    if (id === undefined) {
      id = this.terms.length;
      this.termIds.set(term, id);
      this.terms.push(term);
    }
    const at = this.count;
    if (at === this.ids.length) this.grow();
    this.ids[at] = id;
    this.docs[at] = docId;
    if (this.positions) this.positionsOf[at] = position;
    this.count = at + 1;
  }

  private grow(): void {
    const size = this.ids.length * 2;
    const ids = new Int32Array(size);
    ids.set(this.ids);
    this.ids = ids;
    const docs = new Int32Array(size);
    docs.set(this.docs);
    this.docs = docs;
    if (this.positions) {
      const positions = new Int32Array(size);
      positions.set(this.positionsOf);
      this.positionsOf = positions;
    }
  }
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
    this.field(KEY_FIELD).add(doc.key, docId, 0);
    const before = this.tokenCount();
    for (const [name, value] of Object.entries(doc.fields)) {
      if (name === KEY_FIELD) continue;
      const values: readonly string[] = typeof value === 'string' ? [value] : value;
      if (values.length === 0) continue;
      const field = this.field(name);
      if (isKeywordField(name)) {
        for (const term of values) field.add(term, docId, 0);
        continue;
      }
      const analyzer = this.schema.analyzerFor(name);
      const add = (term: string, at: number) => field.add(term, docId, at);
      const countBefore = field.count;
      let position = 0;
      for (const text of values) position = analyzer.forEachTerm(text, position, add) + VALUE_POSITION_GAP;
      const length = field.count - countBefore;
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
    this.approximateBytes += this.scratch.length + 12 * (this.tokenCount() - before) + 64;
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
      field = new FieldBuffer(this.schema.hasPositions(name));
      this.fields.set(name, field);
    }
    return field;
  }

  private tokenCount(): number {
    let count = 0;
    for (const field of this.fields.values()) count += field.count;
    return count;
  }
}
