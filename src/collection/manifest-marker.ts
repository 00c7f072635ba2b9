import {
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import type { PushLog } from './push-log.js';
import type { SearchHome } from './search-home.js';

const MARKER = 'last-manifest.json';

/**
 * The newest manifest a collection published, kept beside its journal
 * (`live/journal/last-manifest.json`): a live index whose last manifest is lower at start
 * was restored from a snapshot, so the journal's changes belong to the replaced index. A
 * restore through the API also says so in the marker itself (`restored`): a snapshot of the
 * last commit has the live manifest's number, so the number alone cannot tell.
 */
export class ManifestMarker {
  private readonly folder: string;

  constructor(
    home: SearchHome,
    private readonly collection: string,
    private readonly log: PushLog,
  ) {
    this.folder = home.journalFolder(collection);
  }

  /** Records `manifest` (temp file, rename). Never fails: see the warning below. */
  write(manifest: number): void {
    try {
      mkdirSync(this.folder, { recursive: true });
      const temp = join(this.folder, `${MARKER}.tmp`);
      writeFileSync(temp, JSON.stringify({ manifest }));
      renameSync(temp, join(this.folder, MARKER));
    } catch (error) {
      // A marker behind the index only means a later restore is not detected from it; the
      // commit it follows is live and must not be reported as failed (e.g. disk full now).
      this.log.warn(
        { collection: this.collection, manifest, err: { message: (error as Error).message } },
        'cannot write the last-manifest marker',
      );
    }
  }

  /**
   * Records that live/ was just restored to `manifest`: the next start releases the journal
   * instead of replaying it. Durable (fsynced) and not forgiving, unlike {@link write}:
   * without it, the changes staged before the restore would come back.
   */
  writeRestored(manifest: number): void {
    mkdirSync(this.folder, { recursive: true });
    const temp = join(this.folder, `${MARKER}.tmp`);
    const fd = openSync(temp, 'w');
    try {
      writeFileSync(fd, JSON.stringify({ manifest, restored: true }));
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, join(this.folder, MARKER));
    const folder = openSync(this.folder, 'r');
    try {
      fsyncSync(folder);
    } finally {
      closeSync(folder);
    }
  }

  /**
   * Whether live/ was restored since the marker was written: restored through the API, or
   * the index's last manifest is older than the one recorded (files copied by hand).
   */
  isBehind(lastManifest: number): boolean {
    const file = join(this.folder, MARKER);
    if (!existsSync(file)) return false;
    try {
      const { manifest, restored } = JSON.parse(readFileSync(file, 'utf8')) as {
        manifest: number;
        restored?: boolean;
      };
      return restored === true || manifest > lastManifest;
    } catch {
      return false;
    }
  }
}
