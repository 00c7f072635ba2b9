/**
 * The pharmacy finder's flow, replayed as that Node client sends it, through a real server on
 * loopback: XML and JSON records pushed with a geospatial metadata header, then a search by
 * distance, sorted by proximity, with opening-hour ranges, reading `metaData` and
 * `kmFromOrigin` from each result.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ADMIN_AUTH } from '../http/helpers.js';
import { kmBetween } from '../../src/search/result-order.js';
import { testServer, type TestServer } from '../support/test-server.js';

const C = 'nhs~pharmacies';
const ORIGIN = { lat: 54.15, lon: -0.89 };

/** [id, name, lat, long, isMaster, opens (hhmm), closes (hhmm), format] */
const PHARMACIES: [string, string, number, number, boolean, number, number, 'xml' | 'json'][] = [
  ['p1', 'Malton Pharmacy', 54.135, -0.797, true, 900, 1730, 'xml'], // ~6 km
  ['p2', 'Pickering Chemist', 54.246, -0.776, true, 830, 1800, 'json'], // ~13 km
  ['p3', 'York Late Pharmacy', 53.959, -1.082, true, 800, 2300, 'xml'], // ~25 km
  ['p4', 'Scarborough Pharmacy', 54.283, -0.401, true, 900, 1700, 'json'], // ~35 km: too far
  ['p5', 'Malton Branch', 54.137, -0.8, false, 900, 1730, 'json'], // near, not a master record
  ['p6', 'Helmsley Pharmacy', 54.246, -1.061, true, 1000, 1600, 'xml'], // ~15 km, closes early
];

interface Result {
  title: string;
  liveUrl: string;
  metaData: Record<string, string>;
  kmFromOrigin?: number | null;
  fileType: string;
}

