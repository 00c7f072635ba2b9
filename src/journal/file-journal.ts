import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { SearchError } from '../errors.js';
import type { Journal, JournalStats } from './journal.js';
import { nodeJournalIo, type JournalFile, type JournalIo } from './journal-io.js';
import { JournalCorruptError } from './journal-corrupt-error.js';
import {
  MAX_PAYLOAD_BYTES,
  SEGMENT_HEADER_BYTES,
  SEGMENT_TEMP_SUFFIX,
  encodeRecords,
  encodeSegmentHeader,
  isSegmentTempFileName,
  parseSegmentFileName,
  segmentFileName,
} from './segment-format.js';
import { SegmentReader } from './segment-reader.js';

/** Options of {@link FileJournal.open}; every field has a default. */
export interface FileJournalOptions {
  /** A segment is closed and a new one started once it holds at least this many bytes. Default 64 MiB. */
  segmentBytes?: number;
  /**
   * Sequence number of the first record when the folder holds no journal yet. Default 1.
   * The owner passes `manifestSeq + 1` so that a lost or replaced journal folder never
   * hands out numbers that the index already contains (replay would skip those records).
   */
  firstSeq?: number;
  /** File operations; tests pass a wrapper that injects faults. Default: `node:fs/promises`. */
  io?: JournalIo;
}

/** Largest number of payload bytes written by one write call; keeps batch buffers bounded. */
const MAX_BATCH_BYTES = 16 * 1024 * 1024;
const DEFAULT_SEGMENT_BYTES = 64 * 1024 * 1024;

interface Segment {
  firstSeq: number;
  path: string;
}

interface PendingAppend {
  payload: Uint8Array;
  resolve: (seq: number) => void;
  reject: (error: unknown) => void;
}

/**
 * The journal as an append-only log of segment files in one folder (format:
 * `segment-format.ts`). One writer loop owns the newest segment:
 *
 * - Group commit: appends queue up; the loop takes everything queued, writes it with one
 *   positional write and makes it durable with one fdatasync, then resolves the whole
 *   batch. Appends that arrive during that fsync form the next batch, so the number of
 *   fsyncs follows the disk's speed, not the request rate.
 * - The writer always writes at `durableLength`, the end of what is known durable. After a
 *   failed write or fsync (ENOSPC, EIO) the batch is rejected with `JOURNAL_WRITE_FAILED`
 *   and nothing is acknowledged until the next batch has reopened the file and truncated it
 *   back to `durableLength` durably; then the log continues as if the failed batch had never
 *   been written, and its sequence numbers are reused (no holes).
 * - Disk work goes through async file operations (the libuv pool): the event loop never
 *   waits on a disk.
 *
 * At open the newest segment is scanned: a damaged tail with no valid record after it is
 * the remains of a write that was never acknowledged, and is truncated away; damage followed
 * by valid records is {@link JournalCorruptError}. Older segments are fully checked by
 * {@link FileJournal.replay}, which reads them anyway.
 */
export class FileJournal implements Journal {
  private readonly segments: Segment[];
  private activeFile: JournalFile;
  /** Bytes of the newest segment known durable; also where the next batch is written. */
  private durableLength: number;
  private durableSeq: number;
  /** The error that left the newest segment in an unknown state past `durableLength`. */
  private failure: unknown = undefined;
  /** False after a rollover until the folder (holding the new segment's name) is synced. */
  private folderSynced = true;
  private queue: PendingAppend[] = [];
  private flushing: Promise<void> | undefined;
  /** Serializes replay, releaseThrough and close: a replay must not see its files deleted. */
  private maintenance: Promise<unknown> = Promise.resolve();
  private closing: Promise<void> | undefined;
  private readonly counters: JournalStats = { appends: 0, fsyncs: 0, bytes: 0, lastFsyncMs: 0 };

  private constructor(
    /** The journal's folder. */
    readonly folder: string,
    private readonly io: JournalIo,
    private readonly segmentBytes: number,
    segments: Segment[],
    activeFile: JournalFile,
    durableLength: number,
    lastSeq: number,
  ) {
    this.segments = segments;
    this.activeFile = activeFile;
    this.durableLength = durableLength;
    this.durableSeq = lastSeq;
  }

