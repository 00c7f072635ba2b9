import { ByteWriter } from '../store/byte-writer.js';
import { isKeywordField, KEY_FIELD, type DocumentInput } from '../document.js';
import type { Analyzer, TokenSink } from '../analysis/analyzer.js';
import { DROPPED, SpellingTable } from '../analysis/spelling-table.js';
import type { Schema } from '../schema.js';
import { StoredBlockWriter, writeStoredRecord, type StoredBlock } from './stored-record-codec.js';

/** Positions between two values of a multi-valued field, so a phrase never spans them. */
export const VALUE_POSITION_GAP = 100;

/** Largest chunk of the token stream (bytes); chunks start small so that small buffers stay small. */
const MAX_CHUNK = 1 << 18;
const FIRST_CHUNK = 1 << 12;
/** Room an entry may need: two VInts of up to 5 bytes. */
const MAX_ENTRY_BYTES = 10;
/** Bytes allocated at a time for compressed stored blocks. */
const STORED_CHUNK_BYTES = 1 << 18;
/** A rough cost of one term in memory: the string, its Map entry, its slot in `terms`. */
const TERM_OVERHEAD_BYTES = 64;

/** Arrays at least this large are allocated as {@link LARGE_ALLOCATION_BYTES} (see {@link largeArrayBuffer}). */
const LARGE_ARRAY_BYTES = 4 << 20;
/**
 * Larger than any chunk glibc's malloc serves from an arena (a thread's arena grows in heaps
 * of 64 MiB, and its mmap threshold stops rising at 32 MiB): such an allocation is a mapping
 * of its own, given back to the system as soon as it is freed, and only the pages written to
 * count in the resident size.
 */
const LARGE_ALLOCATION_BYTES = 65 << 20;

/**
 * Memory for a big array (an indexing buffer's chunks, a flush's sorted postings), so that it
 * goes back to the system when the array is dropped. Worker threads allocate and free such
 * arrays all the time; from malloc's arenas, the freed memory would stay with the process
 * (each thread's arena keeps its high-water mark), and an indexing process would keep
 * hundreds of MB it no longer uses. Small sizes are allocated as they are.
 */
export function largeArrayBuffer(bytes: number): ArrayBuffer {
  return new ArrayBuffer(bytes >= LARGE_ARRAY_BYTES ? Math.max(bytes, LARGE_ALLOCATION_BYTES) : bytes);
}

/**
 * Hands out the chunks of one buffer: small ones as arrays of their own while the buffer is
 * small, then slices of slabs from {@link largeArrayBuffer} (freed with the buffer).
 */
class BufferMemory {
  private slab: Uint8Array = new Uint8Array(0);
  private used = 0;
  private allocated = 0;

  bytes(size: number): Uint8Array {
    this.allocated += size;
    if (this.allocated < LARGE_ARRAY_BYTES) return new Uint8Array(size);
    if (this.used + size > this.slab.length) {
      this.slab = new Uint8Array(largeArrayBuffer(Math.max(size, LARGE_ALLOCATION_BYTES)));
      this.used = 0;
    }
    const chunk = this.slab.subarray(this.used, this.used + size);
    // 8-byte aligned, so that any typed array can view a chunk.
    this.used += (size + 7) & ~7;
    return chunk;
  }
}

/**
 * One field's postings while the buffer fills, kept as a stream of (termId, position) entries
 * in arrival order, plus the runs of entries that belong to each document (docs ascending,
 * positions ascending within a doc). Flushing sorts the stream by term with a stable counting
 * sort, which gives every term its postings in order.
 *
 * An entry is two VInts, the term id and the position's distance from the previous entry's
 * (Lucene keeps its indexing buffer as VInts too): frequent words have small ids and most
 * distances are 1, so an entry takes about 3 bytes where two ints would take 8, and a buffer
 * of a given size holds almost three times as many tokens (fewer, larger generations).
 *
 * Text fields receive raw tokens from the analyzer ({@link TokenSink}) and map them to term
 * ids through the thread's {@link SpellingTable} (a word seen before costs a hash over its
 * characters and a comparison, with no string built) and an array from the table's term ids
 * to this field's. Terms the table does not know (keyword fields, tokens it cannot hold) go
 * through a Map.
 */
