/**
 * The floor under a search through HTTP on this machine (`bench/http-search.ts`): a bare
 * `node:http` server whose every answer comes from a worker thread, as ours come from a
 * search thread, with nothing else (no framework, no auth, no engine). `GET /?bytes=N`
 * answers N bytes of JSON that the worker encodes and transfers, as a search thread hands
 * over a packet's bytes; `&work=MS` keeps the worker busy that many milliseconds first, as
 * the engine keeps a search thread busy (a busy loop: the core stays awake as it does under
 * the engine, while the client and the event loop sleep as they do). Run as a child
 * process: it prints its port on stdout.
 */
import http from 'node:http';
import { isMainThread, parentPort, Worker } from 'node:worker_threads';

if (isMainThread) {
  const worker = new Worker(new URL(import.meta.url));
  const waiting = new Map<number, (bytes: Uint8Array) => void>();
  let nextId = 1;
  worker.on('message', ([id, bytes]: [number, Uint8Array]) => {
    const answer = waiting.get(id)!;
    waiting.delete(id);
    answer(bytes);
  });
  const server = http.createServer((req, res) => {
    const search = new URL(req.url ?? '/', 'http://floor').searchParams;
    const bytes = Number(search.get('bytes') ?? '0');
    const workMs = Number(search.get('work') ?? '0');
    const id = nextId++;
    waiting.set(id, (body) => {
      res.writeHead(200, {
        'content-type': 'application/json; charset=utf-8',
        'content-length': body.length,
      });
      res.end(body);
    });
    worker.postMessage([id, bytes, workMs]);
  });
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    process.stdout.write(`${typeof address === 'object' && address !== null ? address.port : 0}\n`);
  });
  process.on('SIGTERM', () => process.exit(0));
} else {
  const encoder = new TextEncoder();
  /** A JSON text of `length` characters (ASCII, so as many bytes), made once per length. */
  const texts = new Map<number, string>();
  const jsonOf = (length: number): string => {
    let text = texts.get(length);
    if (text === undefined) {
      const filler = Math.max(0, length - '{"a":""}'.length);
      text = `{"a":"${'x'.repeat(filler)}"}`;
      texts.set(length, text);
    }
    return text;
  };
  parentPort!.on('message', ([id, bytes, workMs]: [number, number, number]) => {
    const started = performance.now();
    while (performance.now() - started < workMs); // the work, as the engine would do it
    // Encoded anew per request, as a packet is: the bytes are transferred, so not reusable.
    const body = encoder.encode(jsonOf(bytes));
    parentPort!.postMessage([id, body], [body.buffer as ArrayBuffer]);
  });
}