  /**
   * Opens (creating when missing) the journal in `folder`: removes half-born segments,
   * checks segment headers, truncates a torn tail of the newest segment.
   * @throws JournalCorruptError (`JOURNAL_CORRUPT`) when the newest segment is damaged before its end, or a header is bad.
   */
  static async open(folder: string, options: FileJournalOptions = {}): Promise<FileJournal> {
    const segmentBytes = options.segmentBytes ?? DEFAULT_SEGMENT_BYTES;
    if (!Number.isSafeInteger(segmentBytes) || segmentBytes < 1) {
      throw new SearchError(
        'JOURNAL_BAD_OPTIONS',
        `segmentBytes must be a positive integer, got ${segmentBytes}`,
      );
    }
    const firstSeq = options.firstSeq ?? 1;
    if (!Number.isSafeInteger(firstSeq) || firstSeq < 1) {
      throw new SearchError('JOURNAL_BAD_OPTIONS', `firstSeq must be a positive integer, got ${firstSeq}`);
    }
    const io = options.io ?? nodeJournalIo;
    await io.makeFolder(folder);

    const names = await io.listFolder(folder);
    const leftovers = names.filter(isSegmentTempFileName);
    for (const name of leftovers) await io.deleteFile(join(folder, name));
    if (leftovers.length > 0) await io.syncFolder(folder);

    const segments: Segment[] = [];
    for (const name of names) {
      const seq = parseSegmentFileName(name);
      if (seq !== undefined) segments.push({ firstSeq: seq, path: join(folder, name) });
    }
    segments.sort((a, b) => a.firstSeq - b.firstSeq);

    const newest = segments.at(-1);
    if (newest === undefined) {
      const created = await createSegment(io, folder, firstSeq);
      await io.syncFolder(folder);
      segments.push(created.segment);
      return new FileJournal(
        folder,
        io,
        segmentBytes,
        segments,
        created.file,
        SEGMENT_HEADER_BYTES,
        firstSeq - 1,
      );
    }

    // Older segments were complete and synced before the next one was born: only their
    // headers are checked here; replay checks every record it reads.
    for (const segment of segments.slice(0, -1)) {
      const file = await io.openFile(segment.path, 'read');
      try {
        await checkHeader(new SegmentReader(file, await file.size()), segment);
      } finally {
        await file.close();
      }
    }

    const file = await io.openFile(newest.path, 'write');
    try {
      const reader = new SegmentReader(file, await file.size());
      await checkHeader(reader, newest);
      const scan = await reader.scan(SEGMENT_HEADER_BYTES, newest.firstSeq, Number.MAX_SAFE_INTEGER);
      if (scan.bad !== undefined) {
        const laterRecord = await reader.findValidRecordAfter(scan.bad.offset, scan.lastSeq);
        if (laterRecord !== undefined) {
          throw new JournalCorruptError(
            newest.path,
            scan.bad.offset,
            `${scan.bad.problem}, yet a valid record follows at offset ${laterRecord}`,
          );
        }
        // A torn tail: the remains of a write that was never acknowledged.
        await file.truncate(scan.endOffset);
      }
      // After a process crash the records found here may still sit only in the page cache,
      // and so may the newest segment's name. Replay hands them to the index, whose manifest
      // then claims them: they must not vanish in a later power loss.
      await file.datasync();
      await io.syncFolder(folder);
      return new FileJournal(folder, io, segmentBytes, segments, file, scan.endOffset, scan.lastSeq);
    } catch (error) {
      await file.close();
      throw error;
    }
  }

  /** Highest sequence number made durable. */
  get lastSeq(): number {
    return this.durableSeq;
  }

  /** A copy of the counters since open. */
  get stats(): JournalStats {
    return { ...this.counters };
  }

  /** Number of segment files; a gauge for the admin UI and tests. */
  get segmentCount(): number {
    return this.segments.length;
  }

