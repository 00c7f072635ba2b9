import { SearchError } from '../errors.js';

/**
 * A journal segment does not parse at a place where a crash cannot explain it: a bad
 * header, a bad record followed by valid ones, a missing range of sequence numbers. The
 * journal refuses to guess, because skipping the damage would silently drop or reorder
 * accepted changes. Names the file and the byte offset.
 */
export class JournalCorruptError extends SearchError {
  readonly file: string;
  readonly offset: number;

  constructor(file: string, offset: number, problem: string) {
    super(
      'JOURNAL_CORRUPT',
      `journal file ${file} is corrupt at byte offset ${offset}: ${problem}. ` +
        'Restore the journal folder from a backup or, accepting the loss of every change from this ' +
        `record on, truncate the file to ${offset} bytes and remove the later journal files.`,
      { details: { file, offset } },
    );
    this.name = 'JournalCorruptError';
    this.file = file;
    this.offset = offset;
  }
}
