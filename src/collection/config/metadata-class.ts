/**
 * Metadata classes and types, the rules metamap.cfg and xml.cfg share (**compat**).
 *
 * A class name is 1 to 64 ASCII letters or digits, case-sensitive (`a` and `A` are two
 * classes), not starting with `FUN` in any case (the original reserves `FUN`, `fun`, `Fun`…).
 * Classes the engine fills itself cannot be mapped: `k` anchor text, `K` clicks, `h` outgoing
 * links, `u` host, `v` path. Special classes may be mapped and are treated specially: `t`
 * title, `d` date, `f` format; they hold text, so they take type 0 or 1 only.
 *
 * Types: `0` text searchable only as metadata, `1` text also indexed as document content,
 * `2` geospatial (`lat;long`), `3` numeric. The original's type `4` (security lock strings)
 * is refused with a message saying so. No letter forms are accepted: we know of no documented
 * letter spelling of these types in the original's files.
 */

/** 0 text (metadata only), 1 text also indexed as content, 2 geospatial, 3 numeric. */
export type MetadataType = 0 | 1 | 2 | 3;

/** Classes the engine fills itself; mapping into them is refused. */
export const RESERVED_CLASSES: Readonly<Record<string, string>> = Object.freeze({
  k: 'anchor text',
  K: 'click data',
  h: 'outgoing links',
  u: 'the URL host',
  v: 'the URL path',
});

/** Classes with a special meaning that may be mapped. */
export const SPECIAL_CLASSES: Readonly<Record<string, string>> = Object.freeze({
  t: 'the title',
  d: 'the document date',
  f: 'the file format',
});

/** Returns what is wrong with a class name, or undefined when it may be mapped. */
export function classNameProblem(name: string): string | undefined {
  if (name === '') return 'the class name is empty';
  if (!/^[A-Za-z0-9]+$/.test(name)) {
    return `the class name ${JSON.stringify(name)} may only contain ASCII letters and digits`;
  }
  if (name.length > 64)
    return `the class name ${name} is ${name.length} characters long; at most 64 are allowed`;
  if (name.slice(0, 3).toUpperCase() === 'FUN') return `class names starting with FUN are reserved (${name})`;
  if (Object.prototype.hasOwnProperty.call(RESERVED_CLASSES, name)) {
    return `the class ${name} is reserved for ${RESERVED_CLASSES[name]} and cannot be mapped`;
  }
  return undefined;
}

/** Reads a type field; returns the type, or a string saying what is wrong. */
export function parseMetadataType(text: string, className: string): MetadataType | string {
  if (text === '4') return 'type 4 (document security lock strings) is not supported';
  if (!/^[0-3]$/.test(text)) return `the type ${JSON.stringify(text)} is not 0, 1, 2 or 3`;
  const type = Number(text) as MetadataType;
  if (type > 1 && Object.prototype.hasOwnProperty.call(SPECIAL_CLASSES, className)) {
    return `the class ${className} holds ${SPECIAL_CLASSES[className]} as text: use type 0 or 1, not ${type}`;
  }
  return type;
}
