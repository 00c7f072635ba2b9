/** Runs the `pushsearch` command line as a child process, as a user would. */
import { execFile, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MAIN } from '../support/server-process.js';

/** What a command printed and its exit code. */
export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * `XDG_STATE_HOME` of every command run here: `load` keeps its resume state there, never in
 * the home folder of whoever runs the tests. {@link removeCliStateHome} removes it.
 */
export const CLI_STATE_HOME = mkdtempSync(join(tmpdir(), 'pushsearch-cli-state-'));

export function removeCliStateHome(): void {
  rmSync(CLI_STATE_HOME, { recursive: true, force: true });
}

/**
 * Runs the CLI asynchronously (a server in this process keeps answering), with only PATH and
 * `XDG_STATE_HOME` from the environment plus `env`; `started` gets the child (to signal it).
 */
export function cli(
  args: string[],
  env: Record<string, string> = {},
  input?: string,
  started?: (child: ChildProcess) => void,
): Promise<Run> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [MAIN, ...args],
      {
        env: { PATH: process.env.PATH ?? '', XDG_STATE_HOME: CLI_STATE_HOME, ...env },
        maxBuffer: 16 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
        resolve({ code, stdout, stderr });
      },
    );
    if (input !== undefined) child.stdin?.end(input);
    started?.(child);
  });
}
