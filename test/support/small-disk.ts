/**
 * A small tmpfs for the disk-full tests: a real file system that answers ENOSPC once the test
 * fills it, and has room again once the filler files are removed. Mounting needs root (CI runs
 * as root); without it, {@link mountSmallDisk} returns the reason to skip.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, unlinkSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A mounted small tmpfs. */
export interface SmallDisk {
  /** Where it is mounted. */
  folder: string;
  /** Writes filler files until the file system refuses (ENOSPC), in large, then small, then one-byte pieces. */
  fill(): void;
  /** Removes the filler files: the space is back. */
  free(): void;
  /** Unmounts it and removes the mount point. */
  unmount(): void;
}

/**
 * Mounts a tmpfs of `size` (mount's notation: `8m`, `24m`) in a new temporary folder; returns
 * why not (a string for `describe`'s `skip`) when that is impossible here.
 */
export function mountSmallDisk(size: string): SmallDisk | string {
  if (process.getuid?.() !== 0) return 'needs root to mount a small tmpfs';
  const folder = mkdtempSync(join(tmpdir(), 'pushsearch-small-disk-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', folder], { stdio: 'pipe' });
  } catch (error) {
    rmSync(folder, { recursive: true, force: true });
    return `cannot mount a tmpfs here: ${(error as Error).message.split('\n')[0]}`;
  }
  const fillers: string[] = [];
  return {
    folder,
    fill: () => {
      // Smaller pieces use up what a partly used block still takes.
      for (const size of [64 * 1024, 512, 1]) {
        const file = join(folder, `filler-${size}-${fillers.length}`);
        fillers.push(file);
        const fd = openSync(file, 'w');
        try {
          for (;;) writeSync(fd, Buffer.alloc(size));
        } catch (error) {
          assert.equal((error as NodeJS.ErrnoException).code, 'ENOSPC');
        } finally {
          closeSync(fd);
        }
      }
    },
    free: () => {
      for (const file of fillers.splice(0)) unlinkSync(file);
    },
    unmount: () => {
      execFileSync('umount', ['-l', folder], { stdio: 'pipe' });
      rmSync(folder, { recursive: true, force: true });
    },
  };
}
