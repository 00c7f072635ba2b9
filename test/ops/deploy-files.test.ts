/**
 * The deployment files in the repository: the systemd unit passes `systemd-analyze verify`
 * (skipped with a message where systemd-analyze is absent), and the unit and the container
 * file start the server the README documents.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const UNIT = join(ROOT, 'deploy', 'pushsearch.service');
const ANALYZE = ['/usr/bin/systemd-analyze', '/bin/systemd-analyze'].find((p) => existsSync(p));

describe('deployment files', () => {
  it(
    'the systemd unit passes systemd-analyze verify',
    {
      skip:
        ANALYZE === undefined
          ? "systemd-analyze is missing: install Debian's systemd package to verify the unit"
          : false,
    },
    () => {
      // Verify checks that ExecStart's program exists: point it at this node and this checkout.
      const folder = mkdtempSync(join(tmpdir(), 'unit-'));
      try {
        const unit = readFileSync(UNIT, 'utf8')
          .replaceAll('/usr/bin/node', process.execPath)
          .replaceAll('/opt/pushsearch', ROOT.replace(/\/$/, ''));
        const file = join(folder, 'pushsearch.service');
        writeFileSync(file, unit);
        const verify = spawnSync(ANALYZE!, ['verify', file], { encoding: 'utf8' });
        const complaints = `${verify.stdout}${verify.stderr}`
          .split('\n')
          .filter((line) => line.includes('pushsearch.service'));
        assert.equal(verify.status, 0, `${verify.stdout}${verify.stderr}`);
        assert.deepEqual(complaints, []);
      } finally {
        rmSync(folder, { recursive: true, force: true });
      }
    },
  );

  it('the unit and the container file run `serve` from the built server on a home of their own', () => {
    const unit = readFileSync(UNIT, 'utf8');
    assert.match(unit, /^ExecStart=\/usr\/bin\/node \/opt\/pushsearch\/dist\/src\/cli\/main\.js serve$/m);
    assert.match(unit, /^Environment=SEARCH_HOME=\/var\/lib\/pushsearch$/m);
    assert.match(unit, /^Restart=on-failure$/m);
    const container = readFileSync(join(ROOT, 'Containerfile'), 'utf8');
    assert.match(container, /^FROM docker\.io\/library\/node:20-/m);
    assert.match(container, /^CMD \["node", "dist\/src\/cli\/main\.js", "serve"\]$/m);
    assert.ok(existsSync(join(ROOT, 'tsconfig.server.json')), 'the build the container runs');
  });
});
