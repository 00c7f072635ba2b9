import { SearchError } from '../../errors.js';

/**
 * The xpath subset of xml.cfg, compiled for matching while an XML document streams past:
 * `/a/b` (absolute), `//b` (anywhere), `/a//b`, `*` for any element, and a last step
 * `@attr` (an attribute of the matched element; also written `/a@attr`) or `text()` (the
 * element's text, the same as naming the element). A superset of what the xml.cfg parser
 * (`config/xml-config.ts`) accepts, with the same matching rules. Names are case-sensitive and compared as written, prefix
 * included (`dc:title`). Predicates (`[...]`) and other axes are not supported.
 */
export interface XPathPattern {
  /** The xpath as written in xml.cfg: the metadata key of its values. */
  readonly source: string;
  /** The first group is anchored at the root element. */
  readonly absolute: boolean;
  /** Child-step sequences separated by `//`; the last one ends at the matched element. */
  readonly groups: readonly (readonly string[])[];
  /** Attribute name when the pattern selects an attribute. */
  readonly attribute: string | undefined;
}

const NAME = /^(?:\*|[^\s/@[\]()=,"'*]+)$/u;

/** Compiles one xml.cfg xpath; an unsupported one is a FILTER_FAILED error naming it. */
export function compileXPath(xpath: string): XPathPattern {
  const fail = (why: string): SearchError =>
    new SearchError('FILTER_FAILED', `Xml filter: xml.cfg xpath "${xpath}" is not supported: ${why}`, {
      details: { filter: 'Xml', xpath },
    });
  let rest = xpath.trim();
  if (!rest.startsWith('/')) throw fail('it must start with / (absolute) or // (anywhere)');
  if (/[[\]]/.test(rest)) throw fail('predicates ([...]) are not supported');
  if (rest.endsWith('/text()')) rest = rest.slice(0, -'/text()'.length);

  let attribute: string | undefined;
  const at = rest.lastIndexOf('@');
  if (at >= 0) {
    attribute = rest.slice(at + 1);
    if (attribute.includes('/')) throw fail('an attribute can only be the last step');
    if (!NAME.test(attribute) || attribute === '*') throw fail(`"@${attribute}" is not an attribute name`);
    // `/a/@id`, and `/a@id` as the original's documentation spells it.
    rest = rest.slice(0, rest[at - 1] === '/' ? at - 1 : at);
    // `//@id`: the attribute on any element.
    if (rest === '/') return { source: xpath, absolute: false, groups: [], attribute };
  }

  const absolute = !rest.startsWith('//');
  const body = absolute ? rest.slice(1) : rest.slice(2);
  const groups = body.split('//').map((g) => g.split('/'));
  for (const group of groups) {
    for (const step of group) {
      if (step === '') throw fail('an empty step (/// or a trailing /)');
      if (!NAME.test(step)) throw fail(`"${step}" is not an element name`);
    }
  }
  return { source: xpath, absolute, groups, attribute };
}

/**
 * Does the open-element path `stack` (root first, current element last) match? Right to
 * left, taking the nearest occurrence of each `//` group, which is enough for a sequence of
 * groups (any match can be moved to the nearest one); linear in the stack depth.
 */
export function matchesPath(pattern: XPathPattern, stack: readonly string[]): boolean {
  const { groups, absolute } = pattern;
  if (groups.length === 0) return stack.length > 0;
  let end = stack.length;
  for (const [g, group] of [...groups.entries()].reverse()) {
    const isLast = g === groups.length - 1;
    const isAnchored = g === 0 && absolute;
    if (isAnchored) {
      if (isLast ? end !== group.length : group.length > end) return false;
      return groupAt(group, stack, 0);
    }
    if (isLast) {
      const start = end - group.length;
      if (start < 0 || !groupAt(group, stack, start)) return false;
      end = start;
      continue;
    }
    let start = end - group.length;
    while (start >= 0 && !groupAt(group, stack, start)) start--;
    if (start < 0) return false;
    end = start;
  }
  return true;
}

function groupAt(group: readonly string[], stack: readonly string[], start: number): boolean {
  for (let i = 0; i < group.length; i++) {
    const step = group[i];
    if (step !== '*' && step !== stack[start + i]) return false;
  }
  return true;
}
