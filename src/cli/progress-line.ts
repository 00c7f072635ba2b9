/** Counters of a running load. */
export interface LoadCounters {
  docs: number;
  failed: number;
  bytes: number;
  retries: number;
}

/**
 * The one-line progress display of `load` on stderr: docs/s, MB/s, ETA, retries. On a
 * terminal it rewrites itself (`\r`) a few times a second; otherwise (a log file, a CI job)
 * it prints a full line every `logIntervalMs` so the log stays readable.
 */
export class ProgressLine {
  private readonly started = Date.now();
  private last = 0;
  private readonly tty: boolean;

  constructor(
    private readonly counters: LoadCounters,
    private readonly fraction: () => number | undefined,
    private readonly out: NodeJS.WriteStream = process.stderr,
    private readonly logIntervalMs = 10_000,
  ) {
    this.tty = out.isTTY === true;
    // In a log, the first line comes after one interval: a short load prints only its summary.
    if (!this.tty) this.last = this.started;
  }

  /** Redraws when it is time to. */
  tick(): void {
    const now = Date.now();
    if (now - this.last < (this.tty ? 200 : this.logIntervalMs)) return;
    this.last = now;
    this.out.write(this.tty ? `\r${this.text()}\u001b[K` : `${this.text()}\n`);
  }

  /** Ends the line (on a terminal) so the summary starts on its own. */
  finish(): void {
    if (this.tty) this.out.write(`\r${this.text()}\u001b[K\n`);
  }

  /** Seconds since the start. */
  elapsedSeconds(): number {
    return (Date.now() - this.started) / 1000;
  }

  text(): string {
    const seconds = Math.max(this.elapsedSeconds(), 0.001);
    const { docs, failed, bytes, retries } = this.counters;
    const fraction = this.fraction();
    let eta = '';
    if (fraction !== undefined && fraction > 0 && fraction < 1)
      eta = ` ETA ${formatDuration((seconds * (1 - fraction)) / fraction)}`;
    const percent = fraction === undefined ? '' : ` ${(fraction * 100).toFixed(1)}%`;
    return `${docs} docs${percent} ${(docs / seconds).toFixed(0)} docs/s ${(bytes / 1e6 / seconds).toFixed(2)} MB/s${eta} retries ${retries} failed ${failed}`;
  }
}

/** `1h02m`, `3m05s`, `12s`. */
export function formatDuration(seconds: number): string {
  const s = Math.round(seconds);
  if (s >= 3600) return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
  if (s >= 60) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${s}s`;
}
