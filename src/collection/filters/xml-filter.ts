import { SaxesParser } from 'saxes';
import { SearchError } from '../../errors.js';
import { filterFailed } from './filter-failed.js';
import type { FilteredDocument } from './filtered-document.js';
import { MetadataCollector } from './metadata-collector.js';
import { collapseWhitespace, normalizeBodyText } from './normalize-whitespace.js';
import type { XmlConfigLike } from './xml-config-like.js';
import { compileXPath, matchesPath, type XPathPattern } from './xpath-pattern.js';

/** The metamap class whose value is the title (xml.cfg may map an xpath to it). */
const TITLE_CLASS = 't';

/**
 * Does `text` start (after an optional BOM and whitespace) with an XML declaration? The
 * push service treats a document as XML only then (compat), even when its type says XML.
 */
export function startsWithXmlDeclaration(text: string): boolean {
  const start = skipLeadingWhitespace(text);
  return /^<\?xml[ \t\r\n]/.test(text.slice(start, start + 6));
}

/**
 * The XML filter (saxes, no namespaces processing: names are matched as written).
 * - Values of every xml.cfg xpath go to metadata under the xpath string, in document order;
 *   an element's value is its whole text content, whitespace collapsed.
 * - `text` is all text content; element boundaries separate words.
 * - The `docurl` xpath gives `docUrl`; a mapping to class `t` gives the title; the root's
 *   `xml:lang` the language.
 * Refused with FILTER_FAILED: no XML declaration at the start, malformed XML (with line and
 * column), and any `<!ENTITY` declaration in the DOCTYPE. Entities are refused rather than
 * ignored because nothing in a pushed record needs them and each one is an attack surface:
 * expansion bombs ("billion laughs") and external entities reading local files or URLs (XXE).
 * saxes itself never expands declared entities nor fetches anything; refusing makes the
 * outcome explicit instead of an "undefined entity" error later in the document.
 */
