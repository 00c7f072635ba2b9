import { PushApiError } from '../client/push-api-error.js';
import type { CommitResponse } from '../client/types.js';
import { isSearchError } from '../errors.js';
import { describeError } from './exit-codes.js';
import type { LoadCounters } from './load-progress.js';

/** One document the server refused (or that failed after the retries). */
export interface LoadFailure {
  origin: string;
  key: string;
  code: string;
  /** HTTP status; 0 when no answer came. */
  status: number;
  message: string;
}

/** What `load --json` prints; the text report says the same in words. */
export interface LoadSummary extends LoadCounters {
  source: string;
  collection: string;
  /** Documents of the source this load covers (the first `--limit`). */
  documents: number;
  seconds: number;
  docsPerSecond: number;
  megabytesPerSecond: number;
  /** The first failures, in the order they happened. */
  failures: LoadFailure[];
  /** Every failure counted by its code. */
  failuresByCode: Record<string, number>;
  /** The server's answer to the final commit; null when there was none (`--no-commit`, or stopped). */
  commit: CommitResponse | null;
  /**
   * Documents of this load searchable after the final commit: every acknowledged one (stored
   * now or by an earlier run), since the commit makes everything staged before it searchable,
   * whatever auto-commits took before. Null when not committed.
   */
  committed: number | null;
  /** The collection's documents after the commit, as the server counts them (its state). */
  collectionDocuments: number | null;
  /** Sent but never acknowledged: in flight when the load stopped. A resume sends them again. */
  notStored: number;
  /** Why the load stopped before the end; null when it ran to the end. */
  stoppedBy: { code: string; status: number | null; message: string } | null;
  /** The resume state file, when one is kept (something is left to do); null otherwise. */
  state: string | null;
}

/** Failures kept in the summary (the rest are only counted). */
export const MAX_FAILURES_KEPT = 10;

/** The failure record of an error a document push ended with. */
export function failureOf(origin: string, key: string, error: unknown): LoadFailure {
  if (error instanceof PushApiError)
    return { origin, key, code: error.code, status: error.status, message: error.message };
  if (isSearchError(error)) return { origin, key, code: error.code, status: 0, message: error.message };
  return { origin, key, code: 'ERROR', status: 0, message: (error as Error)?.message ?? String(error) };
}

/** The report of a load that ran to its end (stdout). */
export function finishedReport(summary: LoadSummary): string {
  const lines = [countsLine(summary), rateLine(summary)];
  lines.push(...failureLines(summary));
  if (summary.commit === null)
    lines.push('not committed (--no-commit): the stored documents become searchable at the next commit');
  else lines.push(committedLine(summary, summary.commit));
  if (summary.state !== null)
    lines.push(
      `resume: the same command with --resume sends only what is not stored yet ${
        summary.failed > 0 ? `(the ${summary.failed} failed documents)` : '(the rest of the source)'
      }; state in ${summary.state}`,
    );
  return `${lines.join('\n')}\n`;
}

/** The report of a load that stopped before its end (stderr): counts so far and how to go on. */
export function stoppedReport(summary: LoadSummary, error: unknown, url: string): string {
  const unreachable = error instanceof PushApiError && (error.status === 0 || error.status === 503);
  const lines = [
    unreachable
      ? `load stopped: the server at ${url} stopped answering: ${describeError(error)}`
      : `load stopped: ${describeError(error)}`,
    countsLine(summary),
  ];
  if (summary.notStored > 0)
    lines.push(
      `  ${summary.notStored} sent but not acknowledged (in flight when it stopped): a resume sends them again (a PUT repeated is harmless)`,
    );
  lines.push(...failureLines(summary));
  if (summary.commit === null && summary.stored + summary.skipped > 0)
    lines.push(
      '  not committed: the stored documents are durable on the server and become searchable at its next commit (an auto-commit, or the resumed load)',
    );
  if (summary.state !== null)
    lines.push(
      `to resume${unreachable ? ' once the server answers again' : ''}: the same command with --resume (it skips the ${summary.stored + summary.skipped} acknowledged documents; state in ${summary.state})`,
    );
  return `${lines.join('\n')}\n`;
}

function countsLine(s: LoadSummary): string {
  const of = s.documents === s.read ? `${s.read}` : `${s.read} of ${s.documents}`;
  return (
    `read ${of} documents of ${s.source} in ${s.seconds.toFixed(1)} s: ${s.stored} stored, ${s.failed} failed` +
    (s.skipped > 0 ? `, ${s.skipped} skipped (stored by an earlier run)` : '')
  );
}

function rateLine(s: LoadSummary): string {
  return `  ${s.docsPerSecond} docs/s, ${s.megabytesPerSecond} MB/s, ${s.retries} retries`;
}

function failureLines(s: LoadSummary): string[] {
  if (s.failed === 0) return [];
  const byCode = Object.entries(s.failuresByCode)
    .sort((a, b) => b[1] - a[1])
    .map(([code, count]) => `${code} ${count}`)
    .join(', ');
  return [
    `failed ${s.failed}: ${byCode}; the first ${Math.min(s.failed, s.failures.length)}:`,
    ...s.failures.map(
      (f) =>
        `  ${f.origin} (${f.key}): ${f.code} (${f.status === 0 ? 'no answer' : `HTTP ${f.status}`}): ${f.message}`,
    ),
  ];
}

function committedLine(s: LoadSummary, commit: CommitResponse): string {
  const searchable = s.committed ?? 0;
  const previous = s.skipped > 0 ? ` (${s.skipped} of them stored by an earlier run)` : '';
  const byFinal =
    commit.changes >= s.stored
      ? `the final commit made ${commit.changes} staged changes searchable`
      : `the final commit made the last ${commit.changes} staged changes searchable, auto-commits the others`;
  const generation =
    commit.generation === null || commit.generation === undefined ? '' : ` (generation ${commit.generation})`;
  const collection =
    s.collectionDocuments === null ? '' : `; the collection has ${s.collectionDocuments} documents`;
  return `committed: all ${searchable} acknowledged documents are searchable${previous}: ${byFinal}${generation}${collection}`;
}
