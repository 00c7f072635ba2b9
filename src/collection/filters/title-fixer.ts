import type { FilteredDocument } from './filtered-document.js';

/** Titles that say nothing about the document (word processors' and editors' defaults). */
const USELESS = /^(untitled( document)?|new document|document\d*|home|index|title|none|null|undefined)$/i;
/** Prefixes office software puts before the file name. */
const APPLICATION_PREFIX = /^(microsoft (word|excel|powerpoint)|word|powerpoint|excel)\s+-\s+/i;
/** A title made from the text is cut at a word boundary near this many characters. */
const MAX_TITLE_CHARS = 100;

/**
 * The title repair of the original's `DocumentFixerFilterProvider`: a title that is missing,
 * blank, only punctuation, or a default such as "Untitled Document" is replaced by the
 * document's first line of text (cut near {@link MAX_TITLE_CHARS} characters at a word);
 * "Microsoft Word - report.docx" loses the application's prefix; white space is collapsed.
 */
export function fixDocumentTitle(document: FilteredDocument): FilteredDocument {
  const current = (document.title ?? '').replace(/\s+/g, ' ').trim().replace(APPLICATION_PREFIX, '');
  if (/[\p{L}\p{N}]/u.test(current) && !USELESS.test(current)) return { ...document, title: current };
  const line = document.text
    .split('\n')
    .map((l) => l.replace(/\s+/g, ' ').trim())
    .find((l) => /[\p{L}\p{N}]/u.test(l));
  if (line === undefined) {
    const { title: _title, ...rest } = document;
    return rest;
  }
  return { ...document, title: cutAtWord(line) };
}

function cutAtWord(line: string): string {
  if (line.length <= MAX_TITLE_CHARS) return line;
  const space = line.lastIndexOf(' ', MAX_TITLE_CHARS);
  return `${line.slice(0, space > MAX_TITLE_CHARS / 2 ? space : MAX_TITLE_CHARS)}…`;
}
