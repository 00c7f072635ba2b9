import { BoundedMap } from '../../bounded-map.js';
import { CorruptIndexError } from '../../errors.js';
import { ByteReader } from '../store/byte-reader.js';
import { openCodecFile, readCodecFile } from '../store/codec-file.js';
import type { Directory, IndexInput } from '../store/directory.js';
import { SharedBytesDirectory, SharingDirectory } from '../store/shared-bytes.js';
import type { StoredRecord } from '../document.js';
import type { PostingsIterator } from '../generation-view.js';
import {
  BlockPostingsIterator,
  parsePostingsShape,
  type PositionsSource,
  type PostingsShape,
} from './block-postings-iterator.js';
import {
  CODEC_GENERATION,
  CODEC_NORMS,
  CODEC_POSITIONS,
  CODEC_POSTINGS,
  CODEC_STORED,
  CODEC_TERMS,
  FORMAT_VERSION,
  generationFile,
  POSTINGS_BLOCK_SIZE,
  POSTINGS_FORMAT_VERSION,
  STORED_FORMAT_VERSION,
  type FieldMeta,
  type GenerationMeta,
} from './generation-files.js';
import { decodedBlocks, type DecodedBlock } from './decoded-block-cache.js';
import { decompressStoredBlock, readStoredRecord } from './stored-record-codec.js';
import { TermDictionaryReader, type TermInfo } from './term-dictionary-reader.js';
import { TermFilter, termHash } from './term-filter.js';
import type { TermProbes } from './term-probes.js';

/**
 * Postings (`.doc`) and positions (`.pos`) files up to this size are kept in memory; bigger
 * ones are read with pread. About 0.7 KB per document of RFC text for both together.
 */
const POSTINGS_IN_MEMORY_BYTES = 512 * 1024 * 1024;
/** Terms a reader's cache keeps per field: the 4,096 most recently used, at most 8,192 in all. */
const TERM_CACHE_ENTRIES = 4096;
/** Parsed long postings lists a reader keeps: the 1,024 most recently used, at most 2,048 in all. */
const SHAPE_CACHE_ENTRIES = 1024;

/** How a {@link GenerationReader} reads its files. */
export interface GenerationReaderOptions {
  /**
   * `.doc` and `.pos` files up to this many bytes are held in memory, bigger ones read with
   * pread (default 512 MiB; tests lower it to exercise the pread path).
   */
  postingsInMemoryUpTo?: number;
  /**
   * Hold the files read whole (terms, norms, metadata, postings held in memory) in shared
   * memory, so that search threads read them without copies ({@link GenerationReader.shared}).
   */
  share?: boolean;
}

/**
 * What a search thread needs to read a generation another thread opened: the files held in
 * shared memory (verified at that open) and the folder for the rest (stored records).
 */
export interface SharedGeneration {
  /** Unique in the process: a reopened folder's generation gets a new one. */
  readonly id: number;
  readonly generation: number;
  /** The index folder. */
  readonly path: string;
  readonly files: ReadonlyMap<string, Uint8Array>;
  /** Limit of in-memory postings the opener used (the search thread reads the same way). */
  readonly postingsInMemoryUpTo: number;
  /** The bits of the {@link FILTERED_FIELD}'s term filter, in shared memory (built at the open). */
  readonly termFilter: Uint32Array;
}

let nextSharedId = 1;
/** Numbers readers of this thread in the decoded-block cache. */
let nextReaderNumber = 1;
const sharedCloseListeners = new Set<(id: number) => void>();

/**
 * Calls `listener` with the {@link SharedGeneration.id} of every shared reader that closes
 * (search threads drop their views of it then). Returns the function that removes it.
 */
export function onSharedReaderClosed(listener: (id: number) => void): () => void {
  sharedCloseListeners.add(listener);
  return () => sharedCloseListeners.delete(listener);
}

/**
 * The field whose terms are filtered ({@link TermFilter}) before they are probed: "did you
 * mean" probes the edits of a word in the body.
 */
const FILTERED_FIELD = 'body';

/** Files a shared reader holds in memory (`.fdt`, read a few blocks per query, is read with pread). */
const SHARED_EXTENSIONS = new Set(['tim', 'doc', 'pos', 'nrm', 'gen']);

interface CachedTerm {
  info: TermInfo;
  /** Parsed when the term's postings are first opened. */
  shape: PostingsShape | null;
}

/** Where a stored block lies in `.fdt` (its first docId is in `storedFirstDocs`). */
interface StoredBlock {
  offset: number;
  length: number;
}

