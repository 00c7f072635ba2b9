import { ConfigFileError } from './config-file-error.js';
import { configLines, splitFields } from './config-lines.js';
import { classNameProblem, parseMetadataType, type MetadataType } from './metadata-class.js';

/**
 * `metamap.cfg`: which metadata goes into which metadata class (**compat**: the original's
 * format). One mapping a line, `class,type,source`:
 *
 * - `class` and `type`: see `metadata-class.ts` (class rules, reserved and special classes).
 * - `source`: a plain name is metadata of that name: pushed metadata (a header
 *   `X-Service-Push-Metadata-{name}` or a multi-part metadata field) and an HTML
 *   `<meta name="name">` (or `property=`) tag of the content. `<name>` is the text of the HTML
 *   element `name` (`t,1,<h1>`, `s,0,<h2>`), one value per element in document order, as in
 *   the original. The source is everything after the second comma.
 * - A class may have several sources, one line each; all of them feed the class. The same
 *   source may feed several classes. A class has one type: a second line giving it another
 *   type is an error. A repeated identical line is kept once.
 * - `#` comments and blank lines are skipped. Errors name the file and line.
 */

/** Where a class's values come from. */
export interface MetadataSource {
  /**
   * `metadata`: pushed metadata of that name and HTML `<meta name>` tags of the content;
   * `html-element`: the text of each HTML element of that name (lower case) in the content.
   */
  readonly kind: 'metadata' | 'html-element';
  readonly name: string;
}

/** One class and everything mapped into it. */
export interface MetadataClassMapping {
  readonly className: string;
  readonly type: MetadataType;
  readonly sources: readonly MetadataSource[];
}

/** A parsed metamap.cfg: classes in the order they first appear. */
export interface Metamap {
  readonly classes: ReadonlyMap<string, MetadataClassMapping>;
}

/** Parses metamap.cfg. Throws `ConfigFileError` (`CONFIG_INVALID`) with the line of the first bad line. */
export function parseMetamap(text: string, fileName = 'metamap.cfg'): Metamap {
  const classes = new Map<
    string,
    { className: string; type: MetadataType; sources: MetadataSource[]; line: number }
  >();
  for (const { line, text: content } of configLines(text)) {
    const [className, typeText, sourceText] = splitFields(content, 2);
    if (className === undefined || typeText === undefined || sourceText === undefined) {
      throw new ConfigFileError(
        fileName,
        line,
        `expected class,type,source, found ${JSON.stringify(content)}`,
      );
    }
    const classProblem = classNameProblem(className);
    if (classProblem !== undefined) throw new ConfigFileError(fileName, line, classProblem);
    const type = parseMetadataType(typeText, className);
    if (typeof type === 'string') throw new ConfigFileError(fileName, line, type);
    const source = parseSource(sourceText);
    if (typeof source === 'string') throw new ConfigFileError(fileName, line, source);

    const existing = classes.get(className);
    if (existing === undefined) {
      classes.set(className, { className, type, sources: [source], line });
      continue;
    }
    if (existing.type !== type) {
      throw new ConfigFileError(
        fileName,
        line,
        `the class ${className} has type ${existing.type} on line ${existing.line}; a class has one type`,
      );
    }
    if (!existing.sources.some((s) => s.kind === source.kind && s.name === source.name))
      existing.sources.push(source);
  }
  const result = new Map<string, MetadataClassMapping>();
  for (const [name, { className, type, sources }] of classes) result.set(name, { className, type, sources });
  return { classes: result };
}

/** An HTML element name as the tokenizer reads one: a letter, then letters, digits and `-`. */
const ELEMENT_NAME = /^[A-Za-z][A-Za-z0-9-]*$/;

function parseSource(text: string): MetadataSource | string {
  if (text === '') return 'the source (third field) is empty: give a metadata name or <element>';
  if (text.startsWith('<') || text.endsWith('>')) {
    const name = text.startsWith('<') && text.endsWith('>') ? text.slice(1, -1).trim() : '';
    if (!ELEMENT_NAME.test(name)) {
      const plain = name.replace(/[<>\s]/g, '');
      return (
        `the source ${JSON.stringify(text)} is not <element> (an HTML element name in angle brackets, ` +
        `e.g. <h1>)` +
        (plain === '' ? '' : `; a <meta name="${plain}"> tag is mapped by its plain name: ${plain}`)
      );
    }
    return { kind: 'html-element', name: name.toLowerCase() };
  }
  return { kind: 'metadata', name: text };
}

/** Writes a metamap back as metamap.cfg, one line per class and source. */
export function serializeMetamap(metamap: Metamap): string {
  const lines: string[] = [];
  for (const mapping of metamap.classes.values()) {
    for (const source of mapping.sources) {
      const sourceText = source.kind === 'html-element' ? `<${source.name}>` : source.name;
      lines.push(`${mapping.className},${mapping.type},${sourceText}`);
    }
  }
  return lines.length === 0 ? '' : lines.join('\n') + '\n';
}

const indexCache = new WeakMap<Metamap, Map<string, MetadataClassMapping[]>>();

const elementCache = new WeakMap<Metamap, ReadonlySet<string>>();

/** The HTML elements whose text some class maps (`<h1>` sources), lower case; the HTML filter collects only these. */
export function htmlElementsOf(metamap: Metamap): ReadonlySet<string> {
  let elements = elementCache.get(metamap);
  if (elements === undefined) {
    const names = new Set<string>();
    for (const mapping of metamap.classes.values())
      for (const source of mapping.sources) if (source.kind === 'html-element') names.add(source.name);
    elements = names;
    elementCache.set(metamap, elements);
  }
  return elements;
}

/**
 * The classes a source feeds. Names compare case-insensitively: HTML meta names are
 * case-insensitive, and the spec warns that some environments lower-case metadata names sent
 * as headers, so a mapping for `Author` must still catch `author`.
 */
export function classesForSource(
  metamap: Metamap,
  kind: MetadataSource['kind'],
  name: string,
): readonly MetadataClassMapping[] {
  let index = indexCache.get(metamap);
  if (index === undefined) {
    index = new Map();
    for (const mapping of metamap.classes.values()) {
      for (const source of mapping.sources) {
        const k = `${source.kind}\u0000${source.name.toLowerCase()}`;
        const list = index.get(k) ?? [];
        if (!list.includes(mapping)) list.push(mapping);
        index.set(k, list);
      }
    }
    indexCache.set(metamap, index);
  }
  return index.get(`${kind}\u0000${name.toLowerCase()}`) ?? [];
}
