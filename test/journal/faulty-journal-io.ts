import { dirname } from 'node:path';
import { truncate, stat, unlink, appendFile } from 'node:fs/promises';
import { nodeJournalIo, type JournalFile, type JournalIo } from '../../src/journal/journal-io.js';

/** File operations a test can make fail. */
export type FaultOp = 'open' | 'write' | 'datasync' | 'truncate' | 'rename' | 'syncFolder';

interface FaultRule {
  op: FaultOp;
  code: string;
  /** How many more calls fail; Infinity = until cleared (a full disk). */
  remaining: number;
  /** For writes: write half of the bytes first (a short write that ran out of space). */
  partial: boolean;
}

/** What the simulated disk really holds of one file. */
interface FileState {
  path: string;
  /** File length at its last successful datasync: survives a power loss. */
  durableLength: number;
}

/**
 * The real file system with two test powers, after Lucene's MockDirectoryWrapper:
 * - {@link failWith}: the next calls of an operation fail with an errno code (ENOSPC, EIO).
 * - {@link powerLoss}: stops every operation, then makes the folder look like after a power
 *   cut: each file keeps its synced length plus a random prefix of what was written after,
 *   sometimes followed by junk; names created or renamed since the last folder sync may
 *   vanish. Deleted files stay deleted (a simplification on the safe side for the journal).
 */
export class FaultyJournalIo implements JournalIo {
  private rules: FaultRule[] = [];
  private readonly files = new Map<string, FileState>();
  private readonly unsyncedNames = new Set<string>();
  private crashed = false;
  private inFlight = 0;
  /** Calls per operation, to check what the journal did. */
  readonly calls = new Map<FaultOp, number>();

  constructor(private readonly random: () => number = Math.random) {}

  failWith(op: FaultOp, code: string, options: { times?: number; partial?: boolean } = {}): void {
    this.rules.push({ op, code, remaining: options.times ?? 1, partial: options.partial ?? false });
  }

  clearFaults(): void {
    this.rules = [];
  }

  async makeFolder(path: string): Promise<void> {
    return this.run('open', path, () => nodeJournalIo.makeFolder(path), false);
  }

  async listFolder(path: string): Promise<string[]> {
    return this.run('open', path, () => nodeJournalIo.listFolder(path), false);
  }

  async openFile(path: string, mode: 'read' | 'write' | 'create'): Promise<JournalFile> {
    const inner = await this.run('open', path, () => nodeJournalIo.openFile(path, mode));
    let state = this.files.get(path);
    if (state === undefined) {
      // A file that existed before this io saw it is taken as durable as it is.
      state = { path, durableLength: mode === 'create' ? 0 : await inner.size() };
      this.files.set(path, state);
    }
    if (mode === 'create') this.unsyncedNames.add(path);
    return new FaultyFile(this, inner, state);
  }

  async rename(from: string, to: string): Promise<void> {
    await this.run('rename', from, () => nodeJournalIo.rename(from, to));
    const state = this.files.get(from);
    this.files.delete(from);
    if (state !== undefined) {
      state.path = to;
      this.files.set(to, state);
    }
    this.unsyncedNames.delete(from);
    this.unsyncedNames.add(to);
  }

  async deleteFile(path: string): Promise<void> {
    await this.run('open', path, () => nodeJournalIo.deleteFile(path), false);
    this.files.delete(path);
    this.unsyncedNames.delete(path);
  }

  async syncFolder(path: string): Promise<void> {
    await this.run('syncFolder', path, () => nodeJournalIo.syncFolder(path));
    for (const name of this.unsyncedNames) if (dirname(name) === path) this.unsyncedNames.delete(name);
  }

  /** @internal Runs one operation: fails it when a rule says so, refuses everything after a crash. */
  async run<T>(op: FaultOp, path: string, action: () => Promise<T>, injectable = true): Promise<T> {
    if (this.crashed) throw simulatedError('ECRASHED', op, path);
    this.calls.set(op, (this.calls.get(op) ?? 0) + 1);
    const rule = injectable ? this.rules.find((r) => r.op === op && r.remaining > 0) : undefined;
    if (rule !== undefined) {
      rule.remaining--;
      throw simulatedError(rule.code, op, path);
    }
    this.inFlight++;
    try {
      const result = await action();
      // Nothing the process learns after the crash may be acted upon.
      if (this.crashed) throw simulatedError('ECRASHED', op, path);
      return result;
    } finally {
      this.inFlight--;
    }
  }

  /** @internal For a write fault that writes part of the bytes first. */
  takePartialWriteRule(): FaultRule | undefined {
    if (this.crashed) return undefined;
    const rule = this.rules.find((r) => r.op === 'write' && r.remaining > 0 && r.partial);
    if (rule !== undefined) rule.remaining--;
    return rule;
  }

  /** Cuts the power: see the class comment. Every later operation fails with ECRASHED. */
  async powerLoss(): Promise<void> {
    this.crashed = true;
    while (this.inFlight > 0) await new Promise((resolve) => setImmediate(resolve));
    for (const path of this.unsyncedNames) {
      if (this.random() < 0.5) {
        await unlink(path).catch(() => undefined);
        this.files.delete(path);
      }
    }
    for (const state of this.files.values()) {
      let size: number;
      try {
        size = (await stat(state.path)).size;
      } catch {
        continue;
      }
      const durable = Math.min(size, state.durableLength);
      const kept = durable + Math.floor(this.random() * (size - durable + 1));
      await truncate(state.path, kept);
      if (kept < size && this.random() < 0.5) {
        const junk = Buffer.alloc(1 + Math.floor(this.random() * 40));
        if (this.random() < 0.5)
          for (let i = 0; i < junk.length; i++) junk[i] = Math.floor(this.random() * 256);
        await appendFile(state.path, junk);
      }
    }
  }
}

class FaultyFile implements JournalFile {
  constructor(
    private readonly io: FaultyJournalIo,
    private readonly inner: JournalFile,
    private readonly state: FileState,
  ) {}

  read(buffer: Uint8Array, offset: number, length: number, position: number): Promise<number> {
    return this.inner.read(buffer, offset, length, position);
  }

  async write(buffer: Uint8Array, offset: number, length: number, position: number): Promise<number> {
    const partial = this.io.takePartialWriteRule();
    if (partial !== undefined) {
      const half = Math.floor(length / 2);
      if (half > 0) await this.inner.write(buffer, offset, half, position);
      throw simulatedError(partial.code, 'write', this.state.path);
    }
    return this.io.run('write', this.state.path, () => this.inner.write(buffer, offset, length, position));
  }

  isLinked(): boolean {
    return this.inner.isLinked();
  }

  async datasync(): Promise<void> {
    await this.io.run('datasync', this.state.path, async () => {
      await this.inner.datasync();
      // Recorded before the crash check in run(): once fdatasync returned, the bytes are on disk.
      this.state.durableLength = await this.inner.size();
    });
  }

  truncate(length: number): Promise<void> {
    return this.io.run('truncate', this.state.path, () => this.inner.truncate(length));
  }

  size(): Promise<number> {
    return this.inner.size();
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

function simulatedError(code: string, op: string, path: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: simulated fault, ${op} '${path}'`), { code, syscall: op, path });
}
