import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { open, rename } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { SearchError } from '../../errors.js';

/**
 * The file format of the evidence store (`data/{collection}/evidence/*.json`), three lines:
 *
 *   1. header: `{"format":"pushsearch-evidence","kind":"<kind>","version":<n>}`
 *   2. body: one JSON value
 *   3. footer: `sha256:<hex>` of lines 1 and 2 (each with its `\n`)
 *
 * Files are replaced atomically: written to `<name>.tmp`, fsynced, renamed over the old
 * one, then the folder is fsynced, so a crash leaves the old file or the new one, never half
 * of one. A reader rejects a wrong kind, an unknown version or a bad checksum with
 * {@link EvidenceFileError}, which names the file.
 */
const FORMAT = 'pushsearch-evidence';

/** An evidence file that cannot be used (code `EVIDENCE_CORRUPT`). Evidence is derived data: callers rebuild it. */
export class EvidenceFileError extends SearchError {
  readonly file: string;
  constructor(file: string, problem: string) {
    super(
      'EVIDENCE_CORRUPT',
      `evidence file ${file} is unusable: ${problem}; it is rebuilt from the index and the click logs`,
      {
        details: { file },
      },
    );
    this.name = 'EvidenceFileError';
    this.file = file;
  }
}

/** Writes `body` as an evidence file of `kind`, atomically and durably. */
export async function writeEvidenceFile(
  path: string,
  kind: string,
  version: number,
  body: unknown,
): Promise<void> {
  const head = JSON.stringify({ format: FORMAT, kind, version }) + '\n' + JSON.stringify(body) + '\n';
  const text = head + 'sha256:' + createHash('sha256').update(head).digest('hex') + '\n';
  const temp = `${path}.tmp`;
  const file = await open(temp, 'w');
  try {
    await file.writeFile(text, 'utf8');
    await file.sync();
  } finally {
    await file.close();
  }
  await rename(temp, path);
  const folder = await open(dirname(path), 'r');
  try {
    await folder.sync();
  } finally {
    await folder.close();
  }
}

/**
 * Reads an evidence file: its body, or undefined when the file does not exist. Throws
 * {@link EvidenceFileError} when it exists but is not a valid file of `kind` and `version`.
 */
export function readEvidenceFile(path: string, kind: string, version: number): unknown {
  if (!existsSync(path)) return undefined;
  const name = basename(path);
  const text = readFileSync(path, 'utf8');
  const first = text.indexOf('\n');
  const second = first < 0 ? -1 : text.indexOf('\n', first + 1);
  if (second < 0) throw new EvidenceFileError(path, 'truncated (fewer than three lines)');
  const head = text.slice(0, second + 1);
  const footer = text.slice(second + 1).trimEnd();
  const expected = 'sha256:' + createHash('sha256').update(head).digest('hex');
  if (footer !== expected)
    throw new EvidenceFileError(path, 'checksum mismatch (the file was cut or changed)');
  let header: { format?: unknown; kind?: unknown; version?: unknown };
  try {
    header = JSON.parse(text.slice(0, first)) as typeof header;
  } catch {
    throw new EvidenceFileError(path, 'the header line is not JSON');
  }
  if (header.format !== FORMAT || header.kind !== kind) {
    throw new EvidenceFileError(
      path,
      `expected a ${kind} file, found ${JSON.stringify(header.kind)} in ${name}`,
    );
  }
  if (header.version !== version) {
    throw new EvidenceFileError(
      path,
      `format version ${String(header.version)} is not the supported version ${version}`,
    );
  }
  try {
    return JSON.parse(text.slice(first + 1, second)) as unknown;
  } catch {
    throw new EvidenceFileError(path, 'the body is not JSON');
  }
}
