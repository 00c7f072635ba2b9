import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import {
  dirSize,
  formatBytes,
  formatMs,
  formatTable,
  markdownTable,
  median,
  percentile,
  sampleTimes,
  sampleWallAndCpu,
  writeMarkdownReport,
} from '../../bench/lib/measure.js';

const scratch = mkdtempSync(join(tmpdir(), 'bench-measure-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

void describe('median and percentile', () => {
  void it('median takes the middle sample, or the mean of the two middle ones', () => {
    assert.equal(median([5, 1, 3]), 3);
    assert.equal(median([4, 1, 3, 2]), 2.5);
    assert.ok(Number.isNaN(median([])));
  });

  void it('median does not reorder the caller’s array', () => {
    const values = [3, 1, 2];
    median(values);
    assert.deepEqual(values, [3, 1, 2]);
  });

  void it('percentile uses the nearest rank, so it is always one of the samples', () => {
    const hundred = Array.from({ length: 100 }, (_, i) => 100 - i); // 100..1, unsorted
    assert.equal(percentile(hundred, 99), 99);
    assert.equal(percentile(hundred, 50), 50);
    assert.equal(percentile(hundred, 100), 100);
    assert.equal(percentile([10, 20, 30, 40], 50), 20);
    // 20 runs: p99 is the slowest run.
    const twenty = Array.from({ length: 20 }, (_, i) => i + 1);
    assert.equal(percentile(twenty, 99), 20);
    assert.equal(percentile([7], 1), 7);
    assert.ok(Number.isNaN(percentile([], 50)));
  });

  void it('percentile rejects p outside (0, 100]', () => {
    assert.throws(() => percentile([1, 2], 0), RangeError);
    assert.throws(() => percentile([1, 2], 101), RangeError);
  });

  void it('sampleTimes calls the function warm-ups + runs times and returns one sample per run', () => {
    let calls = 0;
    const samples = sampleTimes(() => calls++, 5, 2);
    assert.equal(calls, 7);
    assert.equal(samples.length, 5);
    assert.ok(samples.every((ms) => ms >= 0));
  });

  it('sampleWallAndCpu records the wall and the CPU time of each run', () => {
    let calls = 0;
    // Burns 5 ms of CPU (not of wall time, which a loaded machine stretches).
    const spin = (): void => {
      calls++;
      const start = process.cpuUsage();
      for (;;) {
        const used = process.cpuUsage(start);
        if (used.user + used.system >= 5000) break;
      }
    };
    const { wallMs, cpuMs } = sampleWallAndCpu(spin, 3, 1);
    assert.equal(calls, 4);
    assert.equal(wallMs.length, 3);
    assert.equal(cpuMs.length, 3);
    assert.ok(
      cpuMs.every((ms) => ms >= 5),
      `cpu samples ${cpuMs.join(', ')}`,
    );
    assert.ok(wallMs.every((ms) => ms > 0));
  });
});

void describe('formatting', () => {
  void it('formatBytes uses binary units with three significant digits', () => {
    assert.equal(formatBytes(0), '0 B');
    assert.equal(formatBytes(1023), '1023 B');
    assert.equal(formatBytes(1536), '1.50 KiB');
    assert.equal(formatBytes(80.25 * 1024 * 1024), '80.3 MiB');
    assert.equal(formatBytes(5 * 1024 ** 3), '5.00 GiB');
  });

  void it('formatMs switches to seconds at one second', () => {
    assert.equal(formatMs(0.0123), '0.012 ms');
    assert.equal(formatMs(12.34), '12.3 ms');
    assert.equal(formatMs(4321), '4.32 s');
  });

  void it('formatTable aligns columns: text to the left, numbers to the right', () => {
    const text = formatTable([
      { query: 'the', ms: 260 },
      { query: 'congestion window', ms: 1.5 },
    ]);
    assert.deepEqual(text.split('\n'), [
      'query                ms',
      '-----------------  ----',
      'the                 260',
      'congestion window  1.50',
    ]);
  });

  void it('formatTable takes the union of the rows’ columns and leaves missing cells empty', () => {
    const lines = formatTable([{ a: 'x' }, { a: 'y', b: 'extra' }]).split('\n');
    assert.equal(lines[0], 'a  b');
    assert.equal(lines[2], 'x');
    assert.equal(lines[3], 'y  extra');
  });

  void it('markdownTable right-aligns numeric columns and escapes pipes', () => {
    assert.equal(
      markdownTable([{ query: 'a | b', ms: 2 }]),
      ['| query | ms |', '| --- | ---: |', '| a \\| b | 2 |'].join('\n'),
    );
  });
});

void describe('dirSize', () => {
  void it('sums the sizes of the files below a folder, recursively, without following links', () => {
    const root = join(scratch, 'tree');
    mkdirSync(join(root, 'a', 'b'), { recursive: true });
    writeFileSync(join(root, 'one'), Buffer.alloc(100));
    writeFileSync(join(root, 'a', 'two'), Buffer.alloc(250));
    writeFileSync(join(root, 'a', 'b', 'three'), Buffer.alloc(4000));
    const outside = join(scratch, 'outside');
    writeFileSync(outside, Buffer.alloc(1_000_000));
    symlinkSync(outside, join(root, 'a', 'link'));
    assert.equal(dirSize(root), 4350);
    assert.equal(dirSize(join(root, 'one')), 100);
  });
});

void describe('writeMarkdownReport', () => {
  void it('writes the title, prose and tables, creating the parent folders', () => {
    const path = join(scratch, 'reports', 'deep', 'report.md');
    writeMarkdownReport(path, {
      title: 'Baseline',
      intro: 'Machine: test.',
      sections: [
        { heading: 'Latency', rows: [{ class: 'and', 'median ms': 0.5 }] },
        { heading: 'Notes', text: 'nothing else' },
      ],
    });
    assert.equal(
      readFileSync(path, 'utf8'),
      [
        '# Baseline',
        'Machine: test.',
        '## Latency',
        '| class | median ms |\n| --- | ---: |\n| and | 0.500 |',
        '## Notes',
        'nothing else',
      ].join('\n\n') + '\n',
    );
  });
});
