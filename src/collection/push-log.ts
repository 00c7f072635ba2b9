import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import pino, { type Logger } from 'pino';

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
    pino.destination({ dest: file, sync: true, mkdir: true }),
  );
}

/** A push log that writes nowhere (library use and tests that do not read it). */
export function silentPushLog(): PushLog {
  return pino({ level: 'silent' });
}
