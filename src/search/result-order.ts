import type { CollectionSettings } from '../collection/collection-settings.js';
import { parseDate } from '../collection/document-mapper.js';
import { STORED } from '../collection/stored-fields.js';
import type { StoredRecord } from '../index/document.js';

/**
 * The original's `sort=` modes, how results of a search may be ordered besides relevance
 * (the default, also `sort=` empty or `score`): `date` newest first, `adate` oldest first,
 * `title` A→Z, `dtitle` Z→A, `url` A→Z, `durl` Z→A, `prox` nearest to `origin` first,
 * `dprox` farthest first, `meta<class>` by the class's first value ascending (numbers as
 * numbers), `dmeta<class>` descending. Documents without the value sort last either way;
 * ties keep relevance order, then the key, so pages never overlap or skip a result.
 */
export type SortMode =
  | { kind: 'relevance' }
  | { kind: 'date' | 'title' | 'url' | 'prox'; descending: boolean }
  | { kind: 'meta'; className: string; descending: boolean };

const SIMPLE: Readonly<Record<string, SortMode>> = {
  date: { kind: 'date', descending: true },
  adate: { kind: 'date', descending: false },
  title: { kind: 'title', descending: false },
  dtitle: { kind: 'title', descending: true },
  url: { kind: 'url', descending: false },
  durl: { kind: 'url', descending: true },
  prox: { kind: 'prox', descending: false },
  dprox: { kind: 'prox', descending: true },
};

export const SORT_MODES_HELP =
  'score (relevance, the default), date, adate, title, dtitle, url, durl, prox, dprox, meta<class>, dmeta<class>';

/** Parses `sort=`; undefined for a value that is not a mode (the caller answers 400). */
export function parseSortMode(text: string | null): SortMode | undefined {
  const value = (text ?? '').trim();
  if (value === '' || value === 'score' || value === 'relevance') return { kind: 'relevance' };
  const simple = SIMPLE[value.toLowerCase()];
  if (simple !== undefined) return simple;
  const meta = /^(d?)meta([A-Za-z0-9]{1,64})$/.exec(value);
  if (meta !== null) return { kind: 'meta', className: meta[2]!, descending: meta[1] === 'd' };
  return undefined;
}

/** A point on the earth, degrees. */
export interface GeoPoint {
  lat: number;
  lon: number;
}

/** Parses `lat,long` (origin=) or `lat;long` (a type 2 metadata value); undefined when not one. */
export function parseGeoPoint(text: string, separator: ',' | ';'): GeoPoint | undefined {
  const parts = text.split(separator).map((p) => p.trim());
  if (parts.length !== 2 || parts.some((p) => p === '')) return undefined;
  const [lat, lon] = parts.map(Number) as [number, number];
  if (!Number.isFinite(lat) || !Number.isFinite(lon) || Math.abs(lat) > 90 || Math.abs(lon) > 180)
    return undefined;
  return { lat, lon };
}

const EARTH_RADIUS_KM = 6371.0088;

/** Great-circle distance in km (haversine). */
export function kmBetween(a: GeoPoint, b: GeoPoint): number {
  const rad = Math.PI / 180;
  const dLat = (b.lat - a.lat) * rad;
  const dLon = (b.lon - a.lon) * rad;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a.lat * rad) * Math.cos(b.lat * rad) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** The geospatial (metamap or xml.cfg type 2) classes of a collection, in configuration order. */
export function geospatialClasses(settings: CollectionSettings): string[] {
  const out: string[] = [];
  for (const mapping of settings.metamap.classes.values())
    if (mapping.type === 2) out.push(mapping.className);
  for (const mapping of settings.xml?.classes.values() ?? [])
    if (mapping.type === 2 && !out.includes(mapping.className)) out.push(mapping.className);
  return out;
}

/** The document's location: the first parsable `lat;long` value of its geospatial classes. */
export function locationOf(
  classes: Record<string, string[]>,
  geoClasses: readonly string[],
): GeoPoint | undefined {
  for (const className of geoClasses)
    for (const value of classes[className] ?? []) {
      const point = parseGeoPoint(value, ';');
      if (point !== undefined) return point;
    }
  return undefined;
}

