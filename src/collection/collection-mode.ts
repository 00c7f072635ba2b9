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
import { dirname, join } from 'node:path';
import { SearchError } from '../errors.js';
import type { CollectionMode } from './replication-settings.js';

/** What `data/{collection}/mode.json` records. */
export interface ModeRecord {
  mode: CollectionMode;
  /** False once the sync API stopped the sync (it stays stopped across restarts until started again). */
  sync: boolean;
}

/**
 * A collection's mode, kept in `data/{collection}/mode.json` once the collection has started
 * (before that, collection.cfg's `push.initial-mode` decides), with whether its sync was
 * stopped through the sync API. Written durably (temp, fsync, rename, fsync folder): a
 * query processor that crashed after a mode change must not come back as an admin.
 */
export class CollectionModeFile {
  readonly file: string;

  /** @param shownAs the file as messages name it (relative to the home: no absolute paths in answers). */
  constructor(
    dataFolder: string,
    private readonly shownAs = 'mode.json',
  ) {
    this.file = join(dataFolder, 'mode.json');
  }

  /** The recorded mode, or undefined when none was recorded yet. */
  read(): ModeRecord | undefined {
    if (!existsSync(this.file)) return undefined;
    try {
      const value = JSON.parse(readFileSync(this.file, 'utf8')) as Partial<ModeRecord>;
      if (value.mode === 'DEFAULT' || value.mode === 'SLAVE')
        return { mode: value.mode, sync: value.sync !== false };
    } catch {
      // Reported below.
    }
    throw new SearchError(
      'CONFIG_INVALID',
      `${this.shownAs} is damaged: write {"mode": "DEFAULT"} or {"mode": "SLAVE"} into it, or set the mode again with POST .../mode?mode=`,
      { details: { file: this.shownAs } },
    );
  }

  write(record: ModeRecord): void {
    mkdirSync(dirname(this.file), { recursive: true });
    const temp = `${this.file}.tmp`;
    const fd = openSync(temp, 'w');
    try {
      writeFileSync(fd, JSON.stringify(record) + '\n');
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, this.file);
    const folder = openSync(dirname(this.file), 'r');
    try {
      fsyncSync(folder);
    } finally {
      closeSync(folder);
    }
  }
}
