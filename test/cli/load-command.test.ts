/**
 * `pushsearch load` through a real server: progress lines in a log, `--limit` as the basis of
 * percentage and ETA, the final report's numbers (also after auto-commits and failures), and a
 * server killed with SIGKILL in the middle of a load, then `--resume` to the end.
 */
import assert from 'node:assert/strict';
import { execFile, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync, appendFileSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { LoadSummary } from '../../src/cli/load-command.js';
import { startServer, type RunningServer } from '../../src/http/server.js';
import { ADMIN_PASSWORD, addCollectionCfg, keyQuery, TEST_SECURITY, tempHome } from '../http/helpers.js';
import { waitFor } from '../support/wait.js';
import { MAIN, requestAsAdmin, spawnServer } from '../support/server-process.js';
import { cli, CLI_STATE_HOME, removeCliStateHome, type Run } from './run-cli.js';

/** A JSON-lines file of `count` documents, each with the word "walrus"; `badKeys` lines get a key the server refuses. */
function writeCorpus(path: string, count: number, badKeys: number[] = []): void {
  const lines: string[] = [];
  for (let line = 1; line <= count; line++) {
    lines.push(
      JSON.stringify({
        key: badKeys.includes(line) ? `not a uri ${line}` : `https://example.org/doc-${line}`,
        title: `Document ${line}`,
        text: `walrus document ${line} ${'lorem ipsum dolor '.repeat(20)}`,
      }),
    );
  }
  writeFileSync(path, lines.join('\n') + '\n');
}

/** The progress lines a load wrote to a log (stderr not a terminal). */
function progressLines(run: Run): string[] {
  return run.stderr.split('\n').filter((line) => / docs \| /.test(line));
}

function summaryOf(run: Run): LoadSummary {
  try {
    return JSON.parse(run.stdout) as LoadSummary;
  } catch {
    throw new Error(`no JSON summary (exit ${run.code}): ${run.stdout}\n${run.stderr}`);
  }
}

describe('pushsearch load against a running server', () => {
  let server: RunningServer;
  let temp: { home: string; cleanup: () => void };
  let files: string;
  let env: Record<string, string>;

  before(async () => {
    temp = tempHome();
    files = join(temp.home, 'input');
    mkdirSync(files, { recursive: true });
    server = await startServer({ home: join(temp.home, 'home'), port: 0, security: TEST_SECURITY });
    env = { PUSHSEARCH_URL: server.url, PUSHSEARCH_PASSWORD: ADMIN_PASSWORD };
  });
  after(async () => {
    await server.close();
    temp.cleanup();
    removeCliStateHome();
  });

  it('with --limit, progress and ETA are of the documents loaded; --resume loads the rest', async () => {
    assert.equal((await cli(['collection', 'create', 'limited'], env)).code, 0);
    const corpus = join(files, 'limited.jsonl');
    writeCorpus(corpus, 400);

    const first = await cli(
      ['load', 'limited', corpus, '--limit', '150', '-c', '2', '--progress-interval', '0.05', '--json'],
      env,
    );
    assert.equal(first.code, 0, first.stderr);
    const lines = progressLines(first);
    assert.ok(lines.length >= 2, first.stderr);
    // A log gets plain lines (no bar, no carriage return), each of the 150 documents this run sends.
    assert.match(lines[0], /^0\.0% 0\/150 docs \| /);
    for (const line of lines) {
      assert.match(
        line,
        /^\d+\.\d% \d+\/150 docs \| \d+ docs\/s [\d.]+ MB\/s \| ETA (-|\d+[hms]\S*) \| failed 0 retries \d+$/,
      );
    }
    assert.match(lines.at(-1) ?? '', /^100\.0% 150\/150 docs .* ETA 0s /);
    const limited = summaryOf(first);
    assert.deepEqual(
      [limited.documents, limited.read, limited.stored, limited.failed, limited.skipped, limited.committed],
      [150, 150, 150, 0, 0, 150],
    );
    assert.equal(limited.collectionDocuments, 150);
    assert.ok(limited.state !== null, 'the state is kept: the source has more');

    const rest = await cli(
      ['load', 'limited', corpus, '--resume', '--progress-interval', '0.05', '--json'],
      env,
    );
    assert.equal(rest.code, 0, rest.stderr);
    assert.match(
      rest.stderr,
      /^resuming: skipping 150 documents acknowledged by the load of .* \(lines 1-150\)$/m,
    );
    for (const line of progressLines(rest)) assert.match(line, / \d+\/250 docs /);
    const summary = summaryOf(rest);
    assert.deepEqual(
      [summary.documents, summary.read, summary.stored, summary.skipped, summary.committed],
      [400, 400, 250, 150, 400],
    );
    assert.equal(summary.collectionDocuments, 400);
    assert.equal(summary.state, null);
    assert.equal(existsSync(limited.state), false, 'a finished load leaves no state behind');
  });

  it('reports stored, failed (with codes) and committed after auto-commits took most changes', async () => {
    assert.equal((await cli(['collection', 'create', 'auto'], env)).code, 0);
    addCollectionCfg(join(temp.home, 'home'), 'auto', ['push.auto-commit.max-changes=37']);
    const corpus = join(files, 'auto.jsonl');
    writeCorpus(corpus, 300, [50, 120, 260]);

    const run = await cli(['load', 'auto', corpus, '-c', '4'], env);
    assert.equal(run.code, 7, run.stderr);
    assert.match(run.stdout, /^read 300 documents of .*auto\.jsonl in [\d.]+ s: 297 stored, 3 failed\n/);
    assert.match(run.stdout, /\nfailed 3: KEY_INVALID 3; the first 3:\n/);
    for (const line of [50, 120, 260])
      assert.match(
        run.stdout,
        new RegExp(`\\n  .*auto\\.jsonl:${line} \\(not a uri ${line}\\): KEY_INVALID \\(HTTP 400\\): `),
      );
    // 297 changes, auto-committed every 37: the final commit takes the last few only, or none
    // (no new generation then) when the auto-commits raced ahead and took them all.
    const committed =
      /\ncommitted: all 297 acknowledged documents are searchable: the final commit made the last (\d+) staged changes searchable, auto-commits the others(?: \(generation \d+\))?; the collection has 297 documents\n/.exec(
        run.stdout,
      );
    assert.ok(committed !== null, run.stdout);
    assert.ok(Number(committed[1]) < 37, run.stdout);
    assert.match(
      run.stdout,
      /\nresume: the same command with --resume sends only what is not stored yet \(the 3 failed documents\)/,
    );

    // A resume sends the 3 failed ones again (still refused), and nothing else.
    const again = await cli(['load', 'auto', corpus, '--resume', '--json'], env);
    assert.equal(again.code, 7, again.stderr);
    const summary = summaryOf(again);
    assert.deepEqual(
      [
        summary.read,
        summary.skipped,
        summary.stored,
        summary.failed,
        summary.committed,
        summary.collectionDocuments,
      ],
      [300, 297, 0, 3, 297, 297],
    );
    assert.deepEqual(summary.failuresByCode, { KEY_INVALID: 3 });
    // In the order they happened: the concurrent PUTs may be answered in any order.
    assert.deepEqual(
      summary.failures
        .map((f) => [f.origin.replace(/^.*:/, ''), f.code, f.status])
        .sort((a, b) => Number(a[0]) - Number(b[0])),
      [
        ['50', 'KEY_INVALID', 400],
        ['120', 'KEY_INVALID', 400],
        ['260', 'KEY_INVALID', 400],
      ],
    );

    // The source changed since: its state is not used, and nothing is sent.
    appendFileSync(corpus, JSON.stringify({ key: 'https://example.org/new', text: 'walrus' }) + '\n');
    const changed = await cli(['load', 'auto', corpus, '--resume'], env);
    assert.equal(changed.code, 1);
    assert.match(changed.stderr, /^LOAD_STATE_MISMATCH: cannot resume from .*: .*auto\.jsonl changed since/);
  });

  it('on a terminal draws a bar that rewrites itself, then the report', async () => {
    assert.equal((await cli(['collection', 'create', 'tty'], env)).code, 0);
    const corpus = join(files, 'tty.jsonl');
    writeCorpus(corpus, 200);
    // script(1) gives the command a pseudo-terminal, as a user's shell would.
    const command = [process.execPath, MAIN, 'load', 'tty', corpus, '-c', '2']
      .map((word) => `'${word}'`)
      .join(' ');
    const screen = await new Promise<string>((resolve, reject) => {
      execFile(
        'script',
        ['-qec', command, '/dev/null'],
        { env: { PATH: process.env.PATH ?? '', XDG_STATE_HOME: CLI_STATE_HOME, ...env } },
        (error, stdout) =>
          error === null ? resolve(stdout) : reject(new Error(`${error.message}\n${stdout}`)),
      );
    });
    assert.match(screen, /\[█+░*\] \d+\.\d% \d+\/200 docs \| /);
    assert.match(screen, /\[█{24}\] 100\.0% 200\/200 docs .* ETA 0s /);
    // Redrawn in place (cursor to column 1), not one line per update.
    assert.ok((screen.match(/\u001b\[1G/g) ?? []).length >= 2, JSON.stringify(screen.slice(0, 300)));
    assert.match(screen, /read 200 documents of .*tty\.jsonl in [\d.]+ s: 200 stored, 0 failed/);
  });

  it('Ctrl-C stops taking documents, waits for those in flight, reports, and --resume finishes', async () => {
    assert.equal((await cli(['collection', 'create', 'interrupted'], env)).code, 0);
    const corpus = join(files, 'interrupted.jsonl');
    const total = 1500;
    writeCorpus(corpus, total);
    const port = Number(new URL(server.url).port);
    const agent = new http.Agent({ keepAlive: false });
    let child: ChildProcess | undefined;
    try {
      const loading = cli(
        ['load', 'interrupted', corpus, '-c', '2', '--json'],
        env,
        undefined,
        (c) => (child = c),
      );
      await waitFor(
        '100 documents on the server',
        async () => {
          const answer = await requestAsAdmin(
            port,
            agent,
            'GET',
            '/push-api/v2/collections/interrupted/state',
          );
          const state = JSON.parse(answer.body) as { stagedChanges?: number; documents?: number };
          return (state.stagedChanges ?? 0) + (state.documents ?? 0) >= 100;
        },
        60_000,
      );
      child?.kill('SIGINT');
      const stopped = await loading;
      assert.equal(stopped.code, 130, stopped.stderr);
      assert.match(stopped.stderr, /^load stopped: interrupted \(Ctrl-C or SIGTERM\)$/m);
      const partial = summaryOf(stopped);
      assert.equal(partial.stoppedBy?.code, 'INTERRUPTED');
      assert.equal(partial.notStored, 0, 'the documents in flight were waited for');
      assert.ok(partial.stored >= 100 && partial.stored < total, `stored ${partial.stored}`);

      const resumed = await cli(['load', 'interrupted', corpus, '--resume', '--json'], env);
      assert.equal(resumed.code, 0, resumed.stderr);
      const summary = summaryOf(resumed);
      assert.deepEqual(
        [summary.skipped, summary.stored, summary.committed, summary.collectionDocuments],
        [partial.stored, total - partial.stored, total, total],
      );
    } finally {
      agent.destroy();
    }
  });
});

describe('pushsearch load when the server is killed', () => {
  it('stops with the counts and a resume hint; after a restart --resume stores every document exactly once', async () => {
    const { home, cleanup } = tempHome();
    const files = join(home, 'input');
    mkdirSync(files, { recursive: true });
    const corpus = join(files, 'corpus.jsonl');
    const total = 2000;
    writeCorpus(corpus, total);
    let server = await spawnServer(join(home, 'home'));
    const port = server.port;
    const env = { PUSHSEARCH_URL: `http://127.0.0.1:${port}`, PUSHSEARCH_PASSWORD: ADMIN_PASSWORD };
    const agent = new http.Agent({ keepAlive: false });
    const count = async (): Promise<number> => {
      const answer = await requestAsAdmin(port, agent, 'GET', '/push-api/v2/collections/c/state');
      const state = JSON.parse(answer.body) as { documents?: number; stagedChanges?: number };
      return (state.documents ?? 0) + (state.stagedChanges ?? 0);
    };
    try {
      assert.equal((await cli(['collection', 'create', 'c'], env)).code, 0);
      // Auto-commits during the load: the final report must still count every document.
      addCollectionCfg(join(home, 'home'), 'c', ['push.auto-commit.max-changes=97']);

      const loading = cli(['load', 'c', corpus, '-c', '4', '--retries', '1', '--json'], env);
      await waitFor('200 documents on the server', async () => (await count()) >= 200, 60_000);
      server.child.kill('SIGKILL');
      assert.equal(await server.exited, null, 'killed by a signal');
      const stopped = await loading;

      assert.equal(stopped.code, 6, stopped.stderr);
      assert.match(
        stopped.stderr,
        new RegExp(
          `^load stopped: the server at http://127\\.0\\.0\\.1:${port} stopped answering: CONNECTION_FAILED \\(no answer\\)`,
          'm',
        ),
      );
      const partial = summaryOf(stopped);
      assert.equal(partial.stoppedBy?.code, 'CONNECTION_FAILED');
      assert.ok(partial.stored >= 1 && partial.stored < total, `stored ${partial.stored}`);
      assert.equal(partial.commit, null);
      assert.equal(partial.notStored, partial.read - partial.stored);
      assert.match(
        stopped.stderr,
        new RegExp(
          `\\nread ${partial.read} of ${total} documents of .*corpus\\.jsonl in [\\d.]+ s: ${partial.stored} stored, 0 failed\\n`,
        ),
      );
      assert.match(
        stopped.stderr,
        new RegExp(
          `\\nto resume once the server answers again: the same command with --resume \\(it skips the ${partial.stored} acknowledged documents; state in `,
        ),
      );

      server = await spawnServer(join(home, 'home'), { port });
      // Every acknowledged document survived the kill (durable before its 200). The state call
      // does not start a collection; a document read does.
      await requestAsAdmin(
        port,
        agent,
        'GET',
        `/push-api/v2/collections/c/documents${keyQuery('https://example.org/doc-1')}`,
      );
      assert.ok((await count()) >= partial.stored, 'acknowledged documents are on the server');

      const resumed = await cli(['load', 'c', corpus, '--resume', '-c', '4', '--json'], env);
      assert.equal(resumed.code, 0, resumed.stderr);
      const summary = summaryOf(resumed);
      assert.equal(summary.skipped, partial.stored);
      assert.equal(summary.stored, total - partial.stored);
      assert.equal(summary.failed, 0);
      assert.equal(summary.committed, total);
      assert.equal(summary.collectionDocuments, total);
      assert.equal(summary.state, null);

      const found = await cli(['search', 'c', 'walrus', '--json', '-n', '1'], env);
      assert.equal(found.code, 0, found.stderr);
      const packet = (
        JSON.parse(found.stdout) as {
          response: { resultPacket: { resultsSummary: { totalMatching: number } } };
        }
      ).response.resultPacket;
      assert.equal(packet.resultsSummary.totalMatching, total, 'every document searchable, each once');
    } finally {
      agent.destroy();
      server.child.kill('SIGKILL');
      await server.exited;
      cleanup();
    }
  });
});
