import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { IndexEvent } from '../index/search-index.js';
import type { PushLog } from './push-log.js';
import type { SearchHome } from './search-home.js';

/**
 * How many generations keep their pipeline step output (`live/log/{generation}-/`). A
 * collection committed every second writes a generation a second; without a bound their
 * folders would pile up forever (merges retire generations, not their logs). Generation
 * numbers only grow, so the newest folders are the highest numbers.
 */
export const GENERATION_LOGS_KEPT = 100;

const GENERATION_LOG_FOLDER = /^(\d+)-$/;

/**
 * Appends one JSON line to `file` in a generation's log folder (`folder`, see
 * SearchHome.generationLogFolder), then removes the folders of all but the newest
 * {@link GENERATION_LOGS_KEPT} generations beside it. Throws when the line cannot be written.
 */
export function appendGenerationLog(folder: string, file: string, entry: Record<string, unknown>): void {
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, file), JSON.stringify(entry) + '\n', { flag: 'a' });
  pruneGenerationLogs(dirname(folder), GENERATION_LOGS_KEPT);
}

/** Removes the generation log folders under `logRoot` but the `keep` newest; other entries are left alone. */
export function pruneGenerationLogs(logRoot: string, keep: number): void {
  const generations = readdirSync(logRoot)
    .map((name) => GENERATION_LOG_FOLDER.exec(name))
    .filter((match) => match !== null)
    .map((match) => ({ name: match[0], generation: Number(match[1]) }))
    .sort((a, b) => b.generation - a.generation);
  for (const old of generations.slice(keep))
    rmSync(join(logRoot, old.name), { recursive: true, force: true });
}

/**
 * A collection's generation logs: `commit.log` lines written by its commits, `merge.log`
 * lines from the index's merge events. A log that cannot be written is reported in
 * push.log and does not fail the commit or merge it describes.
 */
export class GenerationLogWriter {
  constructor(
    private readonly home: SearchHome,
    private readonly collection: string,
    private readonly log: PushLog,
  ) {}

  /** Appends `entry` to `file` (`commit.log`, `merge.log`) of a generation's log folder. */
  write(generation: number, file: string, entry: Record<string, unknown>): void {
    try {
      appendGenerationLog(this.home.generationLogFolder(this.collection, generation), file, entry);
    } catch (error) {
      this.log.error(
        { collection: this.collection, generation, err: { message: (error as Error).message } },
        'cannot write generation log',
      );
    }
  }

  /** The index's event handler: a finished merge goes to its generation's merge.log, a failed one to push.log. */
  onIndexEvent(event: IndexEvent): void {
    if (event.type === 'merge-failed') {
      this.log.error(
        {
          collection: this.collection,
          generation: event.into,
          inputs: event.generations,
          snapshot: event.snapshot,
          err: { message: event.error.message },
        },
        'merge failed',
      );
    } else if (event.type === 'merge-done') {
      this.write(event.into, 'merge.log', {
        time: new Date().toISOString(),
        step: 'merge',
        inputs: event.generations,
        documents: event.documents,
        durationMs: Math.round(event.durationMs),
      });
    }
  }
}
