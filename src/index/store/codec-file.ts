import { crc32 } from 'node:zlib';
import { CorruptIndexError } from '../../errors.js';
import { ByteReader } from './byte-reader.js';
import { ByteWriter } from './byte-writer.js';
import type { Directory, IndexInput, IndexOutput } from './directory.js';

/**
 * Framing shared by every file the index writes:
 *
 *   header  = magic "PSH1" (4 bytes) · codec name (string) · format version (vint)
 *   body    = codec specific
 *   footer  = magic "PSF1" (4 bytes) · CRC-32 of every byte before the CRC (uint32 LE)
 *
 * A reader checks the header (right codec, known version) and the footer (checksum), and
 * rejects anything else with a {@link CorruptIndexError} that names the file.
 */
const HEADER_MAGIC = 0x31485350; // "PSH1" little-endian
const FOOTER_MAGIC = 0x31465350; // "PSF1"
export const FOOTER_LENGTH = 8;

/** An output that frames its content and keeps a running checksum. */
export class CodecOutput {
  private crc = 0;
  private closed = false;
  private readonly out: IndexOutput;
  private readonly scratch = new ByteWriter(64);

  constructor(out: IndexOutput, codec: string, version: number) {
    this.out = out;
    this.scratch.writeUint32(HEADER_MAGIC);
    this.scratch.writeString(codec);
    this.scratch.writeVInt(version);
    this.write(this.scratch.toBytes());
  }

  get name(): string {
    return this.out.name;
  }

  /** Bytes written so far, header included: offsets stored in files are relative to the file start. */
  get position(): number {
    return this.out.position;
  }

  write(bytes: Uint8Array): void {
    if (bytes.length === 0) return;
    this.crc = crc32(bytes, this.crc);
    this.out.write(bytes);
  }

  /** Writes the footer and closes the file (the handle is released even when the footer cannot be written). */
  close(): void {
    if (this.closed) return;
    const footer = new ByteWriter(8);
    footer.writeUint32(FOOTER_MAGIC);
    this.crc = crc32(footer.view0(), this.crc);
    footer.writeUint32(this.crc);
    try {
      this.out.write(footer.view0());
    } catch (error) {
      try {
        this.abandon();
      } catch {
        // The write's error is the one to report.
      }
      throw error;
    }
    this.closed = true;
    this.out.close();
  }

  /**
   * Closes the file, unless it is closed already, without its footer: a writer that fails or
   * is stopped half-way releases its file handles, and the file stays incomplete (every reader
   * rejects a file without a footer; the index removes such leftovers).
   */
  abandon(): void {
    if (this.closed) return;
    this.closed = true;
    this.out.close();
  }
}

export function createCodecOutput(dir: Directory, name: string, codec: string, version: number): CodecOutput {
  const out = dir.createOutput(name);
  try {
    return new CodecOutput(out, codec, version);
  } catch (error) {
    // The header could not be written: nobody else holds the handle to release it.
    out.close();
    throw error;
  }
}

/** Writes a small file in one go: header, body, footer. */
export function writeCodecFile(
  dir: Directory,
  name: string,
  codec: string,
  version: number,
  body: Uint8Array,
): void {
  const out = createCodecOutput(dir, name, codec, version);
  try {
    out.write(body);
  } catch (error) {
    try {
      out.abandon();
    } catch {
      // The write's error is the one to report.
    }
    throw error;
  }
  out.close();
}

export interface OpenedCodecFile {
  input: IndexInput;
  version: number;
  /** Offset of the first body byte. */
  bodyStart: number;
  /** Offset just past the last body byte (the footer starts here). */
  bodyEnd: number;
}

/**
 * Opens a file, verifies its header and its checksum over the whole file, and returns
 * where its body lies. Reading every byte once at open is the price of detecting a
 * corrupted live index before it answers wrong results.
 */
export function openCodecFile(
  dir: Directory,
  name: string,
  codec: string,
  maxVersion: number,
  options: { inMemoryUpTo?: number; verify?: boolean } = {},
): OpenedCodecFile {
  let input: IndexInput;
  try {
    input =
      dir.fileLength(name) <= (options.inMemoryUpTo ?? -1)
        ? memoryInput(name, dir.readFile(name))
        : dir.openInput(name);
  } catch (error) {
    throw new CorruptIndexError(name, `cannot open: ${(error as Error).message}`, { cause: error });
  }
  try {
    const { version, bodyStart } = checkHeader(name, input, codec, maxVersion);
    // Off only for bytes another reader of this process verified already (search threads).
    if (options.verify !== false) verifyChecksum(name, input);
    return { input, version, bodyStart, bodyEnd: input.length - FOOTER_LENGTH };
  } catch (error) {
    input.close();
    throw error;
  }
}

