/**
 * Names and format versions of a generation's files. One generation `N` is:
 *
 * - `gN.tim`  term dictionary: per field, sorted terms in blocks of {@link TERMS_PER_BLOCK},
 *             prefix-compressed, each with its docFreq and where its postings lie; an index of
 *             every block's first term at the end (kept in memory by readers).
 * - `gN.doc`  postings of each term: list-wide max freq and min field length; for lists longer
 *             than one block a skip table (last doc, byte lengths, block max freq, block min
 *             length: the block-max data of dynamic pruning); then blocks of
 *             {@link POSTINGS_BLOCK_SIZE} documents, doc-id gaps and freqs bit-packed.
 * - `gN.pos`  positions: per block of each list, its documents' positions bit-packed.
 *             (`.doc` and `.pos` in detail: the comment at the top of `generation-writer.ts`.)
 * - `gN.nrm`  per text field the token count of every document (uint32), and numeric columns.
 * - `gN.fdt`  stored records in compressed blocks (brotli; deflate in version 1), with a block index at the end.
 * - `gN.gen`  the generation's metadata (JSON): doc count, fields and their statistics, files.
 * - `gN_D.del` killed-document bits written by commit D (a new file each time: files are never
 *             changed once written).
 *
 * Every file is framed by `codec-file.ts` (header with format version, CRC-32 footer).
 */
export const POSTINGS_BLOCK_SIZE = 128;
export const TERMS_PER_BLOCK = 32;

export const CODEC_TERMS = 'pushsearch.terms';
export const CODEC_POSTINGS = 'pushsearch.postings';
export const CODEC_POSITIONS = 'pushsearch.positions';
export const CODEC_NORMS = 'pushsearch.norms';
export const CODEC_STORED = 'pushsearch.stored';
export const CODEC_GENERATION = 'pushsearch.generation';
export const CODEC_KILLED = 'pushsearch.killed';
export const FORMAT_VERSION = 1;
/**
 * Format version of `.doc` and `.pos` (see the format comment of `generation-writer.ts`).
 * 2: bit-packed blocks with absolute positions; 1 (varint blocks) is no longer read.
 */
export const POSTINGS_FORMAT_VERSION = 2;
/**
 * Format version of `.fdt` (stored records). 2: blocks compressed with brotli at quality 1
 * (less CPU than deflate level 1 on RFC text), of about `STORED_BLOCK_BYTES` (16 KiB; blocks
 * of other sizes, such as the 32 KiB ones written before, read the same); 1: blocks of about
 * 16 KiB of raw deflate, still read.
 */
export const STORED_FORMAT_VERSION = 2;

export const GENERATION_EXTENSIONS = ['tim', 'doc', 'pos', 'nrm', 'fdt', 'gen'] as const;

export function generationFile(
  generation: number,
  extension: (typeof GENERATION_EXTENSIONS)[number],
): string {
  return `g${generation}.${extension}`;
}

export function killedFile(generation: number, deleteGeneration: number): string {
  return `g${generation}_${deleteGeneration}.del`;
}

/** Generation number of any generation file name (`g12.doc`, `g12_3.del`), else undefined. */
export function generationOfFile(name: string): number | undefined {
  const match = /^g(\d+)(?:_\d+\.del|\.(?:tim|doc|pos|nrm|fdt|gen))$/.exec(name);
  return match === null ? undefined : Number(match[1]);
}

export interface FieldMeta {
  name: string;
  positions: boolean;
  /** Sum of token counts over documents, and documents with at least one token. */
  sumLength: number;
  docCount: number;
  hasLengths: boolean;
}

/** Content of `gN.gen`. */
export interface GenerationMeta {
  generation: number;
  docCount: number;
  fields: FieldMeta[];
  numericFields: string[];
  files: string[];
  sizeBytes: number;
  /** Killed bits written together with the generation (documents superseded inside it). */
  createdAt: string;
}