  /**
   * Queues a record for the next group commit; resolves with its sequence number once it
   * is durable. The payload is read when its batch is written: do not modify it until the
   * promise settles.
   * @throws SearchError `JOURNAL_WRITE_FAILED` (the cause is the I/O error) when the record
   * could not be made durable; `JOURNAL_CLOSED`; `JOURNAL_RECORD_TOO_LARGE`.
   */
  append(payload: Uint8Array): Promise<number> {
    if (this.closing !== undefined) {
      return Promise.reject(
        new SearchError('JOURNAL_CLOSED', 'the journal is closed; reopen it before appending'),
      );
    }
    if (payload.byteLength > MAX_PAYLOAD_BYTES) {
      return Promise.reject(
        new SearchError(
          'JOURNAL_RECORD_TOO_LARGE',
          `a journal record holds at most ${MAX_PAYLOAD_BYTES} bytes, got ${payload.byteLength}; send smaller changes`,
        ),
      );
    }
    return new Promise<number>((resolve, reject) => {
      this.queue.push({ payload, resolve, reject });
      this.flushing ??= this.flushLoop();
    });
  }

  /**
   * Delivers every record durable when the call starts with seq > afterSeq, in order; each
   * payload is a copy the callback may keep. Meant for start-up, before appends begin.
   * @throws SearchError `JOURNAL_RECORDS_RELEASED` when records after `afterSeq` were already
   * released; {@link JournalCorruptError} when a record on the way does not parse.
   */
  async replay(afterSeq: number, onRecord: (seq: number, payload: Uint8Array) => void): Promise<void> {
    return this.serialized(() => this.replayNow(afterSeq, onRecord));
  }

  /** Deletes the segments whose records all have seq <= `seq`, then syncs the folder. */
  async releaseThrough(seq: number): Promise<void> {
    return this.serialized(async () => {
      let deleted = 0;
      // Oldest first, one at a time, so a crash in between leaves a contiguous suffix; the
      // newest segment stays even when fully released: its name carries the next seq.
      for (;;) {
        const [oldest, next] = this.segments;
        if (oldest === undefined || next === undefined || next.firstSeq - 1 > seq) break;
        await this.io.deleteFile(oldest.path);
        this.segments.shift();
        deleted++;
      }
      if (deleted > 0) await this.io.syncFolder(this.folder);
    });
  }

  /** Finishes the appends already queued, then closes the newest segment. Idempotent. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      // Appends accepted before close are still made durable (or rejected), never dropped.
      await this.flushing;
      await this.serialized(async () => undefined);
      // Everything acknowledged was synced; a failed recovery may already have closed it.
      await this.activeFile.close().catch(() => undefined);
    })();
    return this.closing;
  }

  /** The segment appends go to: open creates one when there is none, release keeps it. */
  private get newest(): Segment {
    const newest = this.segments.at(-1);
    if (newest === undefined) throw new Error(`the journal in ${this.folder} has no segment left`);
    return newest;
  }

  private serialized<T>(task: () => Promise<T>): Promise<T> {
    const run = this.maintenance.then(task);
    this.maintenance = run.catch(() => undefined);
    return run;
  }

