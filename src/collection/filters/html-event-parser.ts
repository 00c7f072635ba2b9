import { QuoteType, Tokenizer, type TokenizerCallbacks } from 'htmlparser2';

/** What {@link parseHtmlEvents} reports, in document order. */
export interface HtmlEventHandler {
  /** An element starts; `name` lower-case, attribute names lower-case, first of duplicates wins. */
  onopentag(name: string, attribs: Readonly<Record<string, string>>): void;
  /** Text, entities decoded (also the raw text of `<script>`/`<style>`, and `<title>`). */
  ontext(text: string): void;
  /** An element ends (explicitly, implied by another tag, or at the end of the document). */
  onclosetag(name: string): void;
}

/**
 * Streams HTML as element and text events: htmlparser2's Tokenizer with the tree rules of
 * htmlparser2's own Parser (void elements, tags that imply the end of others, `</p>` and
 * `</br>` without a start, self-closing tags inside SVG/MathML, everything closed at the end).
 *
 * Why not htmlparser2's Parser: it keeps the open elements in an array it `unshift`s and
 * searches with `indexOf`, so deeply nested or stray-end-tag documents cost time quadratic
 * in the nesting depth (minutes for a few MB of `<div>`s). Here the stack grows at its end
 * and an end tag without an open element of its name is dropped without a search, so the
 * cost is linear in the document.
 */
export function parseHtmlEvents(source: string, handler: HtmlEventHandler): void {
  new HtmlTreeEvents(source, handler).run();
}

const FORM_TAGS = new Set(['input', 'option', 'optgroup', 'select', 'button', 'datalist', 'textarea']);
const P_TAG = new Set(['p']);
const TABLE_SECTION_TAGS = new Set(['thead', 'tbody']);
const DDT_TAGS = new Set(['dd', 'dt']);
const RTP_TAGS = new Set(['rt', 'rp']);
/** From htmlparser2's Parser: an element of the key closes open elements of the set on top of the stack. */
const OPEN_IMPLIES_CLOSE = new Map<string, Set<string>>([
  ['tr', new Set(['tr', 'th', 'td'])],
  ['th', new Set(['th'])],
  ['td', new Set(['thead', 'th', 'td'])],
  ['body', new Set(['head', 'link', 'script'])],
  ['li', new Set(['li'])],
  ['option', new Set(['option'])],
  ['optgroup', new Set(['optgroup', 'option'])],
  ['dd', DDT_TAGS],
  ['dt', DDT_TAGS],
  ['rt', RTP_TAGS],
  ['rp', RTP_TAGS],
  ['tbody', TABLE_SECTION_TAGS],
  ['tfoot', TABLE_SECTION_TAGS],
  ...['select', 'input', 'output', 'button', 'datalist', 'textarea'].map((t): [string, Set<string>] => [
    t,
    FORM_TAGS,
  ]),
  ...[
    'p',
    'h1',
    'h2',
    'h3',
    'h4',
    'h5',
    'h6',
    'address',
    'article',
    'aside',
    'blockquote',
    'details',
    'div',
    'dl',
    'fieldset',
    'figcaption',
    'figure',
    'footer',
    'form',
    'header',
    'hr',
    'main',
    'nav',
    'ol',
    'pre',
    'section',
    'table',
    'ul',
  ].map((t): [string, Set<string>] => [t, P_TAG]),
]);
const VOID_ELEMENTS = new Set([
  'area',
  'base',
  'basefont',
  'br',
  'col',
  'command',
  'embed',
  'frame',
  'hr',
  'img',
  'input',
  'isindex',
  'keygen',
  'link',
  'meta',
  'param',
  'source',
  'track',
  'wbr',
]);
const FOREIGN_CONTEXT = new Set(['math', 'svg']);
const HTML_INTEGRATION = new Set([
  'mi',
  'mo',
  'mn',
  'ms',
  'mtext',
  'annotation-xml',
  'foreignobject',
  'desc',
  'title',
]);

const NO_ATTRIBUTES: Readonly<Record<string, string>> = Object.freeze(
  Object.create(null) as Record<string, string>,
);
/** Real pages use a few hundred tag names; a page inventing more gets no caching past this. */
const MAX_INTERNED_NAMES = 10_000;

class HtmlTreeEvents implements TokenizerCallbacks {
  private readonly tokenizer: Tokenizer;
  /** Open elements, innermost last. */
  private readonly stack: string[] = [];
  /** How many elements of each name are open: an end tag of a name with none is dropped at once. */
  private readonly openCount = new Map<string, number>();
  /** Whether `/>` closes an element here (true inside SVG/MathML), innermost last. */
  private readonly foreign: boolean[] = [false];
  private tagName = '';
  /** A start tag is being read (its attributes go to `attribs`, created at the first one). */
  private inOpenTag = false;
  private attribs: Record<string, string> | null = null;
  /**
   * One string per distinct tag name: the open-element stack then holds shared strings, not
   * one copy per element (millions for a deeply nested page).
   */
  private readonly names = new Map<string, string>();
  private attribName = '';
  private attribValue = '';

