import { ConfigFileError } from './config-file-error.js';
import { configLines, splitFields } from './config-lines.js';
import { classNameProblem, parseMetadataType, type MetadataType } from './metadata-class.js';

/**
 * `xml.cfg`: which parts of an XML document go into which metadata class (**compat**: the
 * original's format).
 *
 * - The first line is `PADRE XML Mapping Version: 2` (whitespace around it and comment or
 *   blank lines before it are tolerated; another version is an error). A file with no lines
 *   at all, or only comments, is an empty configuration.
 * - Mapping lines: `class,type,,xpath` (class and type rules as in metamap.cfg, see
 *   `metadata-class.ts`; the third field must be empty). Several lines may feed one class.
 * - Special lines of the original: `docurl,xpath`: where a record's own URL is (several are
 *   tried in order); `docfiletype,xpath`: the record's file type (the result's `fileType`);
 *   `document,xpath`: where the original splits a file into records (a pushed document is
 *   one record here, so it is accepted and has no effect). Other names are refused with the
 *   list of supported ones.
 * - `+,,,xpath` (the original's content paths) and `-,,,xpath` lines are accepted: the text of
 *   every element of a record is indexed as its content here, so they change nothing.
 * - XPaths: absolute `/a/b` (from the root element), anywhere `//b`, `//` also between steps
 *   (`/a//c`), and an attribute as the last step: `/a/@id`, `//b/@id`, or `//b@id` (the
 *   original's documentation spells it so). Names are case-sensitive and compared as written,
 *   namespace prefix included (`dc:title`). Predicates (`[...]`), wildcards (`*`), functions,
 *   unions (`|`) and `.`/`..` steps are refused with the line number.
 */

/** One step of an element path. `descendant`: reached through `//`. */
export interface XmlPathStep {
  readonly axis: 'child' | 'descendant';
  readonly name: string;
}

/** A parsed element path. */
export interface XmlPath {
  /** The path as written in the file. */
  readonly source: string;
  readonly steps: readonly XmlPathStep[];
  /** The attribute selected on the last element, if any. */
  readonly attribute: string | undefined;
}

/** One class and the element paths mapped into it. */
export interface XmlClassMapping {
  readonly className: string;
  readonly type: MetadataType;
  readonly paths: readonly XmlPath[];
}

/** A parsed xml.cfg. */
export interface XmlConfig {
  readonly classes: ReadonlyMap<string, XmlClassMapping>;
  /** `docurl` lines: where a record's own URL is, tried in order. */
  readonly docUrl: readonly XmlPath[];
  /** `docfiletype` lines: where a record's file type is, tried in order. */
  readonly docFileType: readonly XmlPath[];
}

/** The first line every xml.cfg carries. */
export const XML_CONFIG_HEADER = 'PADRE XML Mapping Version: 2';

/** Special line names and what they mean. */
export const XML_SPECIAL_LINES: Readonly<Record<string, string>> = Object.freeze({
  docurl: "the record's own URL",
  docfiletype: "the record's file type",
  document: 'where the original splits a file into records (one pushed document is one record here)',
});

const NAME = /^[\p{L}_:][\p{L}\p{M}\p{N}_:.\-\u00B7]*$/u;

/** Parses xml.cfg. Throws `ConfigFileError` (`CONFIG_INVALID`) with the line of the first bad line. */
export function parseXmlConfig(text: string, fileName = 'xml.cfg'): XmlConfig {
  const lines = configLines(text);
  const classes = new Map<
    string,
    { className: string; type: MetadataType; paths: XmlPath[]; line: number }
  >();
  const docUrl: XmlPath[] = [];
  const docFileType: XmlPath[] = [];
  const [header, ...body] = lines;
  if (header === undefined) return { classes: new Map(), docUrl, docFileType };

  const version = /^PADRE\s+XML\s+Mapping\s+Version:\s*(\S+)$/i.exec(header.text);
  if (version === null) {
    throw new ConfigFileError(
      fileName,
      header.line,
      `the first line must be "${XML_CONFIG_HEADER}", found ${JSON.stringify(header.text)}`,
    );
  }
  if (version[1] !== '2') {
    throw new ConfigFileError(
      fileName,
      header.line,
      `mapping version ${version[1]} is not supported; write "${XML_CONFIG_HEADER}"`,
    );
  }

  for (const { line, text: content } of body) {
    const fields = splitFields(content, 3);
    const fail = (problem: string): never => {
      throw new ConfigFileError(fileName, line, problem);
    };
    if (fields.length === 2) {
      const [name = '', pathText = ''] = fields;
      if (!Object.prototype.hasOwnProperty.call(XML_SPECIAL_LINES, name)) {
        fail(
          `expected class,type,,xpath or a special line (${Object.keys(XML_SPECIAL_LINES)
            .map((name) => `${name},xpath`)
            .join('; ')}), ` + `found ${JSON.stringify(content)}`,
        );
      }
      const path = pathOrFail(pathText, fail);
      if (name === 'docurl') docUrl.push(path);
      else if (name === 'docfiletype') docFileType.push(path);
      continue;
    }
    const [className, typeText, empty, pathText] = fields;
    if (className === undefined || typeText === undefined || empty === undefined || pathText === undefined)
      return fail(`expected class,type,,xpath, found ${JSON.stringify(content)}`);
    if (className === '-' || className === '+') continue;
    const classProblem = classNameProblem(className);
    if (classProblem !== undefined) fail(classProblem);
    const type = parseMetadataType(typeText, className);
    if (typeof type === 'string') return fail(type);
    if (empty !== '')
      fail(`the third field must be empty (class,type,,xpath), found ${JSON.stringify(empty)}`);
    const path = pathOrFail(pathText, fail);

    const existing = classes.get(className);
    if (existing === undefined) {
      classes.set(className, { className, type, paths: [path], line });
    } else if (existing.type !== type) {
      fail(`the class ${className} has type ${existing.type} on line ${existing.line}; a class has one type`);
    } else if (!existing.paths.some((p) => p.source === path.source)) {
      existing.paths.push(path);
    }
  }
  const result = new Map<string, XmlClassMapping>();
  for (const [name, { className, type, paths }] of classes) result.set(name, { className, type, paths });
  return { classes: result, docUrl, docFileType };
}

