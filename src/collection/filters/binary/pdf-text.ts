import { extractText, getDocumentProxy, getMeta } from 'unpdf';
import type { ExtractedDocument } from './extracted-document.js';

/** PDF Info dictionary entries kept as properties (lower-case names). */
const INFO = ['Author', 'Subject', 'Keywords', 'Creator', 'Producer', 'CreationDate', 'ModDate'];

/**
 * Text (one paragraph a page) and Info properties of a PDF, with unpdf (pdf.js built to run
 * without a browser or canvas). Throws pdf.js's error for a file it cannot read.
 */
export async function extractPdf(bytes: Uint8Array): Promise<ExtractedDocument> {
  const pdf = await getDocumentProxy(bytes, { verbosity: 0, isEvalSupported: false });
  try {
    const { text } = await extractText(pdf, { mergePages: false });
    const { info } = (await getMeta(pdf)) as { info: Record<string, unknown> };
    const properties: Record<string, string> = {};
    for (const name of INFO) {
      const value = info[name];
      if (typeof value === 'string' && value.trim() !== '') properties[name.toLowerCase()] = value.trim();
    }
    const title = typeof info['Title'] === 'string' ? info['Title'].trim() : '';
    return {
      ...(title !== '' ? { title } : {}),
      paragraphs: text.map((page) => page.replace(/\s+/g, ' ').trim()).filter((page) => page !== ''),
      properties,
    };
  } finally {
    await pdf.destroy();
  }
}
