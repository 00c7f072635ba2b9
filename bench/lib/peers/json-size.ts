/**
 * The UTF-8 size of `JSON.stringify(value)` without building the string. The in-memory
 * libraries persist their index as JSON, and for the whole RFC corpus that string can be
 * longer than V8's longest string (about 512 MiB), so `JSON.stringify` would throw where a
 * streaming writer (the way to save such an index) would not. Follows JSON.stringify's rules:
 * `toJSON` methods, `undefined`/functions/symbols skipped in objects and written as `null`
 * in arrays, non-finite numbers as `null`, Maps and Sets as `{}`.
 */

/** Characters that JSON.stringify writes as they are (printable ASCII except `"` and `\`). */
const PLAIN = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

function stringBytes(text: string): number {
  // Most strings are plain ASCII: 2 quotes and the characters; the rest are measured exactly.
  if (PLAIN.test(text)) return text.length + 2;
  return Buffer.byteLength(JSON.stringify(text));
}

/** What JSON.stringify writes for a value in an array, or undefined when it skips it in an object. */
function size(value: unknown, key: string): number | undefined {
  let v = value;
  if (v !== null && typeof v === 'object' && typeof (v as { toJSON?: unknown }).toJSON === 'function') {
    v = (v as { toJSON: (key: string) => unknown }).toJSON(key);
  }
  switch (typeof v) {
    case 'string':
      return stringBytes(v);
    case 'number':
      return Number.isFinite(v) ? String(v).length : 4;
    case 'boolean':
      return v ? 4 : 5;
    case 'bigint':
      throw new TypeError('Do not know how to serialize a BigInt');
    case 'undefined':
    case 'function':
    case 'symbol':
      return undefined;
    case 'object':
      break;
  }
  if (v === null) return 4;
  if (Array.isArray(v)) {
    let total = 2 + Math.max(0, v.length - 1);
    for (let i = 0; i < v.length; i++) total += size(v[i], String(i)) ?? 4;
    return total;
  }
  let total = 2;
  let members = 0;
  for (const name of Object.keys(v as object)) {
    const member = size((v as Record<string, unknown>)[name], name);
    if (member === undefined) continue;
    total += stringBytes(name) + 1 + member;
    members++;
  }
  return total + Math.max(0, members - 1);
}

/** Bytes of `JSON.stringify(value)` encoded as UTF-8 (0 when JSON.stringify would return undefined). */
export function jsonByteLength(value: unknown): number {
  return size(value, '') ?? 0;
}