export class FieldBuffer implements TokenSink {
  readonly positions: boolean;
  /** Terms by this field's term id. */
  readonly terms: string[] = [];
  /** Term → id, for terms not reached through the spelling table. */
  private readonly otherIds = new Map<string, number>();
  /** The entries, in chunks: `chunkEnds[i]` bytes of chunk i are used (the last: `fill`). */
  readonly chunks: Uint8Array[] = [];
  readonly chunkEnds: number[] = [];
  private chunk: Uint8Array = new Uint8Array(0);
  fill = 0;
  /** Number of entries. */
  count = 0;
  /**
   * Entries per term id (`termCounts.length` may exceed the number of terms): counted as
   * tokens arrive, so that the flush's counting sort reads the entry stream once, not twice.
   */
  termCounts = new Int32Array(1024);
  private lastPosition = 0;
  /** Documents that have entries, in arrival order, and the index of their first entry. */
  runDocs = new Int32Array(16);
  runStarts = new Int32Array(16);
  runCount = 0;
  private doc = -1;
  /** Per-document token count (text fields only), index = docId. */
  readonly lengths: number[] = [];
  sumLength = 0;
  docCount = 0;
  /** Memory held by this field, roughly (arrays allocated, terms, spellings). */
  bytesUsed = 0;

  /** Spelling → term of the analyzer (text fields), and the table's term id → this field's term id + 1. */
  private readonly spellings: SpellingTable | null;
  private localOf = new Int32Array(0);

  constructor(
    positions: boolean,
    /** The analyzer of a text field (null for keyword fields, which get terms, not tokens). */
    private readonly analyzer: Analyzer | null,
    spellings?: SpellingTable,
    /** Where its chunks come from (the buffer's). */
    private readonly memory: BufferMemory = new BufferMemory(),
  ) {
    this.positions = positions;
    this.spellings = analyzer === null ? null : (spellings ?? SpellingTable.for(analyzer));
  }

  /** Starts the entries of `docId` (documents arrive in ascending order). */
  beginDoc(docId: number): void {
    if (docId === this.doc) return;
    this.doc = docId;
    if (this.runCount === this.runDocs.length) {
      this.runDocs = grown(this.runDocs);
      this.runStarts = grown(this.runStarts);
      this.bytesUsed += this.runDocs.length * 4;
    }
    this.runDocs[this.runCount] = docId;
    this.runStarts[this.runCount] = this.count;
    this.runCount++;
    this.lastPosition = 0;
  }

  /** Adds a whole term (keyword fields). */
  addTerm(term: string, docId: number, position: number): void {
    this.beginDoc(docId);
    this.append(this.idOf(term), position);
  }

  /**
   * Gives an id to a term the caller knows is new to this field, without the term → id map
   * (the key field: the buffer already looks every key up once).
   */
  newTerm(term: string): number {
    this.terms.push(term);
    this.bytesUsed += TERM_OVERHEAD_BYTES + 2 * term.length;
    this.countTermsUpTo(this.terms.length);
    return this.terms.length - 1;
  }

  /** Makes room in `termCounts` for `termCount` terms. */
  private countTermsUpTo(termCount: number): void {
    if (termCount <= this.termCounts.length) return;
    const counts = new Int32Array(2 * termCount);
    counts.set(this.termCounts);
    this.bytesUsed += 4 * (counts.length - this.termCounts.length);
    this.termCounts = counts;
  }

  /** Adds a term by the id {@link newTerm} gave it. */
  addTermId(id: number, docId: number, position: number): void {
    this.beginDoc(docId);
    this.append(id, position);
  }

  /** A raw token of a text field, from the analyzer (see {@link TokenSink}). */
  token(text: string, start: number, end: number, kind: number, hash: number, position: number): void {
    let term = this.spellings!.lookup(text, start, end, kind, hash);
    if (term === DROPPED) return;
    if (term < 0) {
      // Not in the table: the slow path, through the term's string.
      const value = this.analyzer!.termOfToken(text, start, end, kind);
      if (value === null) return;
      const known = this.spellings!.termId(value);
      if (known === undefined) {
        this.append(this.idOf(value), position);
        return;
      }
      term = known;
    }
    const local = term < this.localOf.length ? this.localOf[term]! : 0;
    this.append(local > 0 ? local - 1 : this.idOfTableTerm(term), position);
  }

  /** First use of one of the table's terms in this field: gives it an id, remembered in `localOf`. */
  private idOfTableTerm(term: number): number {
    if (term >= this.localOf.length) {
      const localOf = new Int32Array(Math.max(1024, 2 * term));
      localOf.set(this.localOf);
      this.bytesUsed += 4 * (localOf.length - this.localOf.length);
      this.localOf = localOf;
    }
    const value = this.spellings!.terms[term]!;
    // A token the table could not hold may have brought the term in already.
    let id = this.otherIds.size > 0 ? this.otherIds.get(value) : undefined;
    if (id === undefined) {
      id = this.terms.length;
      this.terms.push(value);
      this.bytesUsed += TERM_OVERHEAD_BYTES;
      this.countTermsUpTo(this.terms.length);
    }
    this.localOf[term] = id + 1;
    return id;
  }

