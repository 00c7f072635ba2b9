import { createReadStream } from 'node:fs';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { SearchError } from '../errors.js';
import { parseByteRange } from '../replication/byte-range.js';
import {
  MAX_CLICK_BATCH_BYTES,
  MAX_CLICK_BATCH_LINES,
  type ReceivedClicks,
} from '../replication/click-forwarder.js';
import type { ReplicationMaster } from '../replication/replication-master.js';
import { verifySyncRequest } from '../replication/sync-signature.js';

/** Longest a manifest request may wait for a change (the query processor asks again). */
const MAX_WAIT_MS = 60_000;

/** Options of the {@link replicationRoutes} plugin. */
export interface ReplicationRoutesOptions {
  /** `server_secret` of global.cfg (undefined: this server refuses every sync request). */
  secret: () => string | undefined;
  /**
   * The master side of a collection. Throws `COLLECTION_NOT_FOUND`, or `COLLECTION_DISABLED`
   * for a collection with push.run=false (masters refuse to serve it).
   */
  masterFor: (collection: string) => Promise<ReplicationMaster>;
  /**
   * Takes a batch of click records from a query processor (appended to this server's click
   * log up to its cap; forwarded further up when this server is itself a query processor).
   * A batch id seen before is acknowledged without being appended again.
   */
  receiveClicks: (collection: string, batch: string, lines: string[]) => Promise<ReceivedClicks>;
  /** This server's clock (ms since the epoch), sent with each listing. Default `Date.now`. */
  now?: () => number;
}

/**
 * The master side of replication, under `/replication/v1` (see docs/replication.md):
 * server-to-server, authenticated by the `server_secret` signature (`sync-signature.ts`),
 * never by a user.
 *
 * - `GET /collections/{c}/manifest?since={id}&wait={ms}`: the listing of the state the
 *   collection serves; with `since` equal to it, held open up to `wait` ms for a newer one.
 *   `now` is this server's clock when it answers, so that a query processor measures lag
 *   on one clock (`publishedAt` is on this server's clock too).
 * - `GET /collections/{c}/files/{name}?listing={id}&sha256={hex}`: one file of a pinned
 *   state; `Range: bytes=a-` resumes (206).
 * - `POST /collections/{c}/clicks`: `{"batch": id, "lines": [click log lines]}` from a query
 *   processor: at most 8 MiB and 10,000 lines (413 `BODY_TOO_LARGE`); appended up to the
 *   click log's cap, once per batch id.
 */
export async function replicationRoutes(
  app: FastifyInstance,
  options: ReplicationRoutesOptions,
): Promise<void> {
  // The signature covers the body as sent: keep it as bytes.
  app.addContentTypeParser(
    'application/json',
    { parseAs: 'buffer', bodyLimit: MAX_CLICK_BATCH_BYTES },
    (_request, body, done) => done(null, body),
  );

  const verify = (request: FastifyRequest) =>
    verifySyncRequest(options.secret(), {
      method: request.method,
      path: request.url,
      headers: request.headers,
      ...(Buffer.isBuffer(request.body) ? { body: request.body } : {}),
    });

  const tags = ['replication'];

  app.get<{ Params: { collection: string }; Querystring: { since?: string; wait?: string } }>(
    '/collections/:collection/manifest',
    {
      schema: {
        tags,
        summary: 'The state a query processor copies (signed with server_secret)',
        params: {
          type: 'object',
          properties: { collection: { type: 'string' } },
          required: ['collection'],
        },
        querystring: {
          type: 'object',
          properties: {
            since: { type: 'string', pattern: '^[0-9a-f]{64}$' },
            wait: { type: 'string', pattern: '^[0-9]{1,7}$' },
          },
        },
      },
    },
    async (request, reply) => {
      verify(request);
      const master = await options.masterFor(request.params.collection);
      const abort = new AbortController();
      request.raw.on('close', () => abort.abort());
      const listing = await master.listing({
        ...(request.query.since !== undefined ? { since: request.query.since } : {}),
        waitMs: Math.min(MAX_WAIT_MS, Number(request.query.wait ?? 0)),
        signal: abort.signal,
      });
      void reply.header('cache-control', 'no-store');
      return { ...listing, now: new Date((options.now ?? Date.now)()).toISOString() };
    },
  );

  app.get<{
    Params: { collection: string; name: string };
    Querystring: { listing: string; sha256: string };
  }>(
    '/collections/:collection/files/:name',
    {
      schema: {
        tags,
        summary: 'One file of a pinned state (Range supported; signed with server_secret)',
        params: {
          type: 'object',
          properties: {
            collection: { type: 'string' },
            name: { type: 'string', pattern: '^[A-Za-z0-9._-]{1,128}$' },
          },
          required: ['collection', 'name'],
        },
        querystring: {
          type: 'object',
          properties: {
            listing: { type: 'string', pattern: '^[0-9a-f]{64}$' },
            sha256: { type: 'string', pattern: '^[0-9a-f]{64}$' },
          },
          required: ['listing', 'sha256'],
        },
      },
    },
    async (request, reply) => {
      verify(request);
      const master = await options.masterFor(request.params.collection);
      const { path, size } = master.file(request.query.listing, request.params.name, request.query.sha256);
      const range = parseByteRange(request.headers.range, size);
      void reply.header('accept-ranges', 'bytes').header('content-type', 'application/octet-stream');
      if (range === null) {
        void reply.header('content-range', `bytes */${size}`);
        throw new SearchError(
          'RANGE_NOT_SATISFIABLE',
          `the range ${request.headers.range} lies outside the file's ${size} bytes`,
        );
      }
      const start = range?.start ?? 0;
      const end = range?.end ?? size - 1;
      if (range !== undefined) void reply.code(206).header('content-range', `bytes ${start}-${end}/${size}`);
      void reply.header('content-length', String(end - start + 1));
      if (size === 0) return reply.send('');
      // Opened now: the file stays readable to the end even if the lease expires meanwhile.
      return reply.send(createReadStream(path, { start, end, highWaterMark: 1 << 20 }));
    },
  );

  app.post<{ Params: { collection: string } }>(
    '/collections/:collection/clicks',
    {
      schema: {
        tags,
        summary: "A query processor's click log lines (signed with server_secret)",
        params: {
          type: 'object',
          properties: { collection: { type: 'string' } },
          required: ['collection'],
        },
      },
    },
    async (request) => {
      verify(request);
      let batch: unknown;
      let lines: unknown;
      try {
        ({ batch, lines } = JSON.parse((request.body as Buffer).toString('utf8')) as {
          batch: unknown;
          lines: unknown;
        });
      } catch {
        throw new SearchError(
          'BODY_INVALID',
          'the click batch is not JSON: send {"batch": id, "lines": [...]}',
        );
      }
      if (
        typeof batch !== 'string' ||
        !/^[A-Za-z0-9._:-]{1,128}$/.test(batch) ||
        !Array.isArray(lines) ||
        !lines.every((line) => typeof line === 'string' && !line.includes('\n'))
      ) {
        throw new SearchError(
          'BODY_INVALID',
          'send {"batch": "<id>", "lines": ["<one click log line>", ...]}',
        );
      }
      if (lines.length > MAX_CLICK_BATCH_LINES)
        throw new SearchError(
          'BODY_TOO_LARGE',
          `a click batch has at most ${MAX_CLICK_BATCH_LINES} lines, this one ${lines.length}: send smaller batches`,
        );
      const result = await options.receiveClicks(request.params.collection, batch, lines as string[]);
      return { batch, ...result };
    },
  );
}
