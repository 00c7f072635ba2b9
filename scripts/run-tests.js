#!/usr/bin/env node
// Runs the compiled test suites with node's built-in runner and ends the output with one
// plain line, `N passed, N failed`, that a CI log reader understands at a glance.
// Usage: node scripts/run-tests.js [--long] [--concurrency=N] [filter-substring...]
// --long also runs `*.long.test.js` files and the many-iteration variants (PUSHSEARCH_LONG_TESTS=1).
// --concurrency=N runs N test files at a time (default: one per core), e.g. to time the suite
// with more files than cores when many of them wait on the disk or on timers.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, renameSync, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';

const args = process.argv.slice(2);
const long = args.includes('--long');
const filters = args.filter((a) => !a.startsWith('--'));
const concurrencyArg = args.find((a) => a.startsWith('--concurrency='));
const concurrency =
  concurrencyArg === undefined
    ? Math.max(1, availableParallelism())
    : Number(concurrencyArg.slice('--concurrency='.length));
if (!Number.isInteger(concurrency) || concurrency < 1) {
  console.error(`${concurrencyArg}: the number of test files at a time must be a whole number >= 1`);
  process.exit(2);
}

function findTests(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...findTests(path));
    else if (name.endsWith('.test.js')) out.push(path);
  }
  return out;
}

const files = findTests('dist/test')
  .filter((f) => long || !f.endsWith('.long.test.js'))
  .filter((f) => filters.length === 0 || filters.some((s) => f.includes(s)))
  .sort();
if (files.length === 0) {
  console.error('no test files found under dist/test (did the build run?)');
  process.exit(1);
}
mkdirSync('.tmp', { recursive: true });
// Each run reads its own TAP file (two runs at once in one checkout must not count each other's
// results); the last one is also copied to .tmp/test-results.tap for reading afterwards.
const tapFile = join('.tmp', `test-results-${process.pid}.tap`);
const result = spawnSync(
  process.execPath,
  [
    '--test',
    `--test-concurrency=${concurrency}`,
    // Also bounds each test file as a whole: the longest (the kill -9 suite) took 364 s on a
    // 2-core machine at load 24; a hang fails after 8 minutes instead of 10.
    '--test-timeout=480000',
    '--test-reporter=spec',
    '--test-reporter-destination=stdout',
    '--test-reporter=tap',
    `--test-reporter-destination=${tapFile}`,
    ...files,
  ],
  { stdio: 'inherit', env: long ? { ...process.env, PUSHSEARCH_LONG_TESTS: '1' } : process.env },
);
const tap = readFileSync(tapFile, 'utf8');
renameSync(tapFile, join('.tmp', 'test-results.tap'));
const count = (label) => Number((tap.match(new RegExp(`^# ${label} (\\d+)$`, 'm')) ?? [])[1] ?? 0);
const passed = count('pass');
const failed = count('fail') + count('cancelled');
console.log(`${passed} passed, ${failed} failed`);
process.exit(result.status === 0 && failed === 0 ? 0 : 1);
