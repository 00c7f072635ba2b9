import {
  MAX_ELEMENT_CHARS,
  MAX_ELEMENT_VALUES,
  MAX_LINKS,
  type FilteredDocument,
  type FilteredLink,
} from './filtered-document.js';
import { parseHtmlEvents } from './html-event-parser.js';
import { LinkResolver, isIgnorableHref } from './link-resolver.js';
import { MetadataCollector } from './metadata-collector.js';
import { collapseWhitespace, lineBreaksToSpaces, normalizeBodyText } from './normalize-whitespace.js';
import { TextAccumulator } from './text-accumulator.js';

/** Elements whose content is not visible text. */
const HIDDEN = new Set(['script', 'style', 'noscript', 'template']);

/** Elements that end a line in the rendered page: their boundaries become `\n`, so words never glue. */
const BLOCK = new Set([
  'address',
  'article',
  'aside',
  'blockquote',
  'body',
  'br',
  'caption',
  'center',
  'dd',
  'details',
  'dialog',
  'div',
  'dl',
  'dt',
  'fieldset',
  'figcaption',
  'figure',
  'footer',
  'form',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'head',
  'header',
  'hgroup',
  'hr',
  'html',
  'legend',
  'li',
  'main',
  'menu',
  'nav',
  'ol',
  'option',
  'p',
  'pre',
  'section',
  'select',
  'summary',
  'table',
  'tbody',
  'td',
  'textarea',
  'tfoot',
  'th',
  'thead',
  'tr',
  'ul',
]);

/** Elements whose line breaks are content (elsewhere a line break in the source is a space). */
const PREFORMATTED = new Set(['pre', 'textarea', 'listing', 'plaintext']);

/** Inline elements that still separate the words around them. */
const SPACED = new Set(['img', 'input', 'button', 'embed', 'iframe', 'object', 'video', 'audio']);

/** Longer titles are cut (an unclosed `<title>` swallows the rest of the page, as in browsers). */
const MAX_TITLE = 1024;

/** Anchor text past this length is noise (a link wrapping a whole page) and would double the text's memory. */
const MAX_LINK_TEXT = 1000;
/**
 * Raw links gathered before resolution. Resolution waits for the end of the document (the
 * first `<base href>` applies to every link, also ones before it); some raw links resolve to
 * nothing (self links, bad URLs), so a margin over {@link MAX_LINKS} is kept.
 */
const MAX_RAW_LINKS = 2 * MAX_LINKS;

/**
 * The text of a title candidate, kept to a few times what a title can use (whitespace
 * collapses later): an unclosed <title> or <h1> runs to the end of the page.
 */
class TitleText {
  private readonly parts: string[] = [];
  private length = 0;

  push(piece: string): void {
    if (this.length >= 4 * MAX_TITLE) return;
    const kept = piece.slice(0, 4 * MAX_TITLE - this.length);
    this.parts.push(kept);
    this.length += kept.length;
  }

  toString(): string {
    return this.parts.join('');
  }
}

/**
 * Collects the visible text of the elements of the names asked for (metamap.cfg `<h1>`
 * sources). An element inside another of the same name belongs to the outer one's text, so
 * one element gives one value. Bounded: {@link MAX_ELEMENT_VALUES} values a name, each cut
 * at {@link MAX_ELEMENT_CHARS}.
 */
class ElementTexts {
  private readonly open = new Map<string, { depth: number; parts: string[]; length: number }>();
  private readonly values = new Map<string, string[]>();

  constructor(private readonly wanted: ReadonlySet<string>) {}

  opened(name: string): void {
    if (!this.wanted.has(name)) return;
    const current = this.open.get(name);
    if (current !== undefined) current.depth++;
    else if ((this.values.get(name)?.length ?? 0) < MAX_ELEMENT_VALUES)
      this.open.set(name, { depth: 1, parts: [], length: 0 });
  }

  text(data: string): void {
    for (const current of this.open.values()) {
      if (current.length >= 2 * MAX_ELEMENT_CHARS) continue;
      const kept = data.slice(0, 2 * MAX_ELEMENT_CHARS - current.length);
      current.parts.push(kept);
      current.length += kept.length;
    }
  }

