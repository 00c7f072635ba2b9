/**
 * Debian's nginx in front of two query processors, with the configuration the docs ship
 * (docs/examples/nginx-query-processors.conf, its ports replaced): searches keep answering
 * when one query processor is killed. Skipped with a message where nginx is not installed
 * (`.ci/run` installs nginx-light).
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { waitFor } from '../support/wait.js';
import { Cluster, freePort } from './cluster-helpers.js';

const EXAMPLE = join(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  '..',
  '..',
  'docs',
  'examples',
  'nginx-query-processors.conf',
);
const C = 'c';

interface Packet {
  response: {
    resultPacket: {
      resultsSummary: { totalMatching: number };
      results: { liveUrl: string; score: number }[];
    };
  };
}

function nginxPath(): string | undefined {
  for (const candidate of ['nginx', '/usr/sbin/nginx']) {
    const probe = spawnSync(candidate, ['-v'], { stdio: 'ignore' });
    if (probe.error === undefined && probe.status === 0) return candidate;
  }
  return undefined;
}

function get(port: number, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

const nginx = nginxPath();

describe('nginx load-balancing searches over two query processors', () => {
  it(
    'searches through nginx keep answering when one query processor is killed',
    { skip: nginx === undefined ? 'nginx is not installed (apt-get install nginx-light)' : false },
    async () => {
      const cluster = new Cluster(C, 'nginx test secret 0123456789');
      let proxy: ChildProcess | undefined;
      try {
        const admin = await cluster.add({ name: 'admin' });
        const qp1 = await cluster.add({ name: 'qp1', master: admin });
        const qp2 = await cluster.add({ name: 'qp2', master: admin });
        await Promise.all([admin.start(), qp1.start(), qp2.start()]);
        for (let i = 0; i < 40; i++) {
          const put = await admin.request(
            'PUT',
            `/push-api/v1/collections/${C}/documents?key=local:${i}`,
            `harbour ${i}`,
          );
          assert.equal(put.status, 200, put.body);
        }
        await admin.json('POST', `/push-api/v1/collections/${C}/commit`);
        const search = `/s/search.json?collection=${C}&query=harbour&num_ranks=5`;
        // What identifies an answer (click-tracking URLs are signed by each server's own secret).
        const ranking = (body: string): unknown => {
          const packet = (JSON.parse(body) as Packet).response.resultPacket;
          return {
            total: packet.resultsSummary.totalMatching,
            results: packet.results.map((r) => [r.liveUrl, r.score]),
          };
        };
        const expected = ranking((await admin.request('GET', search)).body);
        for (const qp of [qp1, qp2])
          await waitFor(
            `${qp.name} in sync`,
            async () => {
              const answer = await qp.request('GET', search);
              return (
                answer.status === 200 && JSON.stringify(ranking(answer.body)) === JSON.stringify(expected)
              );
            },
            30_000,
          );

        // The shipped configuration, on this test's ports, inside a main file of its own (no root paths).
        const prefix = join(cluster.root, 'nginx');
        mkdirSync(join(prefix, 'temp'), { recursive: true });
        const port = await freePort();
        const site = readFileSync(EXAMPLE, 'utf8')
          .replace('127.0.0.1:8081', `127.0.0.1:${qp1.port}`)
          .replace('127.0.0.1:8082', `127.0.0.1:${qp2.port}`)
          .replace('listen 127.0.0.1:8080', `listen 127.0.0.1:${port}`);
        assert.ok(
          site.includes(String(qp1.port)) && site.includes(String(qp2.port)),
          'the example names two upstreams',
        );
        writeFileSync(join(prefix, 'site.conf'), site);
        const temp = join(prefix, 'temp');
        writeFileSync(
          join(prefix, 'nginx.conf'),
          [
            'daemon off;',
            'worker_processes 1;',
            `pid ${join(prefix, 'nginx.pid')};`,
            `error_log ${join(prefix, 'error.log')} warn;`,
            'events { worker_connections 256; }',
            'http {',
            '  access_log off;',
            `  client_body_temp_path ${temp}/body;`,
            `  proxy_temp_path ${temp}/proxy;`,
            `  fastcgi_temp_path ${temp}/fastcgi;`,
            `  uwsgi_temp_path ${temp}/uwsgi;`,
            `  scgi_temp_path ${temp}/scgi;`,
            `  include ${join(prefix, 'site.conf')};`,
            '}',
          ].join('\n') + '\n',
        );
        proxy = spawn(
          nginx!,
          ['-p', prefix, '-c', join(prefix, 'nginx.conf'), '-e', join(prefix, 'error.log')],
          {
            stdio: ['ignore', 'ignore', 'pipe'],
          },
        );
        let errors = '';
        proxy.stderr!.on('data', (chunk: Buffer) => (errors += chunk.toString()));
        await waitFor(
          'nginx listening',
          async () => {
            try {
              return (await get(port, search)).status === 200;
            } catch {
              if (proxy!.exitCode !== null) throw new Error(`nginx exited: ${errors}`);
              return false;
            }
          },
          30_000,
        );

        const check = async (round: string) => {
          for (let i = 0; i < 20; i++) {
            const answer = await get(port, search);
            assert.equal(answer.status, 200, `${round} ${i}: ${answer.body}`);
            assert.deepEqual(ranking(answer.body), expected);
          }
        };
        await check('both query processors');
        await qp1.kill();
        await check('QP1 killed');
        const refused = await get(port, `/push-api/v1/collections/${C}/state`);
        assert.equal(refused.status, 404, 'the proxy serves searches only');
      } finally {
        if (proxy !== undefined && proxy.exitCode === null) {
          const gone = new Promise((resolve) => proxy!.once('exit', resolve));
          proxy.kill('SIGTERM');
          await gone;
        }
        await cluster.close();
      }
    },
  );
});