  private async replayNow(
    afterSeq: number,
    onRecord: (seq: number, payload: Uint8Array) => void,
  ): Promise<void> {
    // Records made durable after this point are not the replay's business.
    const lastSeq = this.durableSeq;
    if (afterSeq >= lastSeq) return;
    const segments = this.segments.slice();
    const start = segments.findLastIndex((segment) => segment.firstSeq <= afterSeq + 1);
    const first = segments[start];
    if (first === undefined) {
      throw new SearchError(
        'JOURNAL_RECORDS_RELEASED',
        `the journal no longer holds records after ${afterSeq}: it starts at ${(segments[0] ?? this.newest).firstSeq} ` +
          'because older records were released as indexed. The index is older than the journal ' +
          '(restored from an older backup?): restore the journal folder of the same backup.',
      );
    }
    let expectedSeq = first.firstSeq;
    for (const segment of segments.slice(start)) {
      if (expectedSeq > lastSeq) break;
      if (segment.firstSeq !== expectedSeq) {
        throw new JournalCorruptError(
          segment.path,
          0,
          `the previous segment ends at sequence number ${expectedSeq - 1}, this one starts at ${segment.firstSeq}`,
        );
      }
      const file = await this.io.openFile(segment.path, 'read');
      try {
        const reader = new SegmentReader(file, await file.size());
        await checkHeader(reader, segment);
        const scan = await reader.scan(SEGMENT_HEADER_BYTES, segment.firstSeq, lastSeq, (seq, payload) => {
          if (seq > afterSeq) onRecord(seq, payload);
        });
        // The scan stops after lastSeq, so whatever it finds bad was acknowledged as durable.
        if (scan.bad !== undefined) {
          throw new JournalCorruptError(segment.path, scan.bad.offset, scan.bad.problem);
        }
        expectedSeq = scan.lastSeq + 1;
      } finally {
        await file.close();
      }
    }
    if (expectedSeq <= lastSeq) {
      throw new JournalCorruptError(
        (segments.at(-1) ?? this.newest).path,
        0,
        `records ${expectedSeq} to ${lastSeq} were acknowledged but are missing`,
      );
    }
  }

  private async flushLoop(): Promise<void> {
    // Wait for the current round of I/O callbacks: requests that arrive together share the
    // first fsync too, not only those arriving during one.
    await new Promise<void>((resolve) => setImmediate(resolve));
    try {
      while (this.queue.length > 0) {
        const batch = this.takeBatch();
        try {
          await this.writeBatch(batch);
        } catch (error) {
          this.failure = error;
          // Roll back now, before anyone hears of the failure: once recovery succeeded, a
          // rejected record cannot come back at the next start. When it fails too, the next
          // batch tries again and nothing is acknowledged until one succeeds.
          await this.recover().catch(() => undefined);
          const rejection = new SearchError(
            'JOURNAL_WRITE_FAILED',
            `could not make ${batch.length} change(s) durable in the journal (${describe(error)}); ` +
              `they were not accepted. ${remedyFor(error)}`,
            { cause: error },
          );
          for (const pending of batch) pending.reject(rejection);
        }
      }
    } finally {
      this.flushing = undefined;
    }
  }

  private takeBatch(): PendingAppend[] {
    let bytes = 0;
    let count = 0;
    for (const { payload } of this.queue) {
      if (count > 0 && bytes + payload.byteLength > MAX_BATCH_BYTES) break;
      bytes += payload.byteLength;
      count++;
    }
    return this.queue.splice(0, count);
  }

  private async writeBatch(batch: PendingAppend[]): Promise<void> {
    if (this.failure !== undefined) await this.recover();
    await this.rollOverIfFull();
    const firstSeq = this.durableSeq + 1;
    const bytes = encodeRecords(
      batch.map((pending) => pending.payload),
      firstSeq,
    );
    let written = 0;
    while (written < bytes.length) {
      const count = await this.activeFile.write(
        bytes,
        written,
        bytes.length - written,
        this.durableLength + written,
      );
      // A regular file never takes zero bytes without an error; do not spin if one does.
      if (count <= 0) throw new Error(`write of ${bytes.length - written} bytes made no progress`);
      written += count;
    }
    const started = performance.now();
    await this.activeFile.datasync();
    // A journal whose files were deleted by hand while the server ran (`rm -rf data/<c>`)
    // still takes writes through its open file, which a restart never reads: refuse them.
    if (!this.activeFile.isLinked()) throw new JournalFileDeleted(this.newest.path);
    if (!this.folderSynced) {
      await this.io.syncFolder(this.folder);
      this.folderSynced = true;
    }
    this.counters.lastFsyncMs = performance.now() - started;
    this.counters.fsyncs++;
    this.counters.appends += batch.length;
    this.counters.bytes += bytes.length;
    this.durableLength += bytes.length;
    this.durableSeq = firstSeq + batch.length - 1;
    batch.forEach((pending, i) => pending.resolve(firstSeq + i));
  }