  private append(id: number, position: number): void {
    let chunk = this.chunk;
    let at = this.fill;
    if (at + MAX_ENTRY_BYTES > chunk.length) {
      chunk = this.newChunk();
      at = 0;
    }
    this.termCounts[id]!++;
    while (id > 0x7f) {
      chunk[at++] = (id & 0x7f) | 0x80;
      id >>>= 7;
    }
    chunk[at++] = id;
    if (this.positions) {
      let delta = position - this.lastPosition;
      this.lastPosition = position;
      while (delta > 0x7f) {
        chunk[at++] = (delta & 0x7f) | 0x80;
        delta >>>= 7;
      }
      chunk[at++] = delta;
    }
    this.fill = at;
    this.count++;
  }

  private newChunk(): Uint8Array {
    if (this.chunks.length > 0) this.chunkEnds.push(this.fill);
    const size = Math.min(MAX_CHUNK, Math.max(FIRST_CHUNK, 3 * this.count));
    this.chunk = this.memory.bytes(size);
    this.chunks.push(this.chunk);
    this.bytesUsed += size;
    this.fill = 0;
    return this.chunk;
  }

  /** The id of a term not reached through the spelling table. */
  private idOf(term: string): number {
    let id = this.otherIds.get(term);
    if (id === undefined) {
      // Also reached through the table already?
      const known = this.spellings?.termId(term);
      if (known !== undefined && known < this.localOf.length && this.localOf[known]! > 0)
        return this.localOf[known]! - 1;
      id = this.terms.length;
      this.otherIds.set(term, id);
      this.terms.push(term);
      this.bytesUsed += TERM_OVERHEAD_BYTES + 2 * term.length;
      this.countTermsUpTo(this.terms.length);
    }
    return id;
  }
}

function grown(array: Int32Array): Int32Array<ArrayBuffer> {
  const next = new Int32Array(Math.max(16, array.length * 2));
  next.set(array);
  return next;
}

/**
 * Stored records, compressed a block at a time as documents arrive (text is most of a
 * document: the buffer holds it about 3x smaller), the compressed blocks copied into large
 * shared chunks rather than kept as one small array each.
 */
class StoredBlocks {
  constructor(private readonly memory: BufferMemory) {}

  private readonly writer = new StoredBlockWriter((block) => this.keep(block));
  private readonly chunks: Uint8Array[] = [];
  private chunk: Uint8Array = new Uint8Array(0);
  private used = 0;
  /** Per block: firstDoc, chunk index, offset, length. */
  private refs = new Int32Array(64);
  private count = 0;
  private keptBytes = 0;

  add(record: Uint8Array): void {
    this.writer.add(record);
  }

  get bytesUsed(): number {
    return this.keptBytes + this.writer.pendingBytes;
  }

  /** Every block, the last one compressed now (later records would start a new block). */
  blocks(): StoredBlock[] {
    this.writer.finishBlock();
    const out: StoredBlock[] = [];
    for (let i = 0; i < this.count; i++) {
      const at = 4 * i;
      const offset = this.refs[at + 2]!;
      out.push({
        firstDoc: this.refs[at]!,
        bytes: this.chunks[this.refs[at + 1]!]!.subarray(offset, offset + this.refs[at + 3]!),
      });
    }
    return out;
  }

  private keep(block: StoredBlock): void {
    const length = block.bytes.length;
    if (this.used + length > this.chunk.length) {
      this.chunk = this.memory.bytes(Math.max(STORED_CHUNK_BYTES, length));
      this.chunks.push(this.chunk);
      this.used = 0;
      this.keptBytes += this.chunk.length;
    }
    this.chunk.set(block.bytes, this.used);
    if (4 * this.count === this.refs.length) this.refs = grown(this.refs);
    const at = 4 * this.count;
    this.refs[at] = block.firstDoc;
    this.refs[at + 1] = this.chunks.length - 1;
    this.refs[at + 2] = this.used;
    this.refs[at + 3] = length;
    this.used += length;
    this.count++;
  }
}

export interface GenerationBufferOptions {
  /** The spelling table of a text field's analyzer (tests); by default the thread's shared one. */
  spellings?: (analyzer: Analyzer) => SpellingTable;
}

/**
 * The in-memory generation that staged documents are inverted into as they arrive, so
 * that a commit only has to write files (Lucene's indexing buffer). Not searchable:
 * searchers only see published generations.
 */
