import assert from 'node:assert/strict';
import { describe, it, mock } from 'node:test';
import { LoadProgress, progressText, SAMPLE_MS, type LoadCounters } from '../../src/cli/load-progress.js';

/** A stream that is not a terminal (a CI log), keeping what was written. */
function logStream(): { stream: NodeJS.WriteStream; lines: () => string[] } {
  let text = '';
  const stream = {
    isTTY: false,
    write(chunk: string) {
      text += chunk;
      return true;
    },
  } as unknown as NodeJS.WriteStream;
  return { stream, lines: () => text.split('\n').filter((line) => line !== '') };
}

function etaSecondsOf(line: string): number {
  const match = /ETA (?:(\d+)m)?(\d+)s/.exec(line);
  assert.ok(match !== null, `no ETA in ${line}`);
  return Number(match[1] ?? 0) * 60 + Number(match[2]);
}

describe('load progress', () => {
  it('keeps the ETA steady through a short stall (a moving window, not the last rate)', () => {
    mock.timers.enable({ apis: ['Date'] });
    const log = logStream();
    const counters: LoadCounters = { read: 0, stored: 0, failed: 0, skipped: 0, bytes: 0, retries: 0 };
    const progress = new LoadProgress(counters, 10_000, { stream: log.stream, logIntervalMs: 3_600_000 });
    try {
      progress.start();
      const step = (docs: number): string => {
        mock.timers.tick(SAMPLE_MS);
        counters.stored += docs;
        counters.read += docs;
        progress.sample();
        progress.draw();
        return log.lines().at(-1) ?? '';
      };
      // The first 2 s judge no rate: the login and the first round trips are not the pace.
      assert.match(step(25), / ETA - /);
      for (let i = 0; i < 6; i++) step(25);
      // 20 s at 100 documents a second: 2,000 done, 8,000 left, 80 s.
      let before = 0;
      for (let i = 7; i < 80; i++) before = etaSecondsOf(step(25));
      assert.ok(Math.abs(before - 80) <= 2, `ETA ${before} s after a steady 20 s`);
      // A 2 s stall (a commit, a retry): the window still holds 8 s of progress.
      const during: number[] = [];
      for (let i = 0; i < 8; i++) during.push(etaSecondsOf(step(0)));
      assert.ok(
        Math.max(...during) <= before * 1.3,
        `ETA jumped from ${before} s to ${Math.max(...during)} s`,
      );
      // Back to pace: within a window the ETA returns to the remaining work at that pace.
      let after = 0;
      for (let i = 0; i < 40; i++) after = etaSecondsOf(step(25));
      assert.ok(Math.abs(after - (10_000 - 3_000) / 100) <= 2, `ETA ${after} s back at pace`);
      const last = log.lines().at(-1) ?? '';
      assert.match(last, /^30\.0% 3000\/10000 docs \| \d+ docs\/s [\d.]+ MB\/s \| ETA /);
      assert.doesNotMatch(last, /[█░]/, 'no bar in a log');
    } finally {
      progress.stop();
      mock.timers.reset();
    }
  });

  it('shows no ETA before it has a rate, 0 s once done, and a bar on a terminal', () => {
    const counters: LoadCounters = { read: 5, stored: 4, failed: 1, skipped: 0, bytes: 2e6, retries: 2 };
    const base = { done: 5, total: 20, seconds: 2, counters };
    assert.equal(
      progressText({ ...base, tty: false, etaSeconds: undefined }),
      '25.0% 5/20 docs | 2 docs/s 1.00 MB/s | ETA - | failed 1 retries 2',
    );
    assert.match(progressText({ ...base, tty: true, etaSeconds: 75 }), /^\[█{6}░{18}\] 25\.0% .* ETA 1m15s /);
    assert.match(
      progressText({ ...base, done: 20, tty: false, etaSeconds: undefined }),
      /^100\.0% 20\/20 .* ETA 0s /,
    );
  });
});
