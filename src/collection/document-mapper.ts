import type { DocumentInput, StoredRecord } from '../index/document.js';
import type { ChangeRecord } from './change-record.js';
import type { MetadataClassMapping } from './config/metamap.js';
import { gscopesForKey } from './config/gscopes.js';
import { matchQie } from './config/qie.js';
import type { CollectionSettings } from './collection-settings.js';
import type { FilteredDocument } from './filters/filtered-document.js';
import {
  BODY_FIELD,
  FACET_FIELD_PREFIX,
  GSCOPE_FIELD,
  QIE_FIELD,
  REDIRECT_FIELD,
  STORED,
  SUMMARY_SOURCE_CHARS,
  TITLE_FIELD,
} from './stored-fields.js';

/** A pushed document: the journal's put record (see change-record.ts) without its operation. */
export type PushedDocument = Omit<Extract<ChangeRecord, { op: 'put' }>, 'op'>;

/**
 * Ranking evidence about a document that comes from elsewhere (links from other documents,
 * clicks of users), kept by the evidence store (`src/collection/evidence/`), not in the pushed
 * content. The mapper adds it as it is: fields (anchor text `k`, click queries `K`),
 * numbers (`$clicks`) and stored values (the evidence fingerprint).
 */
export interface DocumentEvidence {
  fields: Record<string, string[]>;
  numbers: Record<string, number>;
  stored: StoredRecord;
}

/**
 * Turns a filtered pushed document into what the engine indexes, applying the metadata
 * mapping (metamap.cfg, xml.cfg), gscopes and query-independent evidence, plus the
 * document's ranking evidence when given. Pure: the same input, settings and evidence always
 * give the same document (RE_INDEX relies on it).
 */
export function mapDocument(
  doc: PushedDocument,
  filtered: FilteredDocument,
  settings: CollectionSettings,
  evidence?: DocumentEvidence,
): DocumentInput {
  const classes = new Map<string, string[]>();
  const add = (className: string, values: readonly string[]) => {
    if (values.length === 0) return;
    const list = classes.get(className);
    if (list === undefined) classes.set(className, [...values]);
    else list.push(...values);
  };
  const types = new Map<string, MetadataClassMapping['type']>();
  for (const mapping of settings.metamap.classes.values()) {
    types.set(mapping.className, mapping.type);
    for (const source of mapping.sources) {
      if (source.kind === 'html-element') {
        add(mapping.className, filtered.elements?.[source.name] ?? []);
        continue;
      }
      // A plain name is pushed metadata and the content's <meta name> of that name; a value
      // the push already gave is not added twice.
      const pushed = pushedValues(doc.metadata, source.name);
      add(mapping.className, pushed);
      const meta = filtered.metadata[`<${source.name.toLowerCase()}>`] ?? [];
      add(mapping.className, pushed.length === 0 ? meta : meta.filter((v) => !pushed.includes(v)));
    }
  }
  if (settings.xml !== undefined) {
    for (const mapping of settings.xml.classes.values()) {
      types.set(mapping.className, mapping.type);
      for (const path of mapping.paths) add(mapping.className, filtered.metadata[path.source] ?? []);
    }
  }

  const fields: Record<string, string[]> = {};
  const numbers: Record<string, number> = {};
  const body: string[] = [filtered.text];
  for (const [className, values] of classes) {
    const type = types.get(className) ?? 0;
    if (type === 3) {
      const number = Number.parseFloat(values[0] ?? '');
      if (Number.isFinite(number)) numbers[className] = number;
    } else if (type !== 2) {
      fields[className] = values;
      if (type === 1) body.push(...values);
    }
    if (className === 'd') {
      const time = parseDate(values[0] ?? '');
      if (time !== undefined) numbers.d = time;
    }
    fields[FACET_FIELD_PREFIX + className] = values
      .map((v) => v.trim())
      .filter((v) => v.length > 0 && v.length <= 256);
  }
  const title = classes.get(TITLE_FIELD)?.[0] ?? filtered.title ?? '';
  fields[TITLE_FIELD] = classes.get(TITLE_FIELD) ?? (filtered.title === undefined ? [] : [filtered.title]);
  fields[BODY_FIELD] = body;
  if (settings.gscopes !== undefined) fields[GSCOPE_FIELD] = gscopesForKey(settings.gscopes, doc.key);
  if (settings.qie !== undefined) numbers[QIE_FIELD] = matchQie(settings.qie, doc.key);

  const stored: StoredRecord = {
    [STORED.content]: doc.content,
    [STORED.contentType]: doc.contentType,
    [STORED.pushMetadata]: JSON.stringify(doc.metadata),
    [STORED.receivedTime]: doc.receivedTime,
    [STORED.title]: title,
    [STORED.text]:
      filtered.text.length > SUMMARY_SOURCE_CHARS
        ? filtered.text.slice(0, SUMMARY_SOURCE_CHARS)
        : filtered.text,
    [STORED.classes]: JSON.stringify(Object.fromEntries(classes)),
    [STORED.fileSize]: doc.content.length,
    [STORED.fileType]: xmlFileTypeOf(settings, filtered) ?? fileTypeOf(doc.contentType, doc.key),
    [STORED.links]: JSON.stringify(filtered.links.map((link) => [link.href, link.text])),
  };
  if (doc.filters !== undefined) stored[STORED.filters] = doc.filters;
  if (doc.extracted !== undefined) stored[STORED.extracted] = doc.extracted;
  const date = classes.get('d')?.[0];
  if (date !== undefined) stored[STORED.date] = date;
  // Evidence goes last: its classes (k, K) are reserved for the engine, never mapped from content.
  if (evidence !== undefined) {
    Object.assign(fields, evidence.fields);
    Object.assign(numbers, evidence.numbers);
    Object.assign(stored, evidence.stored);
  }
  return { key: doc.key, fields, numbers, stored };
}