function pathOrFail(text: string, fail: (problem: string) => never): XmlPath {
  try {
    return parseXmlPath(text);
  } catch (e) {
    return fail((e as Error).message);
  }
}

/** Parses one element path (see the file comment); throws a plain `Error` saying what is wrong. */
export function parseXmlPath(text: string): XmlPath {
  const bad = (why: string): never => {
    throw new Error(`the path ${JSON.stringify(text)} ${why}`);
  };
  if (text === '') bad('is empty');
  if (!text.startsWith('/')) bad('must start with / (from the root) or // (anywhere)');
  if (text.includes('[')) bad('has a predicate [...]; predicates are not supported');
  if (text.includes('|')) bad('is a union (|); write one line per path');
  if (text.includes('(')) bad('calls a function; only element and attribute names are supported');
  if (text.includes('*')) bad('has a wildcard (*); only names are supported');
  if (/\s/.test(text)) bad('contains whitespace');

  const steps: XmlPathStep[] = [];
  let attribute: string | undefined;
  let i = 0;
  while (i < text.length) {
    let axis: XmlPathStep['axis'] = 'child';
    if (text.startsWith('//', i)) {
      axis = 'descendant';
      i += 2;
    } else if (text[i] === '/') {
      i += 1;
    } else {
      bad(`is not understood at character ${i + 1}`);
    }
    let end = text.indexOf('/', i);
    if (end === -1) end = text.length;
    let step = text.slice(i, end);
    i = end;
    if (step === '') bad('has an empty step (a trailing "/" or "///")');
    if (step === '.' || step === '..') bad(`has a "${step}" step; only names are supported`);

    // `name@attr` (the original's spelling) or `@attr` as the last step.
    const at = step.indexOf('@');
    if (at !== -1) {
      if (i !== text.length) bad('selects an attribute before its last step');
      const attr = step.slice(at + 1);
      if (!NAME.test(attr)) bad(`has an invalid attribute name ${JSON.stringify(attr)}`);
      if (at === 0 && axis === 'descendant')
        bad('selects an attribute without an element (write //element/@attribute)');
      attribute = attr;
      step = step.slice(0, at);
      if (step === '') break;
    }
    if (!NAME.test(step)) bad(`has an invalid element name ${JSON.stringify(step)}`);
    steps.push({ axis, name: step });
  }
  if (steps.length === 0) bad('names no element');
  return { source: text, steps, attribute };
}

/**
 * Whether `path` selects the element whose ancestry is `elements` (names from the root
 * element down to the element itself), or the attribute `attribute` of that element.
 * A path with an attribute never selects an element, and the other way round.
 */
export function matchXmlPath(path: XmlPath, elements: readonly string[], attribute?: string): boolean {
  if (path.attribute !== attribute) return false;
  const m = elements.length;
  // reach[j]: the steps so far can match with the last one on elements[j - 1]; reach[0] is
  // "before the root element", where matching starts.
  let reach: boolean[] = new Array<boolean>(m + 1).fill(false);
  reach[0] = true;
  for (const step of path.steps) {
    const next: boolean[] = new Array<boolean>(m + 1).fill(false);
    let anyBefore = false;
    elements.forEach((element, i) => {
      const before = reach[i] === true;
      anyBefore ||= before;
      if (element === step.name) next[i + 1] = step.axis === 'child' ? before : anyBefore;
    });
    reach = next;
  }
  return reach[m] === true;
}

/** Writes an xml.cfg back: header, docurl lines, then one line per class and path. */
export function serializeXmlConfig(config: XmlConfig): string {
  const lines = [XML_CONFIG_HEADER];
  for (const path of config.docUrl) lines.push(`docurl,${path.source}`);
  for (const mapping of config.classes.values()) {
    for (const path of mapping.paths) lines.push(`${mapping.className},${mapping.type},,${path.source}`);
  }
  return lines.join('\n') + '\n';
}
