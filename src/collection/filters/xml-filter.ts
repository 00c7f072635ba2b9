import { SaxesParser } from 'saxes';
import { filterFailed } from './filter-failed.js';
import type { FilteredDocument } from './filtered-document.js';
import { MetadataCollector } from './metadata-collector.js';
import { collapseWhitespace, normalizeBodyText } from './normalize-whitespace.js';
import { TextAccumulator } from './text-accumulator.js';
import type { XmlConfigLike } from './xml-config-like.js';
import { compileXPath, matchesPath, type XPathPattern } from './xpath-pattern.js';

/**
 * Deeper nesting is refused: no record needs it, and every open element costs memory in the
 * parser and here (libxml2 refuses past 256 by default).
 */
export const MAX_XML_DEPTH = 1024;

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
 * - `text` is all text content; elements separate words, except inside mixed content.
 * - The `docurl` xpath gives `docUrl` (its value is not kept as metadata unless a mapping
 *   names the same xpath); a mapping to class `t` gives the title; the root's `xml:lang` the
 *   language.
 *
 * Refused with FILTER_FAILED: no XML declaration at the start, malformed XML (with line and
 * column), elements nested deeper than {@link MAX_XML_DEPTH}, and any `<!ENTITY` declaration
 * in the DOCTYPE. Entities are refused rather than ignored because nothing in a pushed record
 * needs them and each one is an attack surface: expansion bombs ("billion laughs") and
 * external entities reading local files or URLs (XXE). saxes itself never expands declared
 * entities nor fetches anything (an external DTD is never read); refusing makes the outcome
 * explicit instead of an "undefined entity" error further down the document.
 */
export function xmlFilter(source: string, xmlConfig: XmlConfigLike | undefined): FilteredDocument {
  if (!startsWithXmlDeclaration(source)) {
    throw filterFailed(
      'Xml',
      'an XML document must start with the XML declaration (<?xml version="1.0"?>); ' +
        'without it, push the document with a non-XML filter (e.g. filters=PlainText)',
    );
  }
  // Whitespace before the declaration is not well-formed XML, but the push service accepts it;
  // skip it and count its lines so that error positions still refer to the pushed document.
  const start = skipLeadingWhitespace(source);
  let lineOffset = 0;
  for (let i = 0; i < start; i++) if (source.charCodeAt(i) === 10) lineOffset++;
  const xml = start === 0 ? source : source.slice(start);

  const mappings = (xmlConfig?.mappings ?? []).map((m) => ({
    className: m.className,
    pattern: compileXPath(m.xpath),
  }));
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
  // All text in document order; an element's value is read back from it by offset, so text
  // is stored once however many open elements collect it.
  const text = new TextAccumulator();
  // Words must not glue across elements (`<first>Ada</first><last>Lovelace</last>`), yet
  // mixed content (`<p>para<b>graph</b>s</p>`) must not be split: an element starting in a
  // parent that has text of its own is inline, any other start separates.
  let separate = false;
  // Extracted values may repeat text (nested matches); this budget keeps the total linear in
  // the document size. Past it, further values are not collected.
  let budget = xml.length + 1_000_000;
  const stack: string[] = [];
  /** Per open element: has it text of its own (mixed content)? */
  const hasText: boolean[] = [];
  // One entry per open element: the patterns it matched and where its text starts, or null
  // (most elements match nothing; no allocation for them).
  const open: ({ patterns: XPathPattern[]; start: number } | null)[] = [];
  let language: string | undefined;

  const addValue = (pattern: XPathPattern, raw: string): void => {
    if (raw.length > budget) return;
    budget -= raw.length;
    const value = collapseWhitespace(raw);
    if (value !== '') metadata.add(pattern.source, value);
  };
  const addText = (t: string): void => {
    if (t === '') return;
    if (/\S/.test(t)) {
      if (separate && text.length > 0) text.push(' ');
      separate = false;
      if (hasText.length > 0) hasText[hasText.length - 1] = true;
    }
    text.push(t);
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
    if (hasText.length === 0 || !hasText[hasText.length - 1]) separate = true;
    if (stack.length >= MAX_XML_DEPTH) {
      const where = positionOf();
      const problem = `elements nested deeper than ${MAX_XML_DEPTH} levels at line ${where.line}, column ${where.column}`;
      throw filterFailed('Xml', problem, { details: where });
    }
    stack.push(tag.name);
    hasText.push(false);
    if (stack.length === 1) language = tag.attributes['xml:lang']?.trim() || undefined;
    let matched: XPathPattern[] | null = null;
    for (const p of elementPatterns) if (matchesPath(p, stack)) (matched ??= []).push(p);
    open.push(matched === null ? null : { patterns: matched, start: text.length });
    for (const p of attributePatterns) {
      const value = tag.attributes[p.attribute as string];
      if (value !== undefined && matchesPath(p, stack)) addValue(p, value);
    }
  });
  parser.on('closetag', () => {
    stack.pop();
    hasText.pop();
    const frame = open.pop();
    if (frame === undefined || frame === null) return;
    if (text.length - frame.start > budget) return;
    const raw = text.slice(frame.start);
    for (const p of frame.patterns) addValue(p, raw);
  });
  parser.on('text', addText);
  parser.on('cdata', addText);

  // saxes reports malformed XML through the error handler above (a FILTER_FAILED with the
  // position); anything else thrown here is a bug, left to the chain's safety net.
  parser.write(xml);
  parser.close();

  const doc: FilteredDocument = {
    text: normalizeBodyText(text.toString()),
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