/** A redirect entry: stored so links to it count for the target, never a result itself. */
export function mapRedirect(key: string, target: string, receivedTime: string): DocumentInput {
  return {
    key,
    fields: { [REDIRECT_FIELD]: ['true'] },
    stored: { [STORED.redirect]: target, [STORED.receivedTime]: receivedTime },
  };
}

/** Pushed metadata by mapping source name: exact name first, else ignoring case (headers lose case). */
function pushedValues(metadata: Record<string, string[]>, name: string): string[] {
  const exact = metadata[name];
  if (exact !== undefined) return exact;
  const lower = name.toLowerCase();
  const values: string[] = [];
  for (const [key, list] of Object.entries(metadata)) if (key.toLowerCase() === lower) values.push(...list);
  return values;
}

const FILE_TYPES: Record<string, string> = {
  'text/html': 'html',
  'application/xhtml+xml': 'html',
  'text/plain': 'txt',
  'application/xml': 'xml',
  'text/xml': 'xml',
  'application/json': 'json',
  'application/pdf': 'pdf',
};

function fileTypeOf(contentType: string, key: string): string {
  const mediaType = contentType.split(';')[0]!.trim().toLowerCase();
  const known = FILE_TYPES[mediaType];
  if (known !== undefined) return known;
  if (mediaType.endsWith('+xml')) return 'xml';
  const extension = /\.([A-Za-z0-9]{1,8})(?:[?#]|$)/.exec(key)?.[1];
  return extension?.toLowerCase() ?? 'unknown';
}

/** The file type an xml.cfg `docfiletype` line finds in the record, if any. */
function xmlFileTypeOf(settings: CollectionSettings, filtered: FilteredDocument): string | undefined {
  for (const path of settings.xml?.docFileType ?? []) {
    const value = filtered.metadata[path.source]?.[0]?.trim();
    if (value !== undefined && value !== '') return value.toLowerCase();
  }
  return undefined;
}

/** ISO 8601, RFC 2822 and `yyyyMMdd[HHmmss]`; undefined when not a date. */
export function parseDate(text: string): number | undefined {
  const trimmed = text.trim();
  const compact = /^(\d{4})(\d{2})(\d{2})(?:(\d{2})(\d{2})(\d{2}))?$/.exec(trimmed);
  if (compact !== null) {
    const [, y, mo, d, h, mi, s] = compact;
    const time = Date.UTC(
      Number(y),
      Number(mo) - 1,
      Number(d),
      Number(h ?? 0),
      Number(mi ?? 0),
      Number(s ?? 0),
    );
    return Number.isFinite(time) ? time : undefined;
  }
  const time = Date.parse(trimmed);
  return Number.isFinite(time) ? time : undefined;
}