export class GenerationBuffer {
  readonly fields = new Map<string, FieldBuffer>();
  readonly numbers = new Map<string, number[]>();
  private readonly memory = new BufferMemory();
  private readonly stored = new StoredBlocks(this.memory);
  readonly keys: string[] = [];
  /** docIds superseded inside this buffer (the same key put again, or deleted). */
  readonly killed = new Set<number>();
  /** Every key put or deleted here, in the order of their first change: older generations lose their copy at commit. */
  readonly changedKeys: string[] = [];
  /**
   * Key → its index in `changedKeys`, and per index the key's live docId here (-1: none) and
   * its term id in the key field (-1: none yet): one Map lookup per change.
   */
  private readonly keyIndex = new Map<string, number>();
  private liveOf = new Int32Array(64);
  private keyTermOf = new Int32Array(64);
  private readonly scratch = new ByteWriter(4096);
  private keyBytes = 0;
  /** Number of put and delete operations applied. */
  changes = 0;

  constructor(
    private readonly schema: Schema,
    private readonly options: GenerationBufferOptions = {},
  ) {}

  get docCount(): number {
    return this.keys.length;
  }

  /** The size of the buffer in memory, roughly, to decide when to flush it early. */
  get bytesUsed(): number {
    let bytes = this.stored.bytesUsed + this.keyBytes;
    for (const field of this.fields.values()) bytes += field.bytesUsed;
    return bytes;
  }

  get isEmpty(): boolean {
    return this.changes === 0;
  }

  /**
   * The stored records, compressed into `.fdt` blocks (see {@link StoredBlockWriter}). Call
   * once the buffer takes no more documents: the block being filled is compressed now.
   */
  storedBlocks(): StoredBlock[] {
    return this.stored.blocks();
  }

  put(doc: DocumentInput): void {
    const index = this.supersede(doc.key);
    const docId = this.keys.length;
    this.keys.push(doc.key);
    // The key sits in keys, keyIndex, changedKeys: three references and a string.
    this.keyBytes += 2 * doc.key.length + 96;
    this.liveOf[index] = docId;
    const keyField = this.field(KEY_FIELD);
    let term = this.keyTermOf[index]!;
    if (term < 0) this.keyTermOf[index] = term = keyField.newTerm(doc.key);
    keyField.addTermId(term, docId, 0);
    for (const [name, value] of Object.entries(doc.fields)) {
      if (name === KEY_FIELD) continue;
      const values: readonly string[] = typeof value === 'string' ? [value] : value;
      if (values.length === 0) continue;
      const field = this.field(name);
      if (isKeywordField(name)) {
        for (const term of values) field.addTerm(term, docId, 0);
        continue;
      }
      const analyzer = this.schema.analyzerFor(name);
      field.beginDoc(docId);
      const countBefore = field.count;
      let position = 0;
      for (const text of values) position = analyzer.forEachToken(text, position, field) + VALUE_POSITION_GAP;
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
    this.stored.add(this.scratch.view0());
    this.changes++;
  }

  delete(key: string): void {
    this.supersede(key);
    this.changes++;
  }

  /** The newest live docId of `key` in this buffer. */
  liveDoc(key: string): number | undefined {
    const index = this.keyIndex.get(key);
    const live = index === undefined ? -1 : this.liveOf[index]!;
    return live < 0 ? undefined : live;
  }

  /** Kills the key's live document here, if any; returns the key's index. */
  private supersede(key: string): number {
    let index = this.keyIndex.get(key);
    if (index === undefined) {
      index = this.changedKeys.length;
      this.changedKeys.push(key);
      this.keyIndex.set(key, index);
      if (index === this.liveOf.length) {
        this.liveOf = grown(this.liveOf);
        this.keyTermOf = grown(this.keyTermOf);
      }
      this.liveOf[index] = -1;
      this.keyTermOf[index] = -1;
      return index;
    }
    const previous = this.liveOf[index]!;
    if (previous >= 0) {
      this.killed.add(previous);
      this.liveOf[index] = -1;
    }
    return index;
  }

  private field(name: string): FieldBuffer {
    let field = this.fields.get(name);
    if (field === undefined) {
      const analyzer = isKeywordField(name) ? null : this.schema.analyzerFor(name);
      field = new FieldBuffer(
        this.schema.hasPositions(name),
        analyzer,
        analyzer === null ? undefined : this.options.spellings?.(analyzer),
        this.memory,
      );
      this.fields.set(name, field);
    }
    return field;
  }
}
