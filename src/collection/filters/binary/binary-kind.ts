import { parseContentType } from '../content-type.js';

/** The binary document formats the `TikaFilterProvider` step (and `Auto`) extracts text from. */
export type BinaryKind = 'pdf' | 'docx' | 'xlsx' | 'pptx';

const OOXML_TYPES: ReadonlyMap<string, BinaryKind> = new Map([
  ['application/vnd.openxmlformats-officedocument.wordprocessingml.document', 'docx'],
  ['application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', 'xlsx'],
  ['application/vnd.openxmlformats-officedocument.presentationml.presentation', 'pptx'],
]);

/** Media types that say nothing about the format: the key's extension and the bytes decide. */
const GENERIC_TYPES = new Set(['', 'application/octet-stream', 'application/zip', 'binary/octet-stream']);

/**
 * Which extractable format a pushed document is, from its Content-Type, its key's file
 * extension and its first bytes; undefined when it is none of them (text, images, old binary
 * Office formats...). A document that claims PDF or an Office Open XML type is that kind even
 * when its bytes disagree: extraction then fails with a clear error instead of indexing
 * binary noise.
 */
export function binaryKindOf(contentType: string, key: string, content: Uint8Array): BinaryKind | undefined {
  const mediaType = parseContentType(contentType).mediaType;
  if (mediaType === 'application/pdf' || mediaType === 'application/x-pdf') return 'pdf';
  const declared = OOXML_TYPES.get(mediaType);
  if (declared !== undefined) return declared;
  if (!GENERIC_TYPES.has(mediaType)) return undefined;
  if (startsWith(content, '%PDF-')) return 'pdf';
  if (!startsWith(content, 'PK\u0003\u0004')) return undefined;
  const extension = /\.(docx|xlsx|pptx)$/i.exec(pathOf(key))?.[1]?.toLowerCase();
  return extension as BinaryKind | undefined;
}

function startsWith(content: Uint8Array, magic: string): boolean {
  if (content.length < magic.length) return false;
  for (let i = 0; i < magic.length; i++) if (content[i] !== magic.charCodeAt(i)) return false;
  return true;
}

function pathOf(key: string): string {
  try {
    return new URL(key).pathname;
  } catch {
    return key;
  }
}
