#!/usr/bin/env node
// `npm start`: runs the server (`pushsearch serve`), building it first only when a source file
// changed since the last build (a type-checking build takes seconds; an unchanged tree needs
// none). A server already running on the home is reported before any build.
// Usage: node scripts/start.js [serve options...]   (e.g. npm start -- --port 9090)
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import net from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const STAMP = join(root, 'dist/.tsbuildinfo-server');
const MAIN = join(root, 'dist/src/cli/main.js');

/** The value of `--home DIR` / `--home=DIR` on the command line, else SEARCH_HOME, else the default. */
function homeFolder() {
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--home' && i + 1 < args.length) return resolve(args[i + 1]);
    if (args[i].startsWith('--home=')) return resolve(args[i].slice('--home='.length));
  }
  return resolve(process.env.SEARCH_HOME ?? './search-home');
}

/** Whether something listens on the Unix socket `path`. */
function answers(path) {
  return new Promise((done) => {
    const socket = net.connect(path);
    socket.once('connect', () => {
      socket.destroy();
      done(true);
    });
    socket.once('error', () => done(false));
  });
}

/**
 * Whether a server holds the home: the sockets of src/collection/home-lock.ts (the abstract
 * one on Linux, named after the folder's device and inode, and `server.lock`). Only a quick
 * look before building; the server takes the lock itself.
 */
async function homeInUse(home) {
  if (!existsSync(home)) return false;
  if (process.platform === 'linux') {
    const { dev, ino } = statSync(home);
    if (await answers(`\0pushsearch-home/${dev}/${ino}`)) return true;
  }
  return answers(join(home, 'server.lock'));
}

/** Newest modification time under `dir` of the files `keep` accepts. */
function newestMtime(dir, keep) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestMtime(path, keep));
    else if (keep(entry.name)) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

/** Whether dist/ holds a build of the current sources (the server's build stamp is newer than every input). */
function buildIsFresh() {
  if (!existsSync(STAMP) || !existsSync(MAIN)) return false;
  const inputs = Math.max(
    newestMtime(join(root, 'src'), (name) => name.endsWith('.ts')),
    ...['tsconfig.json', 'tsconfig.server.json', 'package-lock.json'].map(
      (f) => statSync(join(root, f)).mtimeMs,
    ),
  );
  return statSync(STAMP).mtimeMs >= inputs;
}

const home = homeFolder();
if (await homeInUse(home)) {
  process.stderr.write(
    `cannot start the server: HOME_IN_USE: ${home} is in use by another pushsearch server: stop that one first (one server per SEARCH_HOME)\n`,
  );
  process.exit(1);
}
if (!buildIsFresh()) {
  process.stderr.write('building the server (tsc -p tsconfig.server.json)...\n');
  const tsc = join(root, 'node_modules/typescript/bin/tsc');
  const built = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.server.json')], {
    stdio: 'inherit',
  });
  if (built.status !== 0) process.exit(built.status ?? 1);
}
// In this process: signals reach the server directly, and its exit code is ours.
process.argv = [process.argv[0], MAIN, 'serve', ...args];
await import(MAIN);
