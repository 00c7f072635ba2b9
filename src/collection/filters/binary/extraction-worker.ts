/**
 * Worker thread entry of binary document extraction (see `binary-extractor.ts`): one request
 * at a time, `{id, kind, bytes}` in, `{id, html}` or `{id, error}` out. pdf.js and inflate
 * can take seconds on a large file: here they never hold up the event loop that answers HTTP.
 */
import { parentPort } from 'node:worker_threads';
import type { BinaryKind } from './binary-kind.js';
import { extractedToHtml } from './extracted-document.js';
import { extractOoxml } from './ooxml-text.js';
import { extractPdf } from './pdf-text.js';

export interface ExtractionRequest {
  id: number;
  kind: BinaryKind;
  bytes: Uint8Array;
}
export type ExtractionReply = { id: number; html: string } | { id: number; error: string };

parentPort?.on('message', (request: ExtractionRequest) => {
  void (async () => {
    let reply: ExtractionReply;
    try {
      const document =
        request.kind === 'pdf' ? await extractPdf(request.bytes) : extractOoxml(request.kind, request.bytes);
      reply = { id: request.id, html: extractedToHtml(document) };
    } catch (e) {
      reply = { id: request.id, error: (e as Error)?.message ?? String(e) };
    }
    parentPort!.postMessage(reply);
  })();
});
