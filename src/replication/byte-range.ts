/**
 * The one byte range of an HTTP `Range` header that replication needs (`bytes=a-`,
 * `bytes=a-b`, `bytes=-n`), resolved against the file size. Multiple ranges are not
 * served: the answer is then the whole file, as RFC 9110 allows.
 *
 * @returns `undefined` for no (or an ignored) Range header, `null` when the range lies
 *   outside the file (answer 416), else the inclusive byte offsets.
 */
export function parseByteRange(
  header: string | undefined,
  size: number,
): { start: number; end: number } | null | undefined {
  if (header === undefined) return undefined;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (match === null) return undefined;
  const [, first, last] = match as unknown as [string, string, string];
  if (first === '' && last === '') return undefined;
  let start: number;
  let end: number;
  if (first === '') {
    const suffix = Number(last);
    if (suffix === 0) return null;
    start = Math.max(0, size - suffix);
    end = size - 1;
  } else {
    start = Number(first);
    end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
  }
  if (!Number.isSafeInteger(start) || start >= size || end < start) return null;
  return { start, end };
}
