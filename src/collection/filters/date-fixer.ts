import type { FilteredDocument } from './filtered-document.js';

/**
 * Date properties a document carries in its content, as the filters name them (`<name>`
 * metadata: HTML `<meta>` tags, PDF Info and Office core properties through the binary
 * extraction). Changes before creations: a document's date is when it last changed.
 */
const MODIFIED = [
  'moddate',
  'modified',
  'dcterms.modified',
  'dc.date.modified',
  'article:modified_time',
  'last-modified',
];
const DATED = ['date', 'dc.date', 'dcterms.date'];
const CREATED = [
  'creationdate',
  'created',
  'dcterms.created',
  'dc.date.created',
  'dcterms.issued',
  'dc.date.issued',
  'article:published_time',
];
const DATE_NAMES = [...DATED, ...MODIFIED, ...CREATED];

/**
 * The date repair of the original's `DocumentFixerFilterProvider`, as far as it means
 * something here: the content's date properties ({@link DATE_NAMES}) are written in one form,
 * ISO 8601 (`2026-11-27`, or `2026-11-27T09:30:00Z` with a time, in UTC), from the forms
 * documents use: PDF dates (`D:20261127093000+01'00'`), day-first numeric dates
 * (`27/11/2026`, `27.11.2026`, `27-11-2026`: the original's reading), ISO 8601, RFC 2822 and
 * spelled-out dates (`27 November 2026`). A value in none of these forms stays as it is.
 * A document without a `date` property gets one from the last change, else the creation: so
 * `d,0,date` (the default metamap.cfg) dates PDF and Office documents, and `sort=date` orders
 * them. Pushed metadata is never changed (a GET returns it as pushed).
 */
export function fixDocumentDates(document: FilteredDocument): FilteredDocument {
  const metadata = { ...document.metadata };
  let changed = false;
  for (const name of DATE_NAMES) {
    const values = metadata[`<${name}>`];
    if (values === undefined) continue;
    const normalized = values.map((value) => normalizeDate(value) ?? value);
    if (normalized.some((value, i) => value !== values[i])) {
      metadata[`<${name}>`] = normalized;
      changed = true;
    }
  }
  if (metadata['<date>'] === undefined) {
    for (const name of [...MODIFIED, ...CREATED]) {
      const value = metadata[`<${name}>`]?.find((v) => normalizeDate(v) === v);
      if (value === undefined) continue;
      metadata['<date>'] = [value];
      changed = true;
      break;
    }
  }
  return changed ? { ...document, metadata } : document;
}

const PDF_DATE = /^D:(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?(?:(Z)|([+-])(\d{2})'?(\d{2})?'?)?$/;
const DAY_FIRST = /^(\d{1,2})([/.-])(\d{1,2})\2(\d{4})$/;
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const HAS_TIME = /\d{1,2}:\d{2}/;

/** A date in ISO 8601 (`yyyy-mm-dd`, or `yyyy-mm-ddThh:mm:ssZ` with a time); undefined when not a date. */
export function normalizeDate(text: string): string | undefined {
  const value = text.trim();
  const iso = ISO_DATE.exec(value);
  if (iso !== null) return calendarDate(Number(iso[1]), Number(iso[2]), Number(iso[3]));
  const pdf = PDF_DATE.exec(value);
  if (pdf !== null) {
    const [, y, mo = '01', d = '01', h, mi = '00', s = '00', z, sign, oh = '00', om = '00'] = pdf;
    if (h === undefined) return calendarDate(Number(y), Number(mo), Number(d));
    const offset = sign === undefined || z !== undefined ? 'Z' : `${sign}${oh}:${om}`;
    return instant(`${y}-${mo}-${d}T${h}:${mi}:${s}${offset}`);
  }
  const dayFirst = DAY_FIRST.exec(value);
  if (dayFirst !== null) return calendarDate(Number(dayFirst[4]), Number(dayFirst[3]), Number(dayFirst[1]));
  if (!/\d/.test(value)) return undefined;
  const time = Date.parse(value);
  if (!Number.isFinite(time)) return undefined;
  if (HAS_TIME.test(value)) return instant(value);
  // A date without a time: its calendar day, whatever the server's time zone.
  const local = new Date(time);
  return calendarDate(local.getFullYear(), local.getMonth() + 1, local.getDate());
}

function calendarDate(year: number, month: number, day: number): string | undefined {
  const date = new Date(Date.UTC(year, month - 1, day));
  if (year < 1000 || year > 9999 || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day)
    return undefined;
  return date.toISOString().slice(0, 10);
}

function instant(text: string): string | undefined {
  const time = Date.parse(text);
  if (!Number.isFinite(time)) return undefined;
  const date = new Date(time);
  const year = date.getUTCFullYear();
  if (year < 1000 || year > 9999) return undefined;
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}