/**
 * The immutable files of one generation, opened and verified (every checksum is checked at
 * open, so a corrupted file is found before it answers queries). Shared by every searcher
 * that includes the generation; killed bits are not part of it (they change per manifest).
 */
export class GenerationReader {
  readonly meta: GenerationMeta;
  readonly generation: number;
  readonly maxDoc: number;
  private readonly dictionary: TermDictionaryReader;
  private readonly docInput: IndexInput;
  private readonly posInput: IndexInput;
  /** The whole `.doc` file when it is held in memory (lists are then read in place), else null. */
  private readonly docBytes: Uint8Array | null;
  private readonly docView: DataView | null;
  private readonly positionsSource: PositionsSource;
  private readonly storedInput: IndexInput;
  /** Format version of the `.fdt` file: decides its block compression. */
  private readonly storedVersion: number;
  private readonly lengths = new Map<string, Uint32Array>();
  private readonly numbers = new Map<string, Float64Array>();
  private readonly fieldMeta = new Map<string, FieldMeta>();
  private readonly storedBlocks: StoredBlock[] = [];
  /**
   * Each stored block's first docId, in order: what a record's block is searched in. One
   * typed array rather than the blocks' objects, which lie apart on the heap: a binary search
   * over ~50,000 of them (a generation of 150,000 RFC pages) missed the cache at every step.
   */
  private storedFirstDocs: Int32Array = new Int32Array(0);
  /**
   * Recently used terms per field (between {@link TERM_CACHE_ENTRIES} and twice as many, see
   * BoundedMap), with their parsed postings shape once opened: queries look the same terms up
   * again and again (statistics, then postings, per query), and nested maps save building a
   * key string per lookup. A term no query named before enters it at no eviction cost.
   */
  private readonly termCache = new Map<string, BoundedMap<string, CachedTerm | null>>();
  /** Parsed skip tables of recently used long postings lists, by their offset (see {@link SHAPE_CACHE_ENTRIES}). */
  private readonly shapes = new BoundedMap<number, PostingsShape>(SHAPE_CACHE_ENTRIES);
  /** The block read last (a merge reads one block's records in turn); others are in {@link decodedBlocks}. */
  private cachedBlock: { index: number; block: DecodedBlock } | undefined;
  /** This reader in the thread's decoded-block cache. */
  private readonly number = nextReaderNumber++;
  private closed = false;
  /** How another thread reads this generation from the same memory (null: not opened to share). */
  readonly shared: SharedGeneration | null = null;
  /**
   * The {@link FILTERED_FIELD}'s term filter: built when the generation is opened to share
   * (search threads read the opener's), else at the first {@link probeDocFreqs} (merges never
   * build one).
   */
  private termFilter: TermFilter | undefined;

  static open(dir: Directory, generation: number, options: GenerationReaderOptions = {}): GenerationReader {
    const inMemoryUpTo = options.postingsInMemoryUpTo ?? POSTINGS_IN_MEMORY_BYTES;
    if (options.share !== true) return new GenerationReader(dir, generation, inMemoryUpTo, true);
    const sharing = new SharingDirectory(dir, (name) => {
      const extension = name.slice(name.lastIndexOf('.') + 1);
      if (!SHARED_EXTENSIONS.has(extension)) return false;
      // Postings too large to hold in memory are read with pread by every thread (the page cache is shared).
      return (extension !== 'doc' && extension !== 'pos') || dir.fileLength(name) <= inMemoryUpTo;
    });
    const reader = new GenerationReader(sharing, generation, inMemoryUpTo, true);
    // Built once here for every search thread (a pass over the dictionary: ~18 ms for the
    // 233,000 body terms of the RFC collection's largest generation, beside ~270 ms to read
    // and verify its files above).
    const filter = reader.buildTermFilter(true);
    reader.termFilter = filter;
    (reader as { shared: SharedGeneration | null }).shared = {
      id: nextSharedId++,
      generation,
      path: dir.path,
      files: sharing.sharedFiles(),
      postingsInMemoryUpTo: inMemoryUpTo,
      termFilter: filter.words,
    };
    return reader;
  }

  /**
   * Opens a generation from memory another thread shared ({@link GenerationReader.shared}):
   * no copy of the shared files, no second checksum pass; stored records through a file
   * handle of this thread's own.
   */
  static openShared(shared: SharedGeneration): GenerationReader {
    const reader = new GenerationReader(
      new SharedBytesDirectory(shared.path, shared.files),
      shared.generation,
      shared.postingsInMemoryUpTo,
      false,
    );
    reader.termFilter = new TermFilter(shared.termFilter);
    return reader;
  }

