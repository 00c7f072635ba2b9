#!/usr/bin/env node
// Type-checks the tree with `noUncheckedIndexedAccess` and fails on any error in the folders
// listed below. tsc has no per-folder option, and the flag is not yet on for the whole tree
// (issue #24): the folders here read arrays and maps as `T | undefined`, so an index that can
// be out of range is checked where it is read. Add a folder once its errors are fixed; when
// every folder is listed, turn the flag on in tsconfig.json and delete this script.
// Usage: node scripts/check-indexed-access.js   (run by `npm run check`)
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/** Folders of src/ whose indexed reads must be checked. */
const CHECKED_FOLDERS = [
  'src/client/',
  'src/collection/',
  'src/cli/',
  'src/http/',
  'src/index/',
  'src/journal/',
  'src/replication/',
  'src/search/',
  'src/security/',
  'bench/',
];

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const configPath = resolve(root, 'tsconfig.json');
const config = ts.getParsedCommandLineOfConfigFile(
  configPath,
  { noUncheckedIndexedAccess: true, noEmit: true, incremental: false },
  { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => fail([d]) },
);
if (config === undefined) fail([], `cannot read ${configPath}`);
if (config.errors.length > 0) fail(config.errors);

const program = ts.createProgram({ rootNames: config.fileNames, options: config.options });
/** What is checked, for messages. */
const SCOPE = ['src/*.ts', ...CHECKED_FOLDERS].join(', ');
/** The files of src/ itself (errors, the error code table, small helpers) are checked too. */
const isChecked = (path) =>
  /^src\/[^/]+\.ts$/.test(path) || CHECKED_FOLDERS.some((folder) => path.startsWith(folder));
const checked = program.getSourceFiles().filter((file) => isChecked(relative(root, file.fileName)));
const diagnostics = checked.flatMap((file) => [
  ...program.getSyntacticDiagnostics(file),
  ...program.getSemanticDiagnostics(file),
]);
if (checked.length === 0) fail([], `no files found under ${SCOPE}`);
if (diagnostics.length > 0) fail(diagnostics);
console.log(`noUncheckedIndexedAccess: ${checked.length} files in ${SCOPE} pass`);

/** Prints the diagnostics (and a message) and exits with status 1. */
function fail(list, message) {
  const host = {
    getCanonicalFileName: (f) => f,
    getCurrentDirectory: () => root,
    getNewLine: () => '\n',
  };
  if (list.length > 0) console.error(ts.formatDiagnostics(list, host));
  console.error(
    message ??
      `noUncheckedIndexedAccess: ${list.length} error(s) in ${SCOPE}: check the index ` +
        '(a clear error where it can be out of range) or iterate without one (for...of, entries()).',
  );
  process.exit(1);
}
