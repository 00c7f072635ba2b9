import type { FilteredDocument } from './filtered-document.js';

/** Titles that say nothing about the document (word processors', editors' and slide tools' defaults). */
const USELESS =
  /^(untitled( document)?(-\d+)?|new document|document\d*|doc\d+|home|index|title|none|null|undefined|(microsoft )?(word|powerpoint|excel)( document| presentation| worksheet)?|powerpoint presentation|presentation\d*|slide \d+|book\d+|sheet\d+)$/i;
/** Prefixes office software puts before the file name. */
const APPLICATION_PREFIX = /^(microsoft (word|excel|powerpoint)|word|powerpoint|excel)\s+-\s+/i;
/** A title that is only a file name (`report.docx`): the fixer looks for a better one. */
const FILE_NAME = /^[^\s/\\]+\.(docx?|xlsx?|pptx?|pdf|rtf|odt|txt|html?)$/i;
/** A title made from the text is cut at a word boundary near this many characters. */
const MAX_TITLE_CHARS = 100;

/**
 * The title repair of the original's `DocumentFixerFilterProvider`: a title that is missing,
 * blank, only punctuation, a default such as "Untitled Document" or "PowerPoint
 * Presentation", or only a file name (`report.docx`), is replaced by the first of:
 * the page's first heading (`<h1>`, else `<h2>`..`<h6>`), the first line of text (cut near
 * {@link MAX_TITLE_CHARS} characters at a word), the file name of the key (`annual-report_2024.pdf`
 * → "annual report 2024"). "Microsoft Word - report.docx" loses the application's prefix first;
 * white space is collapsed. With no candidate at all the document has no title.
 */
export function fixDocumentTitle(document: FilteredDocument, key: string): FilteredDocument {
  const current = clean(document.title ?? '').replace(APPLICATION_PREFIX, '');
  if (isUseful(current)) return { ...document, title: current };
  const heading = clean(document.heading ?? '');
  if (isUseful(heading)) return { ...document, title: cutAtWord(heading) };
  const line = document.text
    .split('\n')
    .map(clean)
    .find((l) => hasWords(l));
  if (line !== undefined) return { ...document, title: cutAtWord(line) };
  const fromKey = fileNameTitle(key);
  if (fromKey !== undefined) return { ...document, title: fromKey };
  const { title: _title, ...rest } = document;
  return rest;
}

function clean(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function hasWords(text: string): boolean {
  return /[\p{L}\p{N}]/u.test(text);
}

function isUseful(title: string): boolean {
  return hasWords(title) && !USELESS.test(title) && !FILE_NAME.test(title);
}

/** The last path segment of a key, decoded, without its extension, `-`, `_` and `+` as spaces. */
export function fileNameTitle(key: string): string | undefined {
  let path: string;
  try {
    path = new URL(key).pathname;
  } catch {
    path = key;
  }
  const segment = path
    .split('/')
    .filter((s) => s !== '')
    .pop();
  if (segment === undefined) return undefined;
  let name = segment;
  try {
    name = decodeURIComponent(segment);
  } catch {
    // A stray % in a key: the segment as it is.
  }
  const title = clean(name.replace(/\.[A-Za-z0-9]{1,5}$/, '').replace(/[-_+]+/g, ' '));
  return hasWords(title) ? cutAtWord(title) : undefined;
}

function cutAtWord(line: string): string {
  if (line.length <= MAX_TITLE_CHARS) return line;
  const space = line.lastIndexOf(' ', MAX_TITLE_CHARS);
  return `${line.slice(0, space > MAX_TITLE_CHARS / 2 ? space : MAX_TITLE_CHARS)}…`;
}
