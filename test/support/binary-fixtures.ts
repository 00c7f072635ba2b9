/**
 * Small real binary documents built in code for the extraction tests: a PDF written object by
 * object with its cross-reference table, and Office Open XML files zipped with fflate with
 * the parts Word, Excel and PowerPoint write (content types, core properties, body parts).
 */
import { strToU8, zipSync } from 'fflate';

/** A PDF of one page per entry of `pages` (Helvetica text lines), with Title, Author and CreationDate (`D:...`). */
export function pdfFixture(options: {
  title?: string;
  author?: string;
  created?: string;
  pages: string[];
}): Buffer {
  const escape = (s: string) => s.replace(/[\\()]/g, (c) => `\\${c}`);
  const objects: string[] = [];
  const pageCount = options.pages.length;
  // 1 catalog, 2 pages, 3 font, 4 info, then per page: page object, content stream.
  objects.push('<< /Type /Catalog /Pages 2 0 R >>');
  const kids = options.pages.map((_, i) => `${5 + i * 2} 0 R`).join(' ');
  objects.push(`<< /Type /Pages /Kids [${kids}] /Count ${pageCount} >>`);
  objects.push('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>');
  const info = [
    options.title === undefined ? '' : `/Title (${escape(options.title)})`,
    options.author === undefined ? '' : `/Author (${escape(options.author)})`,
    options.created === undefined ? '' : `/CreationDate (${escape(options.created)})`,
  ].join(' ');
  objects.push(`<< ${info} >>`);
  for (const [i, text] of options.pages.entries()) {
    objects.push(
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents ${6 + i * 2} 0 R /Resources << /Font << /F1 3 0 R >> >> >>`,
    );
    const stream = `BT /F1 12 Tf 72 720 Td (${escape(text)}) Tj ET`;
    objects.push(`<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`);
  }
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((object, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${object}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  out += offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('');
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R /Info 4 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

const xmlEscape = (s: string) =>
  s.replace(/[&<>]/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : '&gt;'));

function coreXml(title: string | undefined, author: string | undefined): string {
  return (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>' +
    '<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/">' +
    (title === undefined ? '' : `<dc:title>${xmlEscape(title)}</dc:title>`) +
    (author === undefined ? '' : `<dc:creator>${xmlEscape(author)}</dc:creator>`) +
    '</cp:coreProperties>'
  );
}

function zip(files: Record<string, string>): Buffer {
  return Buffer.from(zipSync(Object.fromEntries(Object.entries(files).map(([n, c]) => [n, strToU8(c)]))));
}

const TYPES =
  '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>';

/** A Word document: one `<w:p>` a paragraph (each split in two runs, as Word does). */
export function docxFixture(options: { title?: string; author?: string; paragraphs: string[] }): Buffer {
  const body = options.paragraphs
    .map((p) => {
      const half = Math.floor(p.length / 2);
      return `<w:p><w:r><w:t xml:space="preserve">${xmlEscape(p.slice(0, half))}</w:t></w:r><w:r><w:t xml:space="preserve">${xmlEscape(p.slice(half))}</w:t></w:r></w:p>`;
    })
    .join('');
  return zip({
    '[Content_Types].xml': TYPES,
    'docProps/core.xml': coreXml(options.title, options.author),
    'word/document.xml': `<?xml version="1.0"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>${body}</w:body></w:document>`,
  });
}

/** A workbook: shared strings and one sheet whose cells point at them, plus numeric cells. */
export function xlsxFixture(options: { title?: string; strings: string[]; numbers: number[] }): Buffer {
  const shared = options.strings.map((s) => `<si><t>${xmlEscape(s)}</t></si>`).join('');
  const cells = [
    ...options.strings.map((_, i) => `<c r="A${i + 1}" t="s"><v>${i}</v></c>`),
    ...options.numbers.map((n, i) => `<c r="B${i + 1}"><v>${n}</v></c>`),
  ].join('');
  return zip({
    '[Content_Types].xml': TYPES,
    'docProps/core.xml': coreXml(options.title, undefined),
    'xl/workbook.xml': '<?xml version="1.0"?><workbook/>',
    'xl/sharedStrings.xml': `<?xml version="1.0"?><sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">${shared}</sst>`,
    'xl/worksheets/sheet1.xml': `<?xml version="1.0"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData><row r="1">${cells}</row></sheetData></worksheet>`,
  });
}

/** A presentation: one slide per entry, each line an `<a:p>`. */
export function pptxFixture(options: { title?: string; slides: string[][] }): Buffer {
  const files: Record<string, string> = {
    '[Content_Types].xml': TYPES,
    'docProps/core.xml': coreXml(options.title, undefined),
    'ppt/presentation.xml': '<?xml version="1.0"?><p:presentation xmlns:p="p"/>',
  };
  options.slides.forEach((lines, i) => {
    const paragraphs = lines.map((l) => `<a:p><a:r><a:t>${xmlEscape(l)}</a:t></a:r></a:p>`).join('');
    files[`ppt/slides/slide${i + 1}.xml`] =
      `<?xml version="1.0"?><p:sld xmlns:p="p" xmlns:a="a"><p:cSld><p:spTree><p:sp><p:txBody>${paragraphs}</p:txBody></p:sp></p:spTree></p:cSld></p:sld>`;
  });
  return zip(files);
}

export const MEDIA_TYPES = {
  pdf: 'application/pdf',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
} as const;
