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
  return pino(
    { base: null, timestamp: pino.stdTimeFunctions.isoTime, formatters: { level: (label) => ({ level: label }) } },
    new AppendOnlyLog(file),
  );
}

/** A push log that writes nowhere (library use and tests that do not read it). */
export function silentPushLog(): PushLog {
  return pino({ level: 'silent' });
}

/**
 * Appends each line with one synchronous write. A line that cannot be written (disk full,
 * I/O error) is dropped instead of failing the caller: logging an error must never turn it
 * into another one (an error handler that throws would lose the client's answer). The next
 * line that gets through says how many were lost.
 */
class AppendOnlyLog implements DestinationStream {
  private fd: number | undefined;
  private dropped = 0;

  constructor(private readonly file: string) {}

  write(line: string): void {
    try {
      this.fd ??= openSync(this.file, 'a');
      if (this.dropped > 0) {
        const note = JSON.stringify({ level: 'warn', time: new Date().toISOString(), dropped: this.dropped, msg: 'log lines lost while the log could not be written' });
        writeSync(this.fd, note + '\n');
        this.dropped = 0;
      }
      writeSync(this.fd, line);
    } catch {
      this.dropped++;
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