export function xmlFilter(source: string, xmlConfig: XmlConfigLike | undefined): FilteredDocument {
  const start = skipLeadingWhitespace(source);
  if (!/^<\?xml[ \t\r\n]/.test(source.slice(start, start + 6))) {
    throw filterFailed(
      'Xml',
      'an XML document must start with the XML declaration (<?xml version="1.0"?>); ' +
        'without it, push the document with a non-XML filter (e.g. filters=PlainText)',
    );
  }
  // Whitespace before the declaration is not well-formed XML, but the push service accepts it;
  // skip it and count its lines so that error positions still refer to the pushed document.
  let lineOffset = 0;
  for (let i = 0; i < start; i++) if (source.charCodeAt(i) === 10) lineOffset++;
  const xml = start === 0 ? source : source.slice(start);

  const mappings = (xmlConfig?.mappings ?? []).map((m) => ({ className: m.className, pattern: compileXPath(m.xpath) }));
  const docUrlPattern = xmlConfig?.docUrlXpath ? compileXPath(xmlConfig.docUrlXpath) : undefined;
  const elementPatterns: XPathPattern[] = [];
  const attributePatterns: XPathPattern[] = [];
  const seen = new Set<string>();
  for (const pattern of [...mappings.map((m) => m.pattern), ...(docUrlPattern ? [docUrlPattern] : [])]) {
    if (seen.has(pattern.source)) continue;
    seen.add(pattern.source);
    (pattern.attribute === undefined ? elementPatterns : attributePatterns).push(pattern);
  }

  const metadata = new MetadataCollector();
  // Text pieces in document order; an element's value is a slice of them, so text is stored
  // once however many open elements collect it.
  const chunks: string[] = [];
  let chunkChars = 0;
  let boundary = false;
  // Extracted values may repeat text (nested matches); this budget keeps the total linear in
  // the document size. Past it, further values are not collected.
  let budget = xml.length + 1_000_000;
  const stack: string[] = [];
  const open: { patterns: XPathPattern[]; firstChunk: number; chars: number }[] = [];
  let language: string | undefined;

  const addValue = (pattern: XPathPattern, raw: string): void => {
    if (raw.length > budget) return;
    budget -= raw.length;
    const value = collapseWhitespace(raw);
    if (value !== '') metadata.add(pattern.source, value);
  };
  const addText = (t: string): void => {
    if (t === '') return;
    if (boundary && chunks.length > 0) {
      chunks.push(' ');
      chunkChars++;
    }
    boundary = false;
    chunks.push(t);
    chunkChars += t.length;
  };

  const parser = new SaxesParser({ xmlns: false, position: true } as const);
  const positionOf = (): { line: number; column: number } => ({
    line: parser.line + lineOffset,
    column: parser.column + 1,
  });
  parser.on('error', (err) => {
    const { line, column } = positionOf();
    const problem = err.message.replace(/^\d+:\d+: /, '');
    throw filterFailed('Xml', `malformed XML at line ${line}, column ${column}: ${problem}`, {
      details: { line, column },
    });
  });
  parser.on('doctype', (doctype) => {
    if (/<!ENTITY/i.test(doctype)) {
      const { line } = positionOf();
      throw filterFailed(
        'Xml',
        `the DOCTYPE (ending at line ${line}) declares entities (<!ENTITY ...>); entity declarations are ` +
          'refused to protect against entity expansion (billion laughs) and external entities (XXE): ' +
          'remove them and write the text itself',
        { details: { line } },
      );
    }
  });
  parser.on('opentag', (tag) => {
    boundary = true;
    stack.push(tag.name);
    if (stack.length === 1) language = tag.attributes['xml:lang']?.trim() || undefined;
    const matched = elementPatterns.filter((p) => matchesPath(p, stack));
    open.push({ patterns: matched, firstChunk: chunks.length, chars: chunkChars });
    for (const p of attributePatterns) {
      const value = tag.attributes[p.attribute as string];
      if (value !== undefined && matchesPath(p, stack)) addValue(p, value);
    }
  });
  parser.on('closetag', () => {
    boundary = true;
    stack.pop();
    const frame = open.pop();
    if (frame === undefined || frame.patterns.length === 0) return;
    const length = chunkChars - frame.chars;
    if (length > budget) return;
    const raw = chunks.slice(frame.firstChunk).join('');
    for (const p of frame.patterns) addValue(p, raw);
  });
  parser.on('text', addText);
  parser.on('cdata', addText);

  try {
    parser.write(xml);
    parser.close();
  } catch (e) {
    if (e instanceof SearchError) throw e;
    // saxes reports through the error handler; anything else here is a saxes failure on odd
    // input, still a problem of this document.
    const { line, column } = positionOf();
    throw filterFailed('Xml', `malformed XML at line ${line}, column ${column}: ${(e as Error).message}`, {
      cause: e,
      details: { line, column },
    });
  }

  const doc: FilteredDocument = {
    text: normalizeBodyText(chunks.join('')),
    metadata: metadata.toRecord(),
    links: [],
  };
  const titleMapping = mappings.find((m) => m.className === TITLE_CLASS);
  const title = titleMapping === undefined ? undefined : metadata.first(titleMapping.pattern.source);
  if (title) doc.title = title;
  const docUrl = docUrlPattern === undefined ? undefined : metadata.first(docUrlPattern.source);
  if (docUrl) doc.docUrl = docUrl;
  if (language) doc.language = language;
  // The docurl xpath is configuration, not a mapping: keep its value out of metadata unless a
  // mapping names the same xpath.
  if (docUrlPattern !== undefined && !mappings.some((m) => m.pattern.source === docUrlPattern.source)) {
    delete doc.metadata[docUrlPattern.source];
  }
  return doc;
}

function skipLeadingWhitespace(text: string): number {
  let i = 0;
  if (text.charCodeAt(0) === 0xfeff) i++;
  for (; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) break;
  }
  return i;
}
