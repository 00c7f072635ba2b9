import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { appendFile, readFile, rename, writeFile } from 'node:fs/promises';
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

/**
 * Hands a query processor's click log to its master, so that click evidence on the admin
 * reflects every query processor. Every `intervalMs` the log is renamed into `outbox/`
 * (new clicks start a new `clicks.log`), and each outbox file is sent, at the run after, as
 * one signed batch;
 * it is deleted only once the master acknowledged it. A batch whose acknowledgement was
 * lost (a crash, a cut connection) is sent again under the same id, and the master appends
 * a batch id only once ({@link ClickReceiver}): clicks arrive once, even across restarts.
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
      const lines = text.split('\n').filter((line) => line.length > 0);
      try {
        if (lines.length > 0) await this.send(`${this.options.serverId}:${name}`, lines);
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

/**
 * The master's side of {@link ClickForwarder}: appends a batch's lines to the collection's
 * click log (one write, `O_APPEND`, as `/s/redirect` does) unless its id was appended before.
 * Lines that are not JSON objects are dropped (the click log's readers would skip them).
 */
export class ClickReceiver {
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly clickFolder: string) {}

  receive(batch: string, lines: string[]): Promise<{ duplicate: boolean }> {
    // One batch at a time: the received list is read, appended to and rewritten.
    const run = this.queue.then(() => this.append(batch, lines));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async append(batch: string, lines: string[]): Promise<{ duplicate: boolean }> {
    mkdirSync(this.clickFolder, { recursive: true });
    const receivedFile = join(this.clickFolder, RECEIVED);
    let received: string[] = [];
    try {
      received = JSON.parse(readFileSync(receivedFile, 'utf8')) as string[];
      if (!Array.isArray(received)) received = [];
    } catch {
      received = [];
    }
    if (received.includes(batch)) return { duplicate: true };
    const valid = lines.filter((line) => {
      try {
        const value = JSON.parse(line) as unknown;
        return typeof value === 'object' && value !== null && !Array.isArray(value);
      } catch {
        return false;
      }
    });
    if (valid.length > 0)
      await appendFile(join(this.clickFolder, CLICK_LOG), valid.map((l) => `${l}\n`).join(''));
    received.push(batch);
    const temp = `${receivedFile}.tmp`;
    await writeFile(temp, JSON.stringify(received.slice(-RECEIVED_KEPT)));
    await rename(temp, receivedFile);
    return { duplicate: false };
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
