/** Shared set-up of the search HTTP suites: collections filled through the push API. */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { SearchResponse } from '../../src/search/search-service.js';
import { ADMIN_AUTH, keyQuery, route } from '../http/helpers.js';

/** A document to push: key, content (text/plain unless `type` says otherwise) and metadata. */
export interface TestDocument {
  key: string;
  body: string;
  type?: string;
  metadata?: Record<string, string>;
}

/** Writes a configuration file of a collection (before its first push: it is read at start). */
export function writeConf(home: string, collection: string, file: string, lines: string[]): void {
  writeFileSync(join(home, 'conf', collection, file), lines.join('\n') + '\n');
}

/** Pushes documents through `PUT /push-api/v2/.../documents` as the test admin, then commits (waiting). */
export async function pushAndCommit(
  app: FastifyInstance,
  collection: string,
  documents: TestDocument[],
): Promise<void> {
  for (const document of documents) {
    const headers: Record<string, string> = {
      'content-type': document.type ?? 'text/plain',
      authorization: ADMIN_AUTH,
    };
    for (const [name, value] of Object.entries(document.metadata ?? {}))
      headers[`x-service-push-metadata-${name}`] = value;
    const response = await app.inject({
      method: 'PUT',
      url: route('v2', collection, `/documents${keyQuery(document.key)}`),
      headers,
      payload: document.body,
    });
    assert.equal(response.statusCode, 200, response.body);
  }
  const committed = await app.inject({
    method: 'POST',
    url: route('v2', collection, '/commit'),
    headers: { authorization: ADMIN_AUTH },
  });
  assert.equal(committed.statusCode, 200, committed.body);
}

/** `GET /s/search.json` with the given parameters; asserts 200 and returns the packet. */
export async function searchJson(
  app: FastifyInstance,
  params: Record<string, string> | [string, string][],
): Promise<SearchResponse> {
  const response = await app.inject({
    method: 'GET',
    url: `/s/search.json?${new URLSearchParams(params).toString()}`,
  });
  assert.equal(response.statusCode, 200, response.body);
  return response.json<SearchResponse>();
}

/** Live URLs of the results, in rank order. */
export function urls(response: SearchResponse): string[] {
  return response.response.resultPacket.results.map((r) => r.liveUrl);
}

/** The lines of a collection's click log, parsed (empty when there is no log). */
export function clickLines(home: string, collection: string): Record<string, unknown>[] {
  const file = join(home, 'data', collection, 'clicks', 'clicks.log');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/**
 * The metrics of a `Server-Timing` header (`name;dur=ms, ...`), in milliseconds by name;
 * fails unless every metric has a duration.
 */
export function serverTimingOf(header: string | string[] | number | undefined): Map<string, number> {
  assert.equal(typeof header, 'string', 'a Server-Timing header');
  const metrics = new Map<string, number>();
  for (const metric of (header as string).split(',')) {
    const match = /^\s*([a-z]+);dur=(\d+\.\d{3})\s*$/.exec(metric);
    assert.ok(match !== null, `a metric with its duration: ${JSON.stringify(metric)}`);
    metrics.set(match[1]!, Number(match[2]));
  }
  return metrics;
}

/**
 * Asserts what a search's `Server-Timing` says whatever ran it: wait, hop, search, then
 * `last` (serialize for the JSON, render for the page) and total, in that order; the search
 * and `last` took time; the parts fit in the total. Returns them.
 */
export function assertSearchTiming(
  header: string | string[] | number | undefined,
  last: 'serialize' | 'render' = 'serialize',
): Map<string, number> {
  const timing = serverTimingOf(header);
  assert.deepEqual([...timing.keys()], ['wait', 'hop', 'search', last, 'total']);
  assert.ok(timing.get('search')! > 0, 'the search took time');
  assert.ok(timing.get(last)! > 0, `${last} took time`);
  const parts = ['wait', 'hop', 'search', last].reduce((sum, name) => sum + timing.get(name)!, 0);
  // Each is rounded to the microsecond.
  assert.ok(
    parts <= timing.get('total')! + 0.004,
    `the parts (${parts} ms) fit in the total: ${String(header)}`,
  );
  return timing;
}