  /** A block boundary inside an open element: words on either side stay apart. */
  separate(): void {
    for (const current of this.open.values()) current.parts.push(' ');
  }

  closed(name: string): void {
    const current = this.open.get(name);
    if (current === undefined || --current.depth > 0) return;
    this.open.delete(name);
    this.add(name, current.parts.join(''));
  }

  /** A value found elsewhere (the `<title>`, whose text is not body text). */
  add(name: string, raw: string): void {
    let value = collapseWhitespace(raw);
    if (value === '') return;
    if (value.length > MAX_ELEMENT_CHARS) value = value.slice(0, MAX_ELEMENT_CHARS).trimEnd();
    const list = this.values.get(name);
    if (list === undefined) this.values.set(name, [value]);
    else if (list.length < MAX_ELEMENT_VALUES) list.push(value);
  }

  toRecord(): Record<string, string[]> {
    // Elements still open at the end (the parser closes every element, so none in practice).
    for (const name of [...this.open.keys()]) {
      const current = this.open.get(name)!;
      current.depth = 1;
      this.closed(name);
    }
    return Object.fromEntries(this.values);
  }
}

interface RawLink {
  href: string;
  parts: string[];
  length: number;
}

/**
 * The HTML filter: title (`<title>`, else the first `<h1>`), visible text, `<meta>` tags as
 * `<name>` metadata, links with their text, the `lang` of `<html>`, and the text of each
 * element named in `elements` (lower case; metamap.cfg `<h1>` sources). The tokenizer
 * (htmlparser2's) and the tree rules ({@link parseHtmlEvents}) are forgiving, so broken HTML
 * (unclosed tags, stray end tags, `</` inside scripts) gets the reading a browser would give
 * it, and this filter never throws on content. Cost and memory are linear in the page size.
 */