  private constructor(dir: Directory, generation: number, inMemoryUpTo: number, verify: boolean) {
    const metaName = generationFile(generation, 'gen');
    const { body } = readCodecFile(dir, metaName, CODEC_GENERATION, FORMAT_VERSION, { verify });
    try {
      this.meta = JSON.parse(new TextDecoder().decode(body)) as GenerationMeta;
    } catch (error) {
      throw new CorruptIndexError(metaName, 'metadata is not valid JSON', { cause: error });
    }
    this.generation = generation;
    this.maxDoc = this.meta.docCount;
    for (const field of this.meta.fields) this.fieldMeta.set(field.name, field);
    const opened: IndexInput[] = [];
    try {
      const terms = readCodecFile(dir, generationFile(generation, 'tim'), CODEC_TERMS, FORMAT_VERSION, {
        verify,
      });
      const termsStart = dir.fileLength(generationFile(generation, 'tim')) - 8 - terms.body.length;
      this.dictionary = withFile(
        generationFile(generation, 'tim'),
        () => new TermDictionaryReader(terms.body, termsStart),
      );
      // Postings and positions are read on every query: held in memory (up to a size per file).
      this.docInput = openPostingsFile(
        dir,
        generationFile(generation, 'doc'),
        CODEC_POSTINGS,
        inMemoryUpTo,
        verify,
      );
      opened.push(this.docInput);
      this.posInput = openPostingsFile(
        dir,
        generationFile(generation, 'pos'),
        CODEC_POSITIONS,
        inMemoryUpTo,
        verify,
      );
      opened.push(this.posInput);
      // In memory: lists are read in place (no read, no copy per query); else with pread.
      this.docBytes =
        this.docInput.length <= inMemoryUpTo ? this.docInput.read(0, this.docInput.length) : null;
      this.docView = this.docBytes === null ? null : viewOf(this.docBytes);
      this.positionsSource =
        this.posInput.length <= inMemoryUpTo
          ? { view: viewOf(this.posInput.read(0, this.posInput.length)) }
          : { input: this.posInput };
      const stored = openCodecFile(
        dir,
        generationFile(generation, 'fdt'),
        CODEC_STORED,
        STORED_FORMAT_VERSION,
        { verify },
      );
      this.storedInput = stored.input;
      this.storedVersion = stored.version;
      opened.push(this.storedInput);
      withFile(stored.input.name, () => this.readStoredIndex(stored.bodyEnd));
      const norms = readCodecFile(dir, generationFile(generation, 'nrm'), CODEC_NORMS, FORMAT_VERSION, {
        verify,
      });
      withFile(generationFile(generation, 'nrm'), () => this.readNorms(norms.body));
    } catch (error) {
      for (const input of opened) input.close();
      throw error;
    }
  }

  fieldMetaOf(field: string): FieldMeta | undefined {
    return this.fieldMeta.get(field);
  }

  fieldNames(): string[] {
    return this.dictionary.fieldNames();
  }

  fieldLengths(field: string): Uint32Array | null {
    return this.lengths.get(field) ?? null;
  }

  numericValues(field: string): Float64Array | null {
    return this.numbers.get(field) ?? null;
  }

  termInfo(field: string, term: string): TermInfo | undefined {
    return this.cachedTerm(field, term)?.info;
  }

  /**
   * The docFreq of a term asked once (see GenerationView.probeDocFreq): from the term cache
   * when it holds the term, else from the dictionary without entering the cache.
   */
  probeDocFreq(field: string, term: string): number {
    const cached = this.termCache.get(field)?.peek(term);
    if (cached !== undefined) return cached === null ? 0 : cached.info.docFreq;
    return this.dictionary.docFreqOf(field, term);
  }

  /**
   * {@link probeDocFreq} of many terms, added to `out` (see GenerationView.probeDocFreqs):
   * from the dictionary alone, which holds the same docFreqs as the term cache; in the
   * {@link FILTERED_FIELD}, only the terms its term filter lets through.
   */
  probeDocFreqs(field: string, probes: TermProbes, out: Int32Array): void {
    if (field !== FILTERED_FIELD) return this.dictionary.addDocFreqs(field, probes, out);
    this.termFilter ??= this.buildTermFilter(false);
    this.dictionary.addDocFreqs(field, probes, out, this.termFilter);
  }

