import cliProgress from 'cli-progress';

/** Counters of a running load. */
export interface LoadCounters {
  /** Documents taken from the source by this run (sent, or skipped). */
  read: number;
  /** Acknowledged by the server (durable there). */
  stored: number;
  /** Refused by the server, or given up after the retries. */
  failed: number;
  /** Not sent: acknowledged by an earlier run (`--resume`). */
  skipped: number;
  /** Content bytes of the stored documents. */
  bytes: number;
  /** Requests repeated after a failure (the client's retries). */
  retries: number;
}

/** How often the load feeds the ETA: with {@link ETA_WINDOW_SAMPLES}, a moving window of 10 s. */
export const SAMPLE_MS = 250;
/**
 * The ETA is the remaining documents over the rate of the last 40 samples (10 s), so a short
 * stall (a commit, a retry) moves it a little instead of sending it to minutes, while a
 * lasting change of pace shows within seconds.
 */
const ETA_WINDOW_SAMPLES = 40;
/** No ETA from less than 2 s of samples: the first ones are the login and the first round trips. */
const ETA_MIN_SAMPLES = 8;

/** Options of {@link LoadProgress}. */
export interface LoadProgressOptions {
  /** Where the progress goes (default stderr: stdout carries the summary). */
  stream?: NodeJS.WriteStream;
  /** Off a terminal: one line every this many ms (default 10 s). */
  logIntervalMs?: number;
}

/**
 * The progress display of `load`, drawn by cli-progress: on a terminal a bar that rewrites
 * itself; elsewhere (a log file, a CI job) a plain line every `logIntervalMs`. Percentage and
 * ETA are of the documents this run sends (`--limit` applied, documents skipped by `--resume`
 * left out), not of the whole source.
 */
export class LoadProgress {
  private readonly bar: cliProgress.SingleBar;
  private readonly started = Date.now();
  private readonly tty: boolean;
  private readonly stream: NodeJS.WriteStream;
  private samples = 0;

  constructor(
    private readonly counters: LoadCounters,
    /** Documents this run will send. */
    private readonly total: number,
    options: LoadProgressOptions = {},
  ) {
    this.stream = options.stream ?? process.stderr;
    this.tty = this.stream.isTTY === true;
    this.bar = new cliProgress.SingleBar({
      stream: this.stream,
      format: (_options, params) =>
        progressText({
          tty: this.tty,
          done: params.value,
          total: params.total,
          etaSeconds:
            typeof params.eta === 'number' && this.samples >= ETA_MIN_SAMPLES ? params.eta : undefined,
          seconds: this.elapsedSeconds(),
          counters: this.counters,
        }),
      fps: 5,
      etaBuffer: ETA_WINDOW_SAMPLES,
      noTTYOutput: true,
      notTTYSchedule: options.logIntervalMs ?? 10_000,
      // Leave the terminal's settings alone: a load stopped by Ctrl-C must not leave them changed.
      linewrap: true,
      hideCursor: false,
    });
  }

  /** Shows the first line (a log gets it at once: the load has started, with this total). */
  start(): void {
    this.bar.start(this.total, 0);
  }

  /** Feeds the ETA window; the load calls it every {@link SAMPLE_MS}. */
  sample(): void {
    this.samples++;
    this.bar.update(this.counters.stored + this.counters.failed);
  }

  /** Draws the line now (the library also draws on its own schedule). */
  draw(): void {
    this.bar.render();
  }

  /**
   * Prints a line about something else (a failed document) without breaking the bar: on a
   * terminal it clears the bar's line first, and the bar is drawn again below.
   */
  note(text: string): void {
    this.stream.write(this.tty ? `\r\u001b[K${text}\n` : `${text}\n`);
  }

  /** Draws the last state and ends the line, so the summary starts on its own. */
  stop(): void {
    this.sample();
    this.bar.stop();
  }

  /** Seconds since the start. */
  elapsedSeconds(): number {
    return (Date.now() - this.started) / 1000;
  }
}

/** What one progress line shows. */
export interface ProgressState {
  tty: boolean;
  /** Documents answered (stored or failed) of `total`. */
  done: number;
  total: number;
  /** Undefined while there is no rate to judge by. */
  etaSeconds: number | undefined;
  seconds: number;
  counters: LoadCounters;
}

const BAR_WIDTH = 24;

/**
 * One progress line. On a terminal: `[█████░░░] 45.0% 4500/10000 docs | 812 docs/s 1.20 MB/s
 * | ETA 7s | failed 0 retries 0`; in a log the same without the bar.
 */
export function progressText(state: ProgressState): string {
  const { done, total, counters } = state;
  const fraction = total === 0 ? 1 : Math.min(1, done / total);
  const seconds = Math.max(state.seconds, 0.001);
  const eta = done >= total ? '0s' : state.etaSeconds === undefined ? '-' : formatDuration(state.etaSeconds);
  const filled = Math.round(fraction * BAR_WIDTH);
  const bar = state.tty ? `[${'█'.repeat(filled)}${'░'.repeat(BAR_WIDTH - filled)}] ` : '';
  return (
    `${bar}${(fraction * 100).toFixed(1)}% ${done}/${total} docs | ` +
    `${(counters.stored / seconds).toFixed(0)} docs/s ${(counters.bytes / 1e6 / seconds).toFixed(2)} MB/s | ` +
    `ETA ${eta} | failed ${counters.failed} retries ${counters.retries}`
  );
}

/** `1h02m`, `3m05s`, `12s`. */
export function formatDuration(seconds: number): string {
  const s = Math.round(seconds);
  if (s >= 3600) return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
  if (s >= 60) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${s}s`;
}
