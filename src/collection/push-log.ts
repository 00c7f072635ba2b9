import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import pino, { type DestinationStream, type Logger } from 'pino';

/**
 * `web/log/push.log`: the errors of every collection, one JSON object a line, each naming
 * its collection (and generation and request id when known). Written synchronously: these
 * lines are rare and must not be lost when the process dies right after.
 */
export type PushLog = Logger;

export function createPushLog(file: string): PushLog {
  mkdirSync(dirname(file), { recursive: true });
  return pino(LOG_LINE_FORMAT, new AppendOnlyLog(file));
}

/**
 * The one format of every log line, push.log, security.log and the server log alike: JSON
 * with `level` as a word, `time` as an ISO date, no pid or host name (one process, one home).
 */
export const LOG_LINE_FORMAT = Object.freeze({
  base: null,
  timestamp: pino.stdTimeFunctions.isoTime,
  formatters: { level: (label: string) => ({ level: label }) },
});

/**
 * The `err` field of a push.log line for any thrown value: its message (the value itself when
 * it has none), and its code, stack and details when it has them.
 */
export function errorForLog(error: unknown): {
  message: string;
  code: unknown;
  stack: unknown;
  details: unknown;
} {
  const e = error as
    { message?: unknown; stack?: unknown; code?: unknown; details?: unknown } | null | undefined;
  return { message: String(e?.message ?? error), code: e?.code, stack: e?.stack, details: e?.details };
}

/** A push log that writes nowhere (library use and tests that do not read it). */
export function silentPushLog(): PushLog {
  return pino({ level: 'silent' });
}

/** Lines kept while the log cannot be written; more are counted, not kept. */
const MAX_HELD_LINES = 1000;
/** How often held lines are tried again when nothing else is logged. */
const RETRY_MS = 1000;

/**
 * Appends each line with one synchronous write. A line that cannot be written (disk full,
 * I/O error) is held in memory and written before the next line once writing works again,
 * instead of failing the caller: logging an error must never turn it into another one (an
 * error handler that throws would lose the client's answer). Beyond {@link MAX_HELD_LINES}
 * lines are counted, and the count is logged when writing works again.
 */
class AppendOnlyLog implements DestinationStream {
  private fd: number | undefined;
  private held: string[] = [];
  private dropped = 0;

  constructor(private readonly file: string) {}

  private retry: NodeJS.Timeout | undefined;

  write(line: string): void {
    if (this.held.length < MAX_HELD_LINES) this.held.push(line);
    else this.dropped++;
    this.flush();
  }

  private flush(): void {
    try {
      this.fd ??= openSync(this.file, 'a');
      while (this.held.length > 0) {
        writeSync(this.fd, this.held[0]!);
        this.held.shift();
      }
      if (this.dropped > 0) {
        const note = {
          level: 'warn',
          time: new Date().toISOString(),
          dropped: this.dropped,
          msg: 'log lines lost while the log could not be written',
        };
        writeSync(this.fd, JSON.stringify(note) + '\n');
        this.dropped = 0;
      }
    } catch {
      // Try again soon even if nothing else is logged meanwhile.
      this.retry ??= setTimeout(() => {
        this.retry = undefined;
        this.flush();
      }, RETRY_MS).unref();
      // Reopen next time: the file may have been removed or the descriptor broken.
      if (this.fd !== undefined) {
        try {
          closeSync(this.fd);
        } catch {
          // Already unusable.
        }
        this.fd = undefined;
      }
    }
  }
}
