import { unzipSync } from 'fflate';
import { SaxesParser } from 'saxes';
import type { ExtractedDocument } from './extracted-document.js';

/** Uncompressed bytes the parts read may hold together: beyond this a file is refused (zip bombs). */
export const OOXML_MAX_UNCOMPRESSED_BYTES = 256 * 1024 * 1024;

/** Which parts of each format hold its text, and which XML element ends a paragraph. */
const FORMATS = {
  docx: {
    parts: /^word\/(document|footnotes|endnotes|header\d*|footer\d*)\.xml$/,
    paragraph: 'w:p',
    text: 'w:t',
  },
  xlsx: { parts: /^xl\/(sharedStrings|worksheets\/sheet\d+)\.xml$/, paragraph: 'si', text: 't' },
  pptx: { parts: /^ppt\/slides\/slide\d+\.xml$/, paragraph: 'a:p', text: 'a:t' },
} as const;

/**
 * Text and properties of an Office Open XML file (docx, xlsx, pptx): the zip is opened with
 * fflate, only the parts that hold text and `docProps/core.xml` are inflated (their declared
 * sizes checked first), and their XML is read with saxes. Spreadsheets give their shared
 * strings and inline cell values; numbers stay in the sheets' `<v>` elements and are read too.
 * Throws an Error saying what is wrong for anything that is not such a file.
 */
export function extractOoxml(kind: 'docx' | 'xlsx' | 'pptx', bytes: Uint8Array): ExtractedDocument {
  const format = FORMATS[kind];
  let declared = 0;
  let files: Record<string, Uint8Array>;
  try {
    files = unzipSync(bytes, {
      filter: (file) => {
        const wanted = format.parts.test(file.name) || file.name === 'docProps/core.xml';
        if (wanted) declared += file.originalSize;
        if (declared > OOXML_MAX_UNCOMPRESSED_BYTES)
          throw new Error(`its text parts inflate to more than ${OOXML_MAX_UNCOMPRESSED_BYTES} bytes`);
        return wanted;
      },
    });
  } catch (e) {
    throw new Error(`not a readable ${kind} file (zip): ${(e as Error).message}`);
  }
  const names = Object.keys(files)
    .filter((name) => format.parts.test(name))
    .sort(naturalOrder);
  if (names.length === 0) throw new Error(`not a ${kind} file: it has no ${format.parts.source} part`);
  const paragraphs: string[] = [];
  for (const name of names) {
    const isSheet = kind === 'xlsx' && name.includes('worksheets/');
    readXml(
      name,
      files[name]!,
      (element) => {
        if (isSheet)
          return element === 'v' || element === 't' ? 'text' : element === 'c' ? 'paragraph' : undefined;
        return element === format.text ? 'text' : element === format.paragraph ? 'paragraph' : undefined;
      },
      paragraphs,
    );
  }
  const properties: Record<string, string> = {};
  let title: string | undefined;
  const core = files['docProps/core.xml'];
  if (core !== undefined) {
    for (const [element, value] of coreProperties(core)) {
      if (element === 'title') title = value;
      else properties[element] = value;
    }
  }
  return { ...(title !== undefined && title !== '' ? { title } : {}), paragraphs, properties };
}

/** Collects text of `text` elements, one paragraph per `paragraph` element (empty ones dropped). */
function readXml(
  name: string,
  bytes: Uint8Array,
  role: (element: string) => 'text' | 'paragraph' | undefined,
  out: string[],
): void {
  const parser = new SaxesParser({ xmlns: false });
  let depthInText = 0;
  let current = '';
  parser.on('error', (e) => {
    throw new Error(`${name} is not well-formed XML: ${e.message}`);
  });
  parser.on('doctype', () => {
    throw new Error(`${name} declares a DOCTYPE (refused: entity expansion)`);
  });
  parser.on('opentag', (tag) => {
    if (role(tag.name) === 'text') depthInText++;
  });
  parser.on('text', (text) => {
    if (depthInText > 0) current += text;
  });
  parser.on('closetag', (tag) => {
    const r = role(tag.name);
    if (r === 'text') {
      depthInText--;
      if (depthInText === 0) current += ' ';
    } else if (r === 'paragraph') {
      const paragraph = current.replace(/\s+/g, ' ').trim();
      if (paragraph !== '') out.push(paragraph);
      current = '';
    }
  });
  parser.write(new TextDecoder().decode(bytes)).close();
  const rest = current.replace(/\s+/g, ' ').trim();
  if (rest !== '') out.push(rest);
}

/** `dc:title`, `dc:creator` (as `author`), `dc:subject`, `cp:keywords`, `dc:description`, dates. */
function coreProperties(bytes: Uint8Array): [string, string][] {
  const names: Record<string, string> = {
    'dc:title': 'title',
    'dc:creator': 'author',
    'dc:subject': 'subject',
    'cp:keywords': 'keywords',
    'dc:description': 'description',
    'dcterms:created': 'created',
    'dcterms:modified': 'modified',
    'cp:lastModifiedBy': 'last-modified-by',
  };
  const found: [string, string][] = [];
  const parser = new SaxesParser({ xmlns: false });
  let open: string | undefined;
  let value = '';
  parser.on('error', () => undefined); // properties are a bonus: a damaged core.xml loses them only
  parser.on('doctype', () => {
    throw new Error('docProps/core.xml declares a DOCTYPE (refused)');
  });
  parser.on('opentag', (tag) => {
    open = names[tag.name];
    value = '';
  });
  parser.on('text', (text) => {
    if (open !== undefined) value += text;
  });
  parser.on('closetag', () => {
    if (open !== undefined && value.trim() !== '') found.push([open, value.trim()]);
    open = undefined;
  });
  parser.write(new TextDecoder().decode(bytes)).close();
  return found;
}

/** `slide2.xml` before `slide10.xml`. */
function naturalOrder(a: string, b: string): number {
  return a.localeCompare(b, 'en', { numeric: true });
}
