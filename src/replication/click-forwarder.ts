import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { appendFile, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { SearchError } from '../errors.js';
import { readText, type SyncClient } from './sync-client.js';

/** The click log's file name (see `src/collection/evidence/click-log.ts`, whose format this moves unchanged). */
const CLICK_LOG = 'clicks.log';
/** Click log files renamed away from `clicks.log`, waiting to be handed to the master. */
const OUTBOX = 'outbox';
/** Batch ids a master has appended already (a query processor may send one again after a crash). */
const RECEIVED = 'received-batches.json';
const RECEIVED_KEPT = 2000;

/** Longest click log line a master accepts (a click's query and URL are at most 2,000 characters each). */
export const MAX_CLICK_LINE_BYTES = 64 * 1024;
/** Most lines in one batch a master accepts (`POST .../clicks`). */
export const MAX_CLICK_BATCH_LINES = 10_000;
/** Largest body of one batch a master accepts. */
export const MAX_CLICK_BATCH_BYTES = 8 * 1024 * 1024;
/** A forwarder cuts an outbox file into batches of at most this many bytes of lines (well under {@link MAX_CLICK_BATCH_BYTES}). */
const BATCH_BYTES = 1024 * 1024;
/** ... and at most this many lines (half of {@link MAX_CLICK_BATCH_LINES}). */
const BATCH_LINES = MAX_CLICK_BATCH_LINES / 2;

/**
 * Hands a query processor's click log to its master, so that click evidence on the admin
 * reflects every query processor. Every `intervalMs` the log is renamed into `outbox/`
 * (new clicks start a new `clicks.log`), and each outbox file is sent, at the run after, as
 * signed batches (cut at {@link BATCH_BYTES} and {@link BATCH_LINES}, the same way every time);
 * it is deleted only once the master acknowledged all of them. A batch whose acknowledgement
 * was lost (a crash, a cut connection) is sent again under the same id, and the master appends
 * a batch id only once ({@link ClickReceiver}): clicks arrive once, even across restarts.
 *
 * The log is moved only after every outbox file was acknowledged, so while the master does
 * not take them the outbox keeps one file and `clicks.log` stops at its own cap
 * (`search.clicks.max-log-bytes`, enforced where clicks are logged): a query processor cut
 * off from its master keeps at most twice that on disk.
 */
export class ClickForwarder {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private readonly abort = new AbortController();
  /** Clicks handed over since start. */
  forwarded = 0;
  lastError: { time: string; message: string } | null = null;

  constructor(
    private readonly options: {
      collection: string;
      clickFolder: string;
      client: SyncClient;
      /** Names this server's batches (kept in the replica folder). */
      serverId: string;
      intervalMs?: number;
    },
  ) {}

  start(): void {
    if (this.timer !== undefined) return;
    this.timer = setInterval(
      () => void this.forwardNow().catch(() => undefined),
      this.options.intervalMs ?? 5000,
    );
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    this.abort.abort();
    await this.running?.catch(() => undefined);
  }

  /** Sends every outbox file, then moves the current click log to the outbox (one run at a time). */
  forwardNow(): Promise<void> {
    this.running ??= this.forward().finally(() => (this.running = undefined));
    return this.running;
  }

  private async forward(): Promise<void> {
    const outbox = join(this.options.clickFolder, OUTBOX);
    mkdirSync(outbox, { recursive: true });
    for (const name of readdirSync(outbox).sort()) {
      if (this.abort.signal.aborted) return;
      const file = join(outbox, name);
      const text = await readFile(file, 'utf8');
      const lines = text
        .split('\n')
        .filter((line) => line.length > 0 && Buffer.byteLength(line) <= MAX_CLICK_LINE_BYTES);
      try {
        const batches = cutIntoBatches(lines);
        for (const [i, batch] of batches.entries()) {
          // One batch keeps the file's plain id; the parts of a bigger file are numbered.
          const id = `${this.options.serverId}:${name}${batches.length === 1 ? '' : `:${i}`}`;
          await this.send(id, batch);
        }
        rmSync(file, { force: true });
        this.forwarded += lines.length;
        this.lastError = null;
      } catch (error) {
        this.lastError = { time: new Date().toISOString(), message: (error as Error).message };
        throw error;
      }
    }
    // Renamed now, sent at the next run: a click whose append opened the file just before
    // the rename has long been written by then.
    const log = join(this.options.clickFolder, CLICK_LOG);
    if (existsSync(log)) {
      // Sortable, unique: the batch id is this server's id plus the file's name.
      const name = `${Date.now().toString().padStart(15, '0')}-${randomBytes(4).toString('hex')}.log`;
      renameSync(log, join(outbox, name));
    }
  }

  private async send(batch: string, lines: string[]): Promise<void> {
    const body = new TextEncoder().encode(JSON.stringify({ batch, lines }));
    const response = await this.options.client.send(
      'POST',
      `/collections/${encodeURIComponent(this.options.collection)}/clicks`,
      { body, signal: this.abort.signal },
    );
    await readText(response);
  }
}

/** An outbox file's lines as batches of at most {@link BATCH_LINES} lines and {@link BATCH_BYTES} bytes. */
function cutIntoBatches(lines: string[]): string[][] {
  const batches: string[][] = [];
  let current: string[] = [];
  let bytes = 0;
  for (const line of lines) {
    const size = Buffer.byteLength(line) + 4; // quotes, comma, a little escaping
    if (current.length > 0 && (current.length === BATCH_LINES || bytes + size > BATCH_BYTES)) {
      batches.push(current);
      current = [];
      bytes = 0;
    }
    current.push(line);
    bytes += size;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}

/** What a master did with a batch of clicks. */
export interface ReceivedClicks {
  /** The batch id was appended before (a retry): nothing appended now. */
  duplicate: boolean;
  /** Lines appended to the click log. */
  accepted: number;
  /** Lines not appended: not a JSON object, longer than {@link MAX_CLICK_LINE_BYTES}, or past the click log's cap. */
  dropped: number;
}

/**
 * The master's side of {@link ClickForwarder}: appends a batch's lines to the collection's
 * click log (one write, `O_APPEND`, as `/s/redirect` does) unless its id was appended before.
 * Lines that are not JSON objects, or longer than {@link MAX_CLICK_LINE_BYTES}, are dropped
 * (the click log's readers would skip them). The click log's cap (`search.clicks.max-log-bytes`)
 * holds here as for the master's own clicks: the lines that would take `clicks.log` past it
 * are dropped (and `onLogFull` told), so a query processor, or anyone holding the secret,
 * cannot fill the master's disk. A dropped line is not asked for again: the batch counts
 * as received.
 */
export class ClickReceiver {
  private queue: Promise<unknown> = Promise.resolve();
  /** The last batch met the cap (`onLogFull` is told once per time the log fills). */
  private full = false;

  constructor(
    private readonly clickFolder: string,
    private readonly limits: { maxLogBytes: number; onLogFull?: () => void },
  ) {}

  receive(batch: string, lines: string[]): Promise<ReceivedClicks> {
    // One batch at a time: the received list is read, appended to and rewritten.
    const run = this.queue.then(() => this.append(batch, lines));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async append(batch: string, lines: string[]): Promise<ReceivedClicks> {
    mkdirSync(this.clickFolder, { recursive: true });
    const receivedFile = join(this.clickFolder, RECEIVED);
    let received: string[] = [];
    try {
      received = JSON.parse(readFileSync(receivedFile, 'utf8')) as string[];
      if (!Array.isArray(received)) received = [];
    } catch {
      received = [];
    }
    if (received.includes(batch)) return { duplicate: true, accepted: 0, dropped: 0 };
    const log = join(this.clickFolder, CLICK_LOG);
    const room =
      this.limits.maxLogBytes -
      (await stat(log).then(
        (info) => info.size,
        () => 0,
      ));
    let text = '';
    let bytes = 0;
    let accepted = 0;
    let full = false;
    for (const line of lines) {
      const size = Buffer.byteLength(line) + 1;
      if (size > MAX_CLICK_LINE_BYTES || !isJsonObject(line)) continue;
      if (bytes + size > room) {
        full = true;
        continue;
      }
      text += `${line}\n`;
      bytes += size;
      accepted++;
    }
    if (text.length > 0) await appendFile(log, text);
    if (full && !this.full) this.limits.onLogFull?.();
    this.full = full;
    received.push(batch);
    const temp = `${receivedFile}.tmp`;
    await writeFile(temp, JSON.stringify(received.slice(-RECEIVED_KEPT)));
    await rename(temp, receivedFile);
    return { duplicate: false, accepted, dropped: lines.length - accepted };
  }
}

function isJsonObject(line: string): boolean {
  try {
    const value = JSON.parse(line) as unknown;
    return typeof value === 'object' && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}

/** This server's replication id (random, kept in `file`): names its click batches. */
export function serverIdIn(file: string): string {
  try {
    const id = readFileSync(file, 'utf8').trim();
    if (/^[0-9a-f]{16}$/.test(id)) return id;
  } catch {
    // Created below.
  }
  const id = randomBytes(8).toString('hex');
  try {
    writeFileSync(file, id);
  } catch (error) {
    throw new SearchError('INTERNAL', `cannot write ${file}: ${(error as Error).message}`, { cause: error });
  }
  return id;
}
