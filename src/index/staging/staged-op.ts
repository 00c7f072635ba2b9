import type { DocumentInput, StoredValue } from '../document.js';

/**
 * A staged change as sent to a worker. Structured cloning copies every string it meets, and
 * a document often stores the text it indexes (a page's text is both a field and a stored
 * value): `s` lists such stored values, sent as '' and restored here from the field, as
 * triples (stored name, field name, index in the field's values; -1 for a single value).
 */
export type StagedOp = { p: DocumentInput; s?: (string | number)[] } | { d: string };

/** Stored strings shorter than this are sent as they are: looking for them would cost more. */
const MIN_SHARED_LENGTH = 256;

/** The message form of a put (see {@link StagedOp}); runs on the thread that stages. */
export function stagedPut(doc: DocumentInput): StagedOp {
  const stored = doc.stored;
  if (stored === undefined) return { p: doc };
  let shared: (string | number)[] | undefined;
  let sent: Record<string, StoredValue> | undefined;
  for (const name of Object.keys(stored)) {
    const value = stored[name];
    if (typeof value !== 'string' || value.length < MIN_SHARED_LENGTH) continue;
    for (const field of Object.keys(doc.fields)) {
      const values = doc.fields[field]!;
      const index = typeof values === 'string' ? (values === value ? -1 : -2) : values.indexOf(value);
      if (index === -2 || (index === -1 && typeof values !== 'string')) continue;
      (shared ??= []).push(name, field, index);
      (sent ??= { ...stored })[name] = '';
      break;
    }
  }
  return sent === undefined ? { p: doc } : { p: { ...doc, stored: sent }, s: shared };
}

/** The document a {@link stagedPut} message stands for. */
export function receivedPut(op: { p: DocumentInput; s?: (string | number)[] }): DocumentInput {
  const shared = op.s;
  if (shared === undefined) return op.p;
  const { fields, stored } = op.p;
  for (let i = 0; i < shared.length; i += 3) {
    const values = fields[shared[i + 1] as string]!;
    const index = shared[i + 2] as number;
    stored![shared[i] as string] = index < 0 ? (values as string) : values[index]!;
  }
  return op.p;
}