  constructor(
    private readonly source: string,
    private readonly handler: HtmlEventHandler,
  ) {
    this.tokenizer = new Tokenizer({ xmlMode: false, decodeEntities: true }, this);
  }

  run(): void {
    this.tokenizer.write(this.source);
    this.tokenizer.end();
  }

  ontext(start: number, endIndex: number): void {
    this.handler.ontext(this.source.slice(start, endIndex));
  }

  ontextentity(codepoint: number): void {
    this.handler.ontext(fromCodePoint(codepoint));
  }

  onopentagname(start: number, endIndex: number): void {
    this.openTag(this.tagNameAt(start, endIndex));
  }

  onopentagend(): void {
    this.endOpenTag();
  }

  onselfclosingtag(): void {
    if (this.foreign[this.foreign.length - 1]) this.closeCurrentTag();
    else this.endOpenTag();
  }

  onclosetag(start: number, endIndex: number): void {
    const name = this.tagNameAt(start, endIndex);
    if ((FOREIGN_CONTEXT.has(name) || HTML_INTEGRATION.has(name)) && this.foreign.length > 1)
      this.foreign.pop();
    if (VOID_ELEMENTS.has(name)) {
      if (name === 'br') {
        // `</br>` is a line break in browsers.
        this.handler.onopentag('br', {});
        this.handler.onclosetag('br');
      }
      return;
    }
    if ((this.openCount.get(name) ?? 0) > 0) {
      // Amortised constant: every element is popped once.
      for (;;) {
        const popped = this.pop();
        this.handler.onclosetag(popped);
        if (popped === name) break;
      }
    } else if (name === 'p') {
      // `</p>` without `<p>` is an empty paragraph in browsers.
      this.openTag('p');
      this.closeCurrentTag();
    }
  }

  onattribname(start: number, endIndex: number): void {
    this.attribName = this.source.slice(start, endIndex).toLowerCase();
  }

  onattribdata(start: number, endIndex: number): void {
    this.attribValue += this.source.slice(start, endIndex);
  }

  onattribentity(codepoint: number): void {
    this.attribValue += fromCodePoint(codepoint);
  }

  onattribend(_quote: QuoteType): void {
    if (this.inOpenTag) {
      // No prototype: attribute names come from the document (`__proto__`, `constructor`).
      this.attribs ??= Object.create(null) as Record<string, string>;
      if (!Object.hasOwn(this.attribs, this.attribName)) this.attribs[this.attribName] = this.attribValue;
    }
    this.attribValue = '';
  }

  oncdata(): void {
    // In HTML, `<![CDATA[...]]>` is a comment.
  }

  oncomment(): void {}

  ondeclaration(): void {}

  onprocessinginstruction(): void {}

  onend(): void {
    while (this.stack.length > 0) this.handler.onclosetag(this.pop());
  }

  private openTag(name: string): void {
    const impliesClose = OPEN_IMPLIES_CLOSE.get(name);
    if (impliesClose !== undefined) {
      for (let top = this.stack.at(-1); top !== undefined && impliesClose.has(top); top = this.stack.at(-1)) {
        this.handler.onclosetag(this.pop());
      }
    }
    if (!VOID_ELEMENTS.has(name)) {
      this.push(name);
      if (FOREIGN_CONTEXT.has(name)) this.foreign.push(true);
      else if (HTML_INTEGRATION.has(name)) this.foreign.push(false);
    }
    this.tagName = name;
    this.inOpenTag = true;
    this.attribs = null;
  }

  private endOpenTag(): void {
    if (this.inOpenTag) {
      this.handler.onopentag(this.tagName, this.attribs ?? NO_ATTRIBUTES);
      this.inOpenTag = false;
      this.attribs = null;
    }
    if (VOID_ELEMENTS.has(this.tagName)) this.handler.onclosetag(this.tagName);
    this.tagName = '';
  }

  private closeCurrentTag(): void {
    const name = this.tagName;
    this.endOpenTag();
    if (this.stack.length > 0 && this.stack[this.stack.length - 1] === name) {
      this.handler.onclosetag(name);
      this.pop();
    }
  }

  private tagNameAt(start: number, endIndex: number): string {
    const raw = this.source.slice(start, endIndex);
    const known = this.names.get(raw);
    if (known !== undefined) return known;
    const name = raw.toLowerCase();
    if (this.names.size < MAX_INTERNED_NAMES) this.names.set(raw, name);
    return name;
  }

  private push(name: string): void {
    this.stack.push(name);
    this.openCount.set(name, (this.openCount.get(name) ?? 0) + 1);
  }

  private pop(): string {
    const name = this.stack.pop() as string;
    this.openCount.set(name, (this.openCount.get(name) ?? 1) - 1);
    return name;
  }
}

function fromCodePoint(codepoint: number): string {
  return codepoint >= 0 && codepoint <= 0x10ffff ? String.fromCodePoint(codepoint) : '\uFFFD';
}
