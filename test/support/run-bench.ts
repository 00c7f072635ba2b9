import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * Runs a benchmark of `bench/` (its compiled `bench/<name>.js`) in a child process to its end:
 * its exit code and everything it printed, stdout and stderr interleaved as they came.
 */
export function runBench(
  name: string,
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ code: number | null; output: string }> {
  const script = fileURLToPath(new URL(`../../bench/${name}.js`, import.meta.url));
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, output }));
  });
}
