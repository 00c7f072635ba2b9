import Database from 'better-sqlite3';
import { SearchError } from '../errors.js';

/**
 * One server per `$SEARCH_HOME`. Two servers on one home would both replay its journals and
 * write the same generation numbers: changes either of them acknowledged could be lost.
 *
 * The lock is SQLite's exclusive lock on `server.lock`: a POSIX record lock, which the kernel
 * drops when the process ends, however it ends. A server killed with SIGKILL leaves nothing
 * stale behind, unlike a PID file, and a second server in the same process is refused too.
 * SQLite is already a dependency, and Node has no file-lock call of its own.
 */
export class HomeLock {
  private constructor(private db: Database.Database | undefined) {}

  /** Takes the lock of the home whose lock file is `file`, or throws `HOME_IN_USE` at once. */
  static acquire(file: string, home: string): HomeLock {
    const db = new Database(file, { timeout: 0 });
    try {
      db.pragma('locking_mode = EXCLUSIVE');
      db.exec('BEGIN EXCLUSIVE');
    } catch (error) {
      db.close();
      if ((error as { code?: unknown }).code === 'SQLITE_BUSY') {
        throw new SearchError(
          'HOME_IN_USE',
          `${home} is in use by another pushsearch server: stop that one first (one server per SEARCH_HOME; ${file} is locked)`,
          { details: { home, file } },
        );
      }
      throw error;
    }
    return new HomeLock(db);
  }

  /** Lets another server take the home. Idempotent. */
  release(): void {
    this.db?.close();
    this.db = undefined;
  }
}