  private buildTermFilter(shared: boolean): TermFilter {
    const filter = TermFilter.sized(this.dictionary.termCount(FILTERED_FIELD), shared);
    this.dictionary.forEachTermBytes(FILTERED_FIELD, (bytes, length) =>
      filter.add(termHash(bytes, 0, length)),
    );
    return filter;
  }

  postings(field: string, term: string, withPositions: boolean): PostingsIterator | null {
    const cached = this.cachedTerm(field, term);
    if (cached === null) return null;
    // A field indexed without positions has none to give (its lists have no `.pos` runs).
    const positions = withPositions && this.fieldMeta.get(field)?.positions === true;
    const iterator = this.postingsOf(cached.info, positions, cached.shape);
    cached.shape = iterator.shape;
    return iterator;
  }

  postingsOf(
    info: TermInfo,
    withPositions: boolean,
    knownShape: PostingsShape | null = null,
  ): BlockPostingsIterator {
    let bytes = this.docBytes;
    let view = this.docView;
    let base = info.docStart;
    if (bytes === null || view === null) {
      bytes = this.docInput.read(info.docStart, info.docLength);
      view = viewOf(bytes);
      base = 0;
    }
    let shape = knownShape;
    const long = info.docFreq > POSTINGS_BLOCK_SIZE;
    if (shape === null && long) shape = this.shapes.get(info.docStart) ?? null;
    if (shape === null) {
      shape = parsePostingsShape(bytes, base, info.docLength, info.docFreq, info.posStart);
      if (long) this.shapes.set(info.docStart, shape);
    }
    return new BlockPostingsIterator(view, base, shape, withPositions ? this.positionsSource : null);
  }

  private cachedTerm(field: string, term: string): CachedTerm | null {
    let perField = this.termCache.get(field);
    if (perField === undefined) {
      perField = new BoundedMap(TERM_CACHE_ENTRIES);
      this.termCache.set(field, perField);
    }
    let cached = perField.get(term);
    if (cached === undefined) {
      const info = this.dictionary.lookup(field, term);
      cached = info === undefined ? null : { info, shape: null };
      perField.set(term, cached);
    }
    return cached;
  }

  termsWithPrefix(field: string, prefix: string, limit: number): string[] {
    const out: string[] = [];
    if (limit <= 0) return out;
    this.dictionary.forEachTermFrom(field, prefix, (term) => {
      if (!term.startsWith(prefix)) return false;
      out.push(term);
      return out.length < limit;
    });
    return out;
  }

  /** Every term of a field with its postings location, in order (merges). */
  terms(field: string): Iterable<[string, TermInfo]> {
    return this.dictionary.terms(field);
  }

  /**
   * Decodes one document's stored record (with `fields`, only those of its fields; with
   * `maxChars`, only the start of some strings: see `readStoredRecord`).
   */
  stored(docId: number, fields?: ReadonlySet<string>, maxChars?: ReadonlyMap<string, number>): StoredRecord {
    return readStoredRecord(new ByteReader(this.storedRecordBytes(docId)), fields, maxChars);
  }

  /**
   * The `.fdt` blocks as they are on disk (still compressed), in docId order, when they are in
   * the current format (`STORED_FORMAT_VERSION`); null for an older format. A merge copies the
   * blocks of an input without killed documents instead of decompressing and compressing
   * every record again.
   */
  compressedStoredBlocks(): Iterable<{ firstDoc: number; bytes: Uint8Array }> | null {
    if (this.storedVersion !== STORED_FORMAT_VERSION) return null;
    const { storedBlocks, storedFirstDocs, storedInput } = this;
    return (function* () {
      for (let b = 0; b < storedBlocks.length; b++) {
        const block = storedBlocks[b]!;
        yield { firstDoc: storedFirstDocs[b]!, bytes: storedInput.read(block.offset, block.length) };
      }
    })();
  }

  /** The encoded stored record (merges copy it without decoding). */
  storedRecordBytes(docId: number): Uint8Array {
    if (docId < 0 || docId >= this.maxDoc)
      throw new RangeError(`docId ${docId} out of range 0..${this.maxDoc - 1}`);
    const blockIndex = findBlock(this.storedFirstDocs, docId);
    let block = this.cachedBlock?.index === blockIndex ? this.cachedBlock.block : undefined;
    if (block === undefined) {
      block = decodedBlocks.get(this.number, blockIndex) ?? this.decodeBlock(blockIndex);
      this.cachedBlock = { index: blockIndex, block };
    }
    const i = docId - this.storedFirstDocs[blockIndex]!;
    return block.bytes.subarray(block.starts[i]!, block.ends[i]!);
  }