/**
 * Checks a codec file of any codec: header magic, footer and the checksum over every byte.
 * Throws `CorruptIndexError` naming the file (restore verifies a snapshot with it).
 */
export function verifyCodecFile(dir: Directory, name: string): void {
  let input: IndexInput;
  try {
    input = dir.openInput(name);
  } catch (error) {
    throw new CorruptIndexError(name, `cannot open: ${(error as Error).message}`, { cause: error });
  }
  try {
    if (input.length < 4 + 1 + 1 + FOOTER_LENGTH)
      throw new CorruptIndexError(name, `truncated (${input.length} bytes)`);
    if (new ByteReader(input.read(0, 4)).readUint32() !== HEADER_MAGIC)
      throw new CorruptIndexError(name, 'not an index file (bad header magic)');
    verifyChecksum(name, input);
  } finally {
    input.close();
  }
}

/** Reads a whole small codec file and returns its body (verified). */
export function readCodecFile(
  dir: Directory,
  name: string,
  codec: string,
  maxVersion: number,
  options: { verify?: boolean } = {},
): { version: number; body: Uint8Array } {
  const opened = openCodecFile(dir, name, codec, maxVersion, options);
  try {
    return {
      version: opened.version,
      body: opened.input.read(opened.bodyStart, opened.bodyEnd - opened.bodyStart),
    };
  } finally {
    opened.input.close();
  }
}

function checkHeader(
  name: string,
  input: IndexInput,
  codec: string,
  maxVersion: number,
): { version: number; bodyStart: number } {
  const minimum = 4 + 1 + 1 + FOOTER_LENGTH;
  if (input.length < minimum) throw new CorruptIndexError(name, `truncated (${input.length} bytes)`);
  const head = new ByteReader(input.read(0, Math.min(input.length, 4 + 5 + 256 + 10)));
  try {
    if (head.readUint32() !== HEADER_MAGIC)
      throw new CorruptIndexError(name, 'not an index file (bad header magic)');
    const foundCodec = head.readString();
    if (foundCodec !== codec)
      throw new CorruptIndexError(name, `expected a ${codec} file, found ${foundCodec}`);
    const version = head.readVInt();
    if (version < 1 || version > maxVersion) {
      throw new CorruptIndexError(
        name,
        `format version ${version} is not supported (this build reads 1..${maxVersion})`,
      );
    }
    return { version, bodyStart: head.pos };
  } catch (error) {
    if (error instanceof CorruptIndexError) throw error;
    throw new CorruptIndexError(name, 'unreadable header', { cause: error });
  }
}

const VERIFY_CHUNK = 8 << 20;

function verifyChecksum(name: string, input: IndexInput): void {
  const footerAt = input.length - FOOTER_LENGTH;
  let crc = 0;
  for (let at = 0; at < footerAt + 4; at += VERIFY_CHUNK) {
    crc = crc32(input.read(at, Math.min(VERIFY_CHUNK, footerAt + 4 - at)), crc);
  }
  const footer = new ByteReader(input.read(footerAt, FOOTER_LENGTH));
  if (footer.readUint32() !== FOOTER_MAGIC) throw new CorruptIndexError(name, 'truncated or bad footer');
  const expected = footer.readUint32();
  if (expected !== crc) {
    throw new CorruptIndexError(
      name,
      `checksum mismatch (stored ${expected.toString(16)}, computed ${crc.toString(16)})`,
    );
  }
}

/**
 * A file held in memory: reads are views, not copies (hot postings are read on every query;
 * syscalls and copies dominated query time when they were read with pread).
 */
function memoryInput(name: string, bytes: Uint8Array): IndexInput {
  return {
    name,
    length: bytes.length,
    read(offset: number, length: number) {
      if (offset < 0 || offset + length > bytes.length) {
        throw new RangeError(`read past end of ${name}: ${offset}+${length} > ${bytes.length}`);
      }
      return bytes.subarray(offset, offset + length);
    },
    close() {},
  };
}