  /**
   * Brings the newest segment back to its last durable length after a failed write or
   * fsync. A fresh file handle: after a failed fsync Linux reports the error once per open
   * file, and the pages it gave up on may look clean; truncating drops them all.
   */
  private async recover(): Promise<void> {
    const path = this.newest.path;
    await this.activeFile.close().catch(() => undefined);
    this.activeFile = await this.io.openFile(path, 'write');
    await this.activeFile.truncate(this.durableLength);
    await this.activeFile.datasync();
    this.failure = undefined;
  }

  /** Starts a new segment when the newest one is full; on failure keeps writing to the full one. */
  private async rollOverIfFull(): Promise<void> {
    if (this.durableLength < this.segmentBytes || this.durableLength === SEGMENT_HEADER_BYTES) return;
    let created: { segment: Segment; file: JournalFile };
    try {
      created = await createSegment(this.io, this.folder, this.durableSeq + 1);
    } catch {
      // Nothing was renamed into place, so the full segment is still the newest: a segment
      // may grow past segmentBytes, which costs nothing but a later release.
      return;
    }
    const previous = this.activeFile;
    this.segments.push(created.segment);
    this.activeFile = created.file;
    this.durableLength = SEGMENT_HEADER_BYTES;
    // The new name is durable only after a folder sync, done before the next acknowledgement.
    this.folderSynced = false;
    // Its data was synced with its last batch; a close error cannot lose anything.
    await previous.close().catch(() => undefined);
  }
}

/** Writes a new segment's header under a temporary name, syncs it, renames it into place. */
async function createSegment(
  io: JournalIo,
  folder: string,
  firstSeq: number,
): Promise<{ segment: Segment; file: JournalFile }> {
  const path = join(folder, segmentFileName(firstSeq));
  const tempPath = path + SEGMENT_TEMP_SUFFIX;
  await io.deleteFile(tempPath);
  const file = await io.openFile(tempPath, 'create');
  try {
    const header = encodeSegmentHeader(firstSeq);
    let written = 0;
    while (written < header.length)
      written += await file.write(header, written, header.length - written, written);
    await file.datasync();
    await io.rename(tempPath, path);
  } catch (error) {
    await file.close().catch(() => undefined);
    await io.deleteFile(tempPath).catch(() => undefined);
    throw error;
  }
  return { segment: { firstSeq, path }, file };
}

async function checkHeader(reader: SegmentReader, segment: Segment): Promise<void> {
  const header = await reader.readHeader();
  if (!header.ok) {
    if (header.unsupportedVersion !== undefined) {
      throw new SearchError(
        'JOURNAL_UNSUPPORTED_VERSION',
        `journal file ${segment.path} has format version ${header.unsupportedVersion}, which this ` +
          'version of pushsearch cannot read; run the version that wrote it.',
        { details: { file: segment.path } },
      );
    }
    throw new JournalCorruptError(segment.path, 0, header.problem);
  }
  if (header.firstSeq !== segment.firstSeq) {
    throw new JournalCorruptError(
      segment.path,
      0,
      `the header says it starts at ${header.firstSeq}, the file name says ${segment.firstSeq}`,
    );
  }
}

/** The journal's newest file lost its name while open (see `writeBatch`). */
class JournalFileDeleted extends Error {
  constructor(path: string) {
    super(`the journal file ${path} was deleted while the server ran`);
    this.name = 'JournalFileDeleted';
  }
}

/** What to do about a failed write: a full or failing disk, or files deleted under the server. */
function remedyFor(error: unknown): string {
  return error instanceof JournalFileDeleted ||
    (error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT'
    ? "The collection's files were deleted while the server ran: delete collections through the admin API; " +
        'restart the server to start again from what is on disk.'
    : 'Free disk space or fix the disk, then send them again.';
}

function describe(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const message = error instanceof Error ? error.message : String(error);
  return code !== undefined && !message.includes(code) ? `${code}: ${message}` : message;
}
