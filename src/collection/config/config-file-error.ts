import { SearchError } from '../../errors.js';

/**
 * A configuration file (or one value in it) is wrong. Code `CONFIG_INVALID`; the message
 * starts with the file name and, for a bad line, the 1-based line number, so that the admin
 * UI and the push log point at the line to fix.
 */
export class ConfigFileError extends SearchError {
  readonly file: string;
  /** 1-based line number, or undefined when the problem is not one line (a bad value of a key). */
  readonly line: number | undefined;

  /** When several problems were found at once, each of them (`file: problem`). */
  readonly problems: readonly string[] | undefined;

  constructor(
    file: string,
    line: number | undefined,
    problem: string,
    options?: { cause?: unknown; problems?: readonly string[] },
  ) {
    super('CONFIG_INVALID', line === undefined ? `${file}: ${problem}` : `${file} line ${line}: ${problem}`, {
      cause: options?.cause,
      details: {
        file,
        ...(line === undefined ? {} : { line }),
        ...(options?.problems ? { problems: options.problems } : {}),
      },
    });
    this.name = 'ConfigFileError';
    this.file = file;
    this.line = line;
    this.problems = options?.problems;
  }
}
