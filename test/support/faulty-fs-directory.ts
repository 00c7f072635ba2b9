import {
  appendFileSync,
  existsSync,
  linkSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { isMainThread, threadId } from 'node:worker_threads';
import type {
  Directory,
  DirectoryDescription,
  IndexInput,
  IndexOutput,
  WorkerDirectory,
} from '../../src/index/store/directory.js';
import { FsDirectory } from '../../src/index/store/fs-directory.js';

/**
 * Fault injection on a real folder, in every thread of the process (Lucene's
 * MockDirectoryWrapper, carried across worker threads). The index describes it to its
 * indexing and merge workers as a `module` directory ({@link describe}); each worker then
 * builds its own instance over the same folder, the same shared counters and the same
 * bookkeeping folder, so a fault planned by the test fires in whichever thread reaches it.
 *
 * Shared between threads:
 * - a `SharedArrayBuffer`: operation counters (writes and reads, all threads and worker
 *   threads only), the one planned fault ({@link inject}) and the "process is dead" flag;
 * - a bookkeeping folder beside the index folder: which inode was synced at which length,
 *   which names the last folder sync made durable, a hard link to every inode the index
 *   deleted or replaced (a crash may bring the name back), a marker per open handle, and the
 *   violations found.
 *
 * What it checks (each found violation is recorded and reported by {@link assertClean},
 * naming the file):
 * - no file deleted (or renamed over) while a handle on it is open, in any thread;
 * - no handle left open once the index closed (markers name the file, the thread and the
 *   stack that opened it);
 * - writes after close.
 *
 * What it injects: one I/O error (`error`), or a crash (`crash`: that operation and every
 * later one, in every thread, fail; {@link crashed} then builds the folder a restarted
 * process would find, unsynced bytes of any thread dropped, cut or garbled).
 */

/** Which operations a planned fault counts. */
export type FaultKind = 'write' | 'read';
/** Which threads' operations it counts. */
export type FaultThreads = 'any' | 'workers' | 'main';

export interface FaultPlan {
  kind: FaultKind;
  threads: FaultThreads;
  /** The fault fires at this operation (1-based) of the counted kind and threads, from now. */
  at: number;
  /** `error`: that operation fails once. `crash`: it and every later operation fail. */
  mode: 'error' | 'crash';
}

interface Options {
  path: string;
  state: string;
  shared: SharedArrayBuffer;
}

// Slots of the shared Int32Array.
const DEAD = 0;
const COUNTERS = 1; // 6 slots: (write, read) × (any, workers, main)
const PLAN_KIND = 7; // 0 none, 1 write, 2 read
const PLAN_THREADS = 8; // 0 any, 1 workers, 2 main
const PLAN_AT = 9;
const PLAN_MODE = 10; // 1 error, 2 crash
const FIRED = 11;
const SLOTS = 12;

const KINDS: FaultKind[] = ['write', 'read'];
const THREADS: FaultThreads[] = ['any', 'workers', 'main'];
const counterSlot = (kind: FaultKind, threads: FaultThreads) =>
  COUNTERS + KINDS.indexOf(kind) * 3 + THREADS.indexOf(threads);

/** An open handle, as recorded by its marker. */
export interface OpenHandle {
  file: string;
  thread: number;
  kind: 'input' | 'output';
  openedAt: string;
}

/** What {@link FaultyFsDirectory.crashed} does with the bytes of a file written after its last sync. */
export type UnsyncedFate = 'drop' | 'prefix' | 'garbage' | 'zeros';

export class FaultyFsDirectory implements WorkerDirectory {
  readonly inner: FsDirectory;
  private readonly options: Options;
  private readonly slots: Int32Array;
  private handles = 0;

  private constructor(options: Options) {
    this.options = options;
    this.inner = new FsDirectory(options.path);
    this.slots = new Int32Array(options.shared);
  }

  /** A new faulty directory over `path`, its bookkeeping in `path` + `.faults`. */
  static create(path: string): FaultyFsDirectory {
    const state = `${path}.faults`;
    for (const sub of ['open', 'synced', 'graveyard']) mkdirSync(join(state, sub), { recursive: true });
    return new FaultyFsDirectory({ path, state, shared: new SharedArrayBuffer(SLOTS * 4) });
  }

  /** Worker side: the same directory, rebuilt from {@link describe}'s options. */
  static fromOptions(options: Options): FaultyFsDirectory {
    return new FaultyFsDirectory(options);
  }

  get path(): string {
    return this.inner.path;
  }

  describe(): DirectoryDescription {
    return { kind: 'module', url: import.meta.url, options: this.options };
  }

  // ---------------------------------------------------------------------------------------
  // Test controls

  /** Plans one fault (replacing any planned before); counting starts now. */
  inject(plan: FaultPlan): void {
    Atomics.store(this.slots, PLAN_KIND, 0);
    const base = Atomics.load(this.slots, counterSlot(plan.kind, plan.threads));
    Atomics.store(this.slots, PLAN_THREADS, THREADS.indexOf(plan.threads));
    Atomics.store(this.slots, PLAN_AT, base + plan.at);
    Atomics.store(this.slots, PLAN_MODE, plan.mode === 'error' ? 1 : 2);
    Atomics.store(this.slots, PLAN_KIND, KINDS.indexOf(plan.kind) + 1);
  }

  /** No planned fault any more, and the "process" lives again (the disk healed). */
  heal(): void {
    Atomics.store(this.slots, PLAN_KIND, 0);
    Atomics.store(this.slots, DEAD, 0);
  }

  /** Operations counted so far. */
  count(kind: FaultKind, threads: FaultThreads = 'any'): number {
    return Atomics.load(this.slots, counterSlot(kind, threads));
  }

  /** Faults that fired so far. */
  get fired(): number {
    return Atomics.load(this.slots, FIRED);
  }

  get isDead(): boolean {
    return Atomics.load(this.slots, DEAD) !== 0;
  }

  /** Handles open now, in any thread. */
  openHandles(): OpenHandle[] {
    return readdirSync(join(this.options.state, 'open')).map((marker) => {
      const [file, thread] = marker.split('~');
      const [kind, ...stack] = readFileSync(join(this.options.state, 'open', marker), 'utf8').split('\n');
      return {
        file: decodeURIComponent(file!),
        thread: Number(thread),
        kind: kind as 'input' | 'output',
        openedAt: stack.join('\n'),
      };
    });
  }

  /** Misuses recorded so far (a file deleted while open, a write after close), one line each. */
  violations(): string[] {
    const file = join(this.options.state, 'violations');
    return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
  }

  /** Throws, naming the files, when a handle is open or a misuse was recorded (call once the index closed). */
  assertClean(): void {
    const problems = [
      ...this.violations(),
      ...this.openHandles().map(
        (h) => `handle left open: ${h.file} (${h.kind}, thread ${h.thread}) opened at\n${h.openedAt}`,
      ),
    ];
    if (problems.length > 0) throw new Error(`faulty directory ${this.path}:\n${problems.join('\n')}`);
  }

  /**
   * The folder a process restarted after a crash now would find, written to `target`.
   *
   * Without `random`, the strict model: the names the last folder sync made durable, each
   * with the bytes its last sync made durable; everything later (by any thread) is lost.
   * With `random`, what a journaling file system may also keep: a random prefix of the name
   * operations (creations, renames, deletions) since that folder sync, in their order, and for
   * each file the bytes written after its last sync dropped, cut at a random length, replaced
   * by garbage or by zeros (one of `fates`, at random). Returns what happened to each file
   * that had unsynced bytes.
   */
  crashed(
    target: string,
    random?: () => number,
    fates: readonly UnsyncedFate[] = ['drop', 'prefix', 'garbage', 'zeros'],
  ): Map<string, UnsyncedFate> {
    mkdirSync(target, { recursive: true });
    const outcome = new Map<string, UnsyncedFate>();
    const { names, logFrom } = this.durableNames();
    if (random !== undefined) {
      const log = this.nameLog().slice(logFrom);
      for (const line of log.slice(0, Math.floor(random() * (log.length + 1)))) {
        const [op, a, b, c] = line.split(' ');
        if (op === 'create') names[decodeURIComponent(a!)] = Number(b);
        else if (op === 'delete') delete names[decodeURIComponent(a!)];
        else if (op === 'rename') {
          delete names[decodeURIComponent(a!)];
          names[decodeURIComponent(b!)] = Number(c);
        }
      }
    }
    for (const [name, ino] of Object.entries(names)) {
      const content = readFileSync(this.inodePath(name, ino));
      const synced = Math.min(content.length, this.syncedLength(ino));
      let bytes = content.subarray(0, synced);
      if (content.length > synced) {
        const fate = random === undefined ? 'drop' : fates[Math.floor(random() * fates.length)]!;
        outcome.set(name, fate);
        const tail = content.length - synced;
        if (fate === 'prefix') bytes = content.subarray(0, synced + Math.floor(random!() * tail));
        else if (fate === 'garbage' || fate === 'zeros') {
          bytes = Buffer.from(content);
          if (fate === 'zeros') bytes.fill(0, synced);
          else for (let i = synced; i < bytes.length; i++) bytes[i] = Math.floor(random!() * 256);
        }
      }
      writeFileSync(join(target, name), bytes);
    }
    return outcome;
  }

  // ---------------------------------------------------------------------------------------
  // Directory

  listAll(): string[] {
    return this.inner.listAll();
  }

  fileExists(name: string): boolean {
    return this.inner.fileExists(name);
  }

  fileLength(name: string): number {
    return this.inner.fileLength(name);
  }

  createOutput(name: string): IndexOutput {
    this.step('write', `create ${name}`);
    const out = this.inner.createOutput(name);
    this.logName(`create ${encodeURIComponent(name)} ${statSync(join(this.path, name)).ino}`);
    const marker = this.markOpen(name, 'output');
    let open = true;
    return {
      name,
      get position() {
        return out.position;
      },
      write: (bytes: Uint8Array) => {
        if (!open) this.violation(`write after close: ${name}`);
        this.step('write', `write ${name}`);
        out.write(bytes);
      },
      close: () => {
        if (!open) return;
        open = false;
        try {
          out.close();
        } finally {
          this.unmark(marker);
        }
      },
    };
  }

  openInput(name: string): IndexInput {
    this.step('read', `open ${name}`);
    const input = this.inner.openInput(name);
    const marker = this.markOpen(name, 'input');
    let open = true;
    return {
      name,
      length: input.length,
      read: (offset: number, length: number) => {
        if (!open) this.violation(`read after close: ${name}`);
        this.step('read', `read ${name}@${offset}+${length}`);
        return input.read(offset, length);
      },
      close: () => {
        if (!open) return;
        open = false;
        try {
          input.close();
        } finally {
          this.unmark(marker);
        }
      },
    };
  }

  readFile(name: string): Uint8Array {
    this.step('read', `read ${name}`);
    return this.inner.readFile(name);
  }

  async sync(names: string[]): Promise<void> {
    this.step('write', `sync ${names.join(',')}`);
    const sizes = names.map((name) => statSync(join(this.path, name)));
    await this.inner.sync(names);
    sizes.forEach((stat) => this.recordSynced(stat.ino, stat.size));
  }

  syncNow(names: string[]): void {
    this.step('write', `sync ${names.join(',')}`);
    const sizes = names.map((name) => statSync(join(this.path, name)));
    this.inner.syncNow(names);
    sizes.forEach((stat) => this.recordSynced(stat.ino, stat.size));
  }

  async syncDirectory(): Promise<void> {
    this.step('write', 'sync directory');
    // Listed before the fsync: a name created while it runs is not counted durable. The name
    // operations logged from `logFrom` on may be reflected in the listing already: replaying
    // them over it (crashed) gives the same names.
    const logFrom = this.nameLog().length;
    const names: Record<string, number> = {};
    for (const name of this.listAll()) {
      try {
        names[name] = statSync(join(this.path, name)).ino;
      } catch {
        // Deleted meanwhile by another thread (the log has it).
      }
    }
    await this.inner.syncDirectory();
    const file = join(this.options.state, 'durable.json');
    const temp = `${file}.${threadId}`;
    writeFileSync(temp, JSON.stringify({ names, logFrom }));
    renameSync(temp, file);
  }

  rename(from: string, to: string): void {
    this.step('write', `rename ${from} ${to}`);
    this.checkNotOpen(to, 'renamed over');
    this.bury(to);
    const ino = statSync(join(this.path, from)).ino;
    this.inner.rename(from, to);
    this.logName(`rename ${encodeURIComponent(from)} ${encodeURIComponent(to)} ${ino}`);
  }

  deleteFile(name: string): void {
    this.step('write', `delete ${name}`);
    this.checkNotOpen(name, 'deleted');
    const existed = this.bury(name);
    this.inner.deleteFile(name);
    if (existed) this.logName(`delete ${encodeURIComponent(name)}`);
  }

  linkTo(name: string, target: Directory): void {
    this.step('write', `link ${name}`);
    this.inner.linkTo(name, target instanceof FaultyFsDirectory ? target.inner : target);
  }

  copyFrom(source: Directory, name: string): void {
    this.step('write', `copy ${name}`);
    this.bury(name);
    this.inner.copyFrom(source instanceof FaultyFsDirectory ? source.inner : source, name);
    // FsDirectory.copyFrom syncs the copy before renaming it in.
    const stat = statSync(join(this.path, name));
    this.recordSynced(stat.ino, stat.size);
    this.logName(`create ${encodeURIComponent(name)} ${stat.ino}`);
  }

  // ---------------------------------------------------------------------------------------

  private step(kind: FaultKind, what: string): void {
    const s = this.slots;
    if (kind === 'write' && Atomics.load(s, DEAD) !== 0)
      throw ioError(`injected crash: the process is dead (${what}, thread ${threadId})`);
    const mine: FaultThreads = isMainThread ? 'main' : 'workers';
    const now = {
      any: Atomics.add(s, counterSlot(kind, 'any'), 1) + 1,
      workers: mine === 'workers' ? Atomics.add(s, counterSlot(kind, 'workers'), 1) + 1 : -1,
      main: mine === 'main' ? Atomics.add(s, counterSlot(kind, 'main'), 1) + 1 : -1,
    };
    const planKind = Atomics.load(s, PLAN_KIND);
    if (planKind !== KINDS.indexOf(kind) + 1) return;
    const threads = THREADS[Atomics.load(s, PLAN_THREADS)]!;
    if (now[threads] !== Atomics.load(s, PLAN_AT)) return;
    // Exactly one operation sees its number equal the plan's: it fires.
    Atomics.add(s, FIRED, 1);
    if (Atomics.load(s, PLAN_MODE) === 2) Atomics.store(s, DEAD, 1);
    else Atomics.store(s, PLAN_KIND, 0);
    throw ioError(`injected ${kind} fault (${what}, thread ${threadId})`);
  }

  private markOpen(name: string, kind: 'input' | 'output'): string {
    const marker = join(
      this.options.state,
      'open',
      `${encodeURIComponent(name)}~${threadId}~${++this.handles}`,
    );
    const stack = (new Error().stack ?? '').split('\n').slice(2, 9).join('\n');
    writeFileSync(marker, `${kind}\n${stack}`);
    return marker;
  }

  private unmark(marker: string): void {
    unlinkSync(marker);
  }

  private checkNotOpen(name: string, what: string): void {
    const prefix = `${encodeURIComponent(name)}~`;
    const open = readdirSync(join(this.options.state, 'open')).filter((m) => m.startsWith(prefix));
    if (open.length > 0) {
      const threads = open.map((m) => m.split('~')[1]).join(', ');
      this.violation(
        `${what} while open: ${name} (open in thread ${threads}; ${what} by thread ${threadId})`,
      );
    }
  }

  private violation(line: string): void {
    appendFileSync(join(this.options.state, 'violations'), `${line}\n`);
  }

  /** Keeps the inode of `name` (about to be deleted or replaced): a crash may bring the name back. */
  private bury(name: string): boolean {
    const file = join(this.path, name);
    let ino: number;
    try {
      ino = statSync(file).ino;
    } catch {
      return false;
    }
    const grave = join(this.options.state, 'graveyard', String(ino));
    if (!existsSync(grave)) linkSync(file, grave);
    return true;
  }

  /** Appends a name operation to the log every thread shares (one short line: one append). */
  private logName(line: string): void {
    appendFileSync(join(this.options.state, 'names.log'), `${line}\n`);
  }

  private nameLog(): string[] {
    const file = join(this.options.state, 'names.log');
    return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
  }

  private recordSynced(ino: number, size: number): void {
    writeFileSync(join(this.options.state, 'synced', String(ino)), String(size));
  }

  private syncedLength(ino: number): number {
    const file = join(this.options.state, 'synced', String(ino));
    return existsSync(file) ? Number(readFileSync(file, 'utf8')) : 0;
  }

  private durableNames(): { names: Record<string, number>; logFrom: number } {
    const file = join(this.options.state, 'durable.json');
    return existsSync(file)
      ? (JSON.parse(readFileSync(file, 'utf8')) as { names: Record<string, number>; logFrom: number })
      : { names: {}, logFrom: 0 };
  }

  /** Where the inode a durable name pointed to is now: under that name, another, or in the graveyard. */
  private inodePath(name: string, ino: number): string {
    const grave = join(this.options.state, 'graveyard', String(ino));
    if (existsSync(grave)) return grave;
    for (const candidate of [name, ...this.listAll()]) {
      const path = join(this.path, candidate);
      if (existsSync(path) && statSync(path).ino === ino) return path;
    }
    throw new Error(`faulty directory: the inode of ${name} (${ino}) is gone (deleted without a trace)`);
  }
}

function ioError(message: string): NodeJS.ErrnoException {
  const error = new Error(message) as NodeJS.ErrnoException;
  error.code = 'EIO';
  return error;
}

/**
 * Worker side of {@link FaultyFsDirectory.describe} (see openDescribedDirectory), which
 * imports this module by URL.
 * @public
 */
export function openDirectory(options: Options): WorkerDirectory {
  return FaultyFsDirectory.fromOptions(options);
}