describe('compat: the pharmacy finder (geospatial records, metaData, kmFromOrigin, sort=prox)', () => {
  let server: TestServer;

  before(async () => {
    server = await testServer({ collections: [C] });
    const conf = join(server.home, 'conf', C);
    mkdirSync(conf, { recursive: true });
    writeFileSync(
      join(conf, 'metamap.cfg'),
      ['isMaster,0,isMaster', 'location,2,location', 'opens,3,opens', 'closes,3,closes', 'name,1,name'].join(
        '\n',
      ) + '\n',
    );
    writeFileSync(
      join(conf, 'xml.cfg'),
      [
        'PADRE XML Mapping Version: 2',
        'docfiletype,/pharmacy/format',
        '+,,,/pharmacy/services',
        't,1,,/pharmacy/name',
        'phone,0,,/pharmacy/phone',
      ].join('\n') + '\n',
    );
    writeFileSync(
      join(conf, 'collection.cfg'),
      'collection_type=push\nquery_processor_options=-SM=meta -SF=[name,isMaster,location,opens,closes,phone]\n',
    );
  });
  after(async () => {
    await server.dispose();
  });

  function api(method: string, path: string, body?: string, headers: Record<string, string> = {}) {
    return fetch(`${server.url}${path}`, {
      method,
      headers: { authorization: ADMIN_AUTH, ...headers },
      ...(body === undefined ? {} : { body }),
    });
  }

  it('pushes XML and JSON records with metadata headers, commits, and finds them by distance', async () => {
    for (const [id, name, lat, lon, isMaster, opens, closes, format] of PHARMACIES) {
      const key = `https://pharmacies.example/${id}`;
      const headers: Record<string, string> = {
        'X-Funnelback-Push-Meta-Data-location': `${lat};${lon}`,
        'X-Funnelback-Push-Meta-Data-isMaster': String(isMaster),
        'X-Funnelback-Push-Meta-Data-opens': String(opens),
        'X-Funnelback-Push-Meta-Data-closes': String(closes),
        'X-Funnelback-Push-Meta-Data-name': name,
      };
      const body =
        format === 'xml'
          ? `<?xml version="1.0" encoding="UTF-8"?><pharmacy><name>${name}</name><format>PharmacyRecord</format><phone>01653 000${id.slice(1)}</phone><services>flu vaccinations</services></pharmacy>`
          : JSON.stringify({ title: name, services: 'flu vaccinations', id });
      const put = await api(
        'PUT',
        `/push-api/v1/collections/${C}/documents?key=${encodeURIComponent(key)}`,
        body,
        {
          ...headers,
          'content-type': format === 'xml' ? 'application/xml' : 'application/json',
        },
      );
      assert.equal(put.status, 200, await put.text());
    }
    const commit = await api('POST', `/push-api/v1/collections/${C}/commit`);
    assert.equal(commit.status, 200, await commit.text());

    const search = await fetch(
      `${server.url}/s/search.json?collection=${C}&query=isMaster:true&maxdist=32&origin=54.15,-0.89&sort=prox&num_ranks=10`,
    );
    assert.equal(search.status, 200);
    const packet = (
      (await search.json()) as {
        response: { resultPacket: { resultsSummary: { totalMatching: number }; results: Result[] } };
      }
    ).response.resultPacket;
    assert.deepEqual(
      packet.results.map((r) => r.liveUrl.slice(-2)),
      ['p1', 'p2', 'p6', 'p3'],
      'masters within 32 km, nearest first',
    );
    assert.equal(packet.resultsSummary.totalMatching, 4);
    for (const result of packet.results) {
      const [, , lat, lon] = PHARMACIES.find(([id]) => result.liveUrl.endsWith(id))!;
      assert.ok(typeof result.kmFromOrigin === 'number');
      assert.ok(
        Math.abs(result.kmFromOrigin - kmBetween(ORIGIN, { lat, lon })) < 0.01,
        JSON.stringify(result),
      );
      assert.ok(result.kmFromOrigin <= 32);
      assert.equal(result.metaData.isMaster, 'true');
      assert.equal(result.metaData.location, `${lat};${lon}`);
    }
    const malton = packet.results[0]!;
    assert.deepEqual(Object.keys(malton.metaData).sort(), [
      'closes',
      'isMaster',
      'location',
      'name',
      'opens',
      'phone',
    ]);
    assert.equal(malton.metaData.phone, '01653 0001');
    assert.equal(malton.fileType, 'pharmacyrecord', 'docfiletype of xml.cfg');
  });

  it('adds the opening-hours ranges (ge_closes, le_opens) and pages consistently', async () => {
    const base = `${server.url}/s/search.json?collection=${C}&query=isMaster:true&maxdist=32&origin=54.15,-0.89&sort=prox`;
    const open = (await (await fetch(`${base}&ge_closes=1700&le_opens=900&num_ranks=10`)).json()) as {
      response: { resultPacket: { results: Result[] } };
    };
    assert.deepEqual(
      open.response.resultPacket.results.map((r) => r.liveUrl.slice(-2)),
      ['p1', 'p2', 'p3'],
      'Helmsley opens at 10:00 and closes at 16:00',
    );
    const pages: string[] = [];
    for (const start of [1, 2, 3, 4]) {
      const page = (await (await fetch(`${base}&num_ranks=1&start_rank=${start}`)).json()) as {
        response: { resultPacket: { results: Result[] } };
      };
      pages.push(...page.response.resultPacket.results.map((r) => r.liveUrl.slice(-2)));
    }
    assert.deepEqual(pages, ['p1', 'p2', 'p6', 'p3']);
    const far = (await (await fetch(`${base.replace('sort=prox', 'sort=dprox')}&num_ranks=10`)).json()) as {
      response: { resultPacket: { results: Result[] } };
    };
    assert.deepEqual(
      far.response.resultPacket.results.map((r) => r.liveUrl.slice(-2)),
      ['p3', 'p6', 'p2', 'p1'],
    );
  });

  it('sorts by title and metadata class, and refuses a bad sort, origin or maxdist with 400', async () => {
    const ids = async (extra: string) => {
      const answer = (await (
        await fetch(`${server.url}/s/search.json?collection=${C}&query=isMaster:true&${extra}`)
      ).json()) as {
        response: { resultPacket: { results: Result[] } };
      };
      return answer.response.resultPacket.results.map((r) => r.liveUrl.slice(-2));
    };
    assert.deepEqual(await ids('sort=title'), ['p6', 'p1', 'p2', 'p4', 'p3']);
    assert.deepEqual(await ids('sort=dtitle'), ['p3', 'p4', 'p2', 'p1', 'p6']);
    assert.deepEqual(await ids('sort=dmetacloses'), ['p3', 'p2', 'p1', 'p4', 'p6']);
    const byOpening = await ids('sort=metaopens');
    assert.deepEqual([byOpening[0], byOpening[1], byOpening[4]], ['p3', 'p2', 'p6']); // p1 and p4 both open at 9
    assert.deepEqual(await ids('sort=url'), ['p1', 'p2', 'p3', 'p4', 'p6']);
    for (const bad of [
      'sort=sideways',
      'origin=north',
      'origin=91,0',
      'maxdist=5',
      'origin=54,0&maxdist=-1',
      'sort=prox',
    ]) {
      const response = await fetch(`${server.url}/s/search.json?collection=${C}&query=x&${bad}`);
      assert.equal(response.status, 400, bad);
      assert.equal(((await response.json()) as { error: string }).error, 'PARAMETER_INVALID', bad);
    }
  });
});