export function htmlFilter(
  source: string,
  key: string,
  elements: ReadonlySet<string> = new Set(),
): FilteredDocument {
  const metadata = new MetadataCollector();
  const elementTexts = elements.size === 0 ? undefined : new ElementTexts(elements);
  const text = new TextAccumulator();
  let hiddenDepth = 0;
  let foreignDepth = 0;
  let preDepth = 0;

  let titleText: TitleText | undefined;
  let titleDepth = 0;
  let capturingTitle = false;
  let h1Text: TitleText | undefined;
  let h1Depth = 0;
  let h1Done = false;
  // The first <h2>..<h6>: the document fixer's title when a page has no <title> nor <h1>.
  let subheadingText: TitleText | undefined;
  let subheadingName: string | undefined;
  let subheadingDepth = 0;

  let baseHref: string | undefined;
  let language: string | undefined;
  let contentLanguage: string | undefined;
  const rawLinks: RawLink[] = [];
  let link: RawLink | undefined;

  const addLinkText = (s: string): void => {
    if (link === undefined || link.length >= MAX_LINK_TEXT) return;
    const piece = s.length > MAX_LINK_TEXT ? s.slice(0, MAX_LINK_TEXT) : s;
    link.parts.push(piece);
    link.length += piece.length;
  };

  parseHtmlEvents(source, {
    onopentag(name, attribs) {
      if (HIDDEN.has(name)) hiddenDepth++;
      if (name === 'svg' || name === 'math') foreignDepth++;
      if (PREFORMATTED.has(name)) preDepth++;
      separate(name);
      elementTexts?.opened(name);
      switch (name) {
        case 'title':
          // No title is body text (SVG/MathML titles are tooltips). The first one outside
          // SVG/MathML names the page.
          titleDepth++;
          if (titleText === undefined && foreignDepth === 0) {
            titleText = new TitleText();
            capturingTitle = true;
          }
          break;
        case 'h1':
          if (!h1Done) {
            if (h1Depth === 0) h1Text = new TitleText();
            h1Depth++;
          }
          break;
        case 'h2':
        case 'h3':
        case 'h4':
        case 'h5':
        case 'h6':
          if (subheadingText === undefined) {
            subheadingText = new TitleText();
            subheadingName = name;
          }
          if (name === subheadingName) subheadingDepth++;
          break;
        case 'base':
          if (baseHref === undefined && attribs.href !== undefined) baseHref = attribs.href;
          break;
        case 'html':
          if (language === undefined && attribs.lang) language = attribs.lang.trim() || undefined;
          break;
        case 'meta':
          readMeta(attribs);
          break;
        case 'a':
          // <a> cannot nest: a new one ends the open one, as a browser's parser does.
          link = undefined;
          if (
            attribs.href !== undefined &&
            rawLinks.length < MAX_RAW_LINKS &&
            !isIgnorableHref(attribs.href)
          ) {
            link = { href: attribs.href, parts: [], length: 0 };
            rawLinks.push(link);
          }
          break;
        case 'img':
          if (attribs.alt && hiddenDepth === 0) addLinkText(` ${attribs.alt} `);
          break;
      }
    },
    ontext(raw) {
      if (hiddenDepth > 0) return;
      const data = preDepth > 0 ? raw : lineBreaksToSpaces(raw);
      if (titleDepth > 0) {
        if (capturingTitle) titleText?.push(data);
        return;
      }
      text.push(data);
      elementTexts?.text(data);
      if (h1Depth > 0) h1Text?.push(data);
      if (subheadingDepth > 0) subheadingText?.push(data);
      addLinkText(data);
    },
    onclosetag(name) {
      if (HIDDEN.has(name) && hiddenDepth > 0) hiddenDepth--;
      if ((name === 'svg' || name === 'math') && foreignDepth > 0) foreignDepth--;
      if (PREFORMATTED.has(name) && preDepth > 0) preDepth--;
      separate(name);
      elementTexts?.closed(name);
      if (name === 'title' && titleDepth > 0) {
        titleDepth--;
        capturingTitle = false;
      } else if (name === 'a') link = undefined;
      else if (name === 'h1' && h1Depth > 0 && --h1Depth === 0) h1Done = true;
      else if (name === subheadingName && subheadingDepth > 0 && --subheadingDepth === 0) subheadingName = '';
    },
  });

  function separate(name: string): void {
    if (BLOCK.has(name)) text.push('\n');
    else if (SPACED.has(name)) text.push(' ');
    else return;
    elementTexts?.separate();
    addLinkText(' ');
  }

  function readMeta(attribs: Record<string, string>): void {
    const content = attribs.content;
    if (content === undefined) return;
    const value = collapseWhitespace(content);
    if (value === '') return;
    for (const nameAttr of [attribs.name, attribs.property]) {
      const name = nameAttr?.trim().toLowerCase();
      if (name) metadata.add(`<${name}>`, value);
    }
    if (attribs['http-equiv']?.trim().toLowerCase() === 'content-language') contentLanguage ??= value;
  }

  const resolver = new LinkResolver(key);
  const base = resolver.baseFor(baseHref);
  const links: FilteredLink[] = [];
  for (const raw of rawLinks) {
    if (links.length >= MAX_LINKS) break;
    const href = resolver.resolve(raw.href, base);
    if (href !== undefined) links.push({ href, text: collapseWhitespace(raw.parts.join('')) });
  }

  let title = titleText === undefined ? undefined : collapseWhitespace(titleText.toString());
  if (!title && h1Text !== undefined) title = collapseWhitespace(h1Text.toString());
  if (title !== undefined && title.length > MAX_TITLE) title = title.slice(0, MAX_TITLE).trimEnd();

  const doc: FilteredDocument = {
    text: normalizeBodyText(text.toString()),
    metadata: metadata.toRecord(),
    links,
  };
  if (title) doc.title = title;
  const heading = [h1Text, subheadingText]
    .map((candidate) => collapseWhitespace(candidate?.toString() ?? '').slice(0, MAX_TITLE))
    .find((candidate) => candidate !== '');
  if (heading) doc.heading = heading;
  if (elementTexts !== undefined) {
    // The <title> text is not body text, so it never reached the element collector.
    if (elements.has('title') && titleText !== undefined) elementTexts.add('title', titleText.toString());
    const found = elementTexts.toRecord();
    if (Object.keys(found).length > 0) doc.elements = found;
  }
  const lang = language ?? contentLanguage;
  if (lang) doc.language = lang;
  return doc;
}