  /** Decompresses a stored block and finds its records; the thread's cache keeps it. */
  private decodeBlock(blockIndex: number): DecodedBlock {
    const stored = this.storedBlocks[blockIndex]!;
    const decompressed = decompressStoredBlock(
      this.storedInput.read(stored.offset, stored.length),
      this.storedVersion,
    );
    // A plain Uint8Array over the Buffer's bytes: a record's strings are views cut from it,
    // and a Buffer's subarray costs several times a typed array's.
    const bytes = new Uint8Array(decompressed.buffer, decompressed.byteOffset, decompressed.byteLength);
    const firstDocs = this.storedFirstDocs;
    const count =
      (blockIndex + 1 < firstDocs.length ? firstDocs[blockIndex + 1]! : this.maxDoc) - firstDocs[blockIndex]!;
    const starts = new Int32Array(count);
    const ends = new Int32Array(count);
    const reader = new ByteReader(bytes);
    for (let i = 0; i < starts.length; i++) {
      const length = reader.readVInt();
      starts[i] = reader.pos;
      reader.pos += length;
      ends[i] = reader.pos;
    }
    const block = { bytes, starts, ends };
    decodedBlocks.set(this.number, blockIndex, block);
    return block;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.docInput.close();
    this.posInput.close();
    this.storedInput.close();
    this.cachedBlock = undefined;
    decodedBlocks.forget(this.number);
    if (this.shared !== null) for (const listener of sharedCloseListeners) listener(this.shared.id);
  }

  private readStoredIndex(bodyEnd: number): void {
    const tail = this.storedInput.read(bodyEnd - 8, 8);
    const indexOffset = new DataView(tail.buffer, tail.byteOffset, 8).getFloat64(0, true);
    const index = new ByteReader(this.storedInput.read(indexOffset, bodyEnd - 8 - indexOffset));
    const blocks = index.readVInt();
    this.storedFirstDocs = new Int32Array(blocks);
    for (let b = 0; b < blocks; b++) {
      this.storedFirstDocs[b] = index.readVInt();
      this.storedBlocks.push({ offset: index.readVInt(), length: index.readVInt() });
    }
  }

  private readNorms(body: Uint8Array): void {
    const input = new ByteReader(body);
    const docCount = input.readVInt();
    if (docCount !== this.maxDoc)
      throw new RangeError(`norms for ${docCount} documents, generation has ${this.maxDoc}`);
    const fields = input.readVInt();
    for (let f = 0; f < fields; f++) {
      const name = input.readString();
      const bytes = input.readBytes(docCount * 4);
      const values = new Uint32Array(docCount);
      new Uint8Array(values.buffer).set(bytes);
      this.lengths.set(name, values);
    }
    const numeric = input.readVInt();
    for (let f = 0; f < numeric; f++) {
      const name = input.readString();
      const bytes = input.readBytes(docCount * 8);
      const values = new Float64Array(docCount);
      new Uint8Array(values.buffer).set(bytes);
      this.numbers.set(name, values);
    }
  }
}

/**
 * Opens `.doc` or `.pos`. Only the current postings format is read: an older one would be
 * decoded as garbage, so it is rejected with a message that says what to do.
 */
function openPostingsFile(
  dir: Directory,
  name: string,
  codec: string,
  inMemoryUpTo: number,
  verify: boolean,
): IndexInput {
  const opened = openCodecFile(dir, name, codec, POSTINGS_FORMAT_VERSION, { inMemoryUpTo, verify });
  if (opened.version !== POSTINGS_FORMAT_VERSION) {
    opened.input.close();
    throw new CorruptIndexError(
      name,
      `postings format version ${opened.version} was written by an older build; this build reads version ` +
        `${POSTINGS_FORMAT_VERSION} only: re-index the collection (push its documents again into a new one)`,
    );
  }
  return opened.input;
}

function viewOf(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** The index of the last block whose first docId is at most `docId` (`firstDocs` ascending). */
function findBlock(firstDocs: Int32Array, docId: number): number {
  let low = 0;
  let high = firstDocs.length - 1;
  while (low < high) {
    const mid = (low + high + 1) >>> 1;
    if (firstDocs[mid]! <= docId) low = mid;
    else high = mid - 1;
  }
  return low;
}

/** Turns a decoding failure inside a verified file into an error that names the file. */
function withFile<T>(name: string, read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof CorruptIndexError) throw error;
    throw new CorruptIndexError(name, `unreadable content (${(error as Error).message})`, { cause: error });
  }
}