/** What a candidate is sorted by, read from its stored record once. */
export interface SortCandidate<T> {
  hit: T;
  /** Position in relevance order (the tie-breaker). */
  order: number;
  key: string;
  record: StoredRecord;
  classes: Record<string, string[]>;
  km: number | undefined;
}

/** Orders candidates by `mode` (see {@link SortMode}); relevance keeps their order. */
export function sortCandidates<T>(candidates: SortCandidate<T>[], mode: SortMode): SortCandidate<T>[] {
  if (mode.kind === 'relevance') return candidates;
  const valueOf = (c: SortCandidate<T>): string | number | undefined => {
    switch (mode.kind) {
      case 'date': {
        const date = c.record[STORED.date];
        return typeof date === 'string' ? parseDate(date) : undefined;
      }
      case 'title': {
        const title = c.record[STORED.title];
        return typeof title === 'string' && title !== '' ? title.toLocaleLowerCase('en') : undefined;
      }
      case 'url':
        return c.key;
      case 'prox':
        return c.km;
      case 'meta': {
        const value = c.classes[mode.className]?.[0];
        if (value === undefined) return undefined;
        const number = Number(value);
        return value.trim() !== '' && Number.isFinite(number) ? number : value.toLocaleLowerCase('en');
      }
    }
  };
  const keyed = candidates.map((c) => ({ c, v: valueOf(c) }));
  const direction = mode.descending ? -1 : 1;
  keyed.sort((a, b) => {
    if (a.v === undefined || b.v === undefined) {
      if (a.v !== b.v) return a.v === undefined ? 1 : -1;
    } else if (a.v !== b.v) {
      if (typeof a.v === 'number' && typeof b.v === 'number') return (a.v - b.v) * direction;
      return String(a.v).localeCompare(String(b.v), 'en') * direction;
    }
    return a.c.order - b.c.order || (a.c.key < b.c.key ? -1 : a.c.key > b.c.key ? 1 : 0);
  });
  return keyed.map((k) => k.c);
}

/**
 * The result's `metaData` (the original's name): class → its values joined with `|`, for the
 * classes named by `-SF=[a,b]` in query_processor_options, or every class of the document
 * when there is no `-SF`. The original's summary fields may be written `-SF=[a,b]`,
 * `-SF=a,b` or `-SF=[a|b]`.
 */
export function metaDataOf(
  classes: Record<string, string[]>,
  summaryFields: readonly string[] | undefined,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const className of summaryFields ?? Object.keys(classes).sort()) {
    const values = classes[className];
    if (values !== undefined && values.length > 0) out[className] = values.join('|');
  }
  return out;
}

/** The classes of `-SF=`, undefined when the flag is absent. */
export function summaryFieldsOf(flags: ReadonlyMap<string, string>): string[] | undefined {
  const value = flags.get('SF');
  if (value === undefined) return undefined;
  return value
    .replace(/^\[|\]$/g, '')
    .split(/[,|]/)
    .map((c) => c.trim())
    .filter((c) => c !== '');
}

/** `-SM=`: `off` no summary, `meta` the summary is the metaData values, otherwise (`snip`, `both`) the snippet. */
export function summaryModeOf(flags: ReadonlyMap<string, string>): 'off' | 'meta' | 'snip' {
  const value = (flags.get('SM') ?? '').toLowerCase();
  return value === 'off' ? 'off' : value === 'meta' ? 'meta' : 'snip';
}

/** The `sort=` value of a mode (the inverse of {@link parseSortMode}). */
export function formatSortMode(mode: SortMode): string {
  if (mode.kind === 'relevance') return 'score';
  if (mode.kind === 'meta') return `${mode.descending ? 'd' : ''}meta${mode.className}`;
  const name = Object.entries(SIMPLE).find(
    ([, m]) => m.kind === mode.kind && 'descending' in m && m.descending === mode.descending,
  );
  return name![0];
}
