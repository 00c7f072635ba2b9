/** One outgoing link: the canonical key it points at (before redirects) and its text. */
export interface GraphLink {
  target: string;
  text: string;
}

/** Text of one link aimed (directly or through redirects) at a target. */
export interface InboundAnchor {
  source: string;
  text: string;
}

/** The serialised graph (the body of `links.json`, with the store's own fields). */
export interface LinkGraphData {
  /** source → [target, text] pairs. */
  links: [string, [string, string][]][];
  /** key → redirect target. */
  redirects: [string, string][];
}

/** Redirect chains longer than this are cut (and cycles stop where they close). */
export const MAX_REDIRECT_HOPS = 10;

/**
 * The links between the documents of a collection and its redirects: the source of anchor
 * text. Kept with an inbound index (target → source → texts) so that the anchor text of
 * one target is found without scanning, and every change reports the targets whose anchor
 * text it changed (redirects resolved), which are the documents to index again.
 *
 * Links may point at keys that are not (yet) documents: when such a document is pushed
 * later, its anchor text is already known.
 */
export class LinkGraph {
  private readonly outlinks = new Map<string, GraphLink[]>();
  /** Raw target (before redirects) → source → texts. */
  private readonly inbound = new Map<string, Map<string, string[]>>();
  private readonly redirects = new Map<string, string>();
  /** Target → keys that redirect to it (one hop). */
  private readonly redirectedFrom = new Map<string, Set<string>>();

  get sourceCount(): number {
    return this.outlinks.size;
  }

  get linkCount(): number {
    let n = 0;
    for (const links of this.outlinks.values()) n += links.length;
    return n;
  }

  get redirectCount(): number {
    return this.redirects.size;
  }

  /** Where a key ends up after following redirects (itself when it is no redirect). */
  resolve(key: string): string {
    let current = key;
    const seen = new Set<string>([key]);
    for (let hop = 0; hop < MAX_REDIRECT_HOPS; hop++) {
      const next = this.redirects.get(current);
      if (next === undefined || seen.has(next)) return current;
      seen.add(next);
      current = next;
    }
    return current;
  }

  /**
   * Replaces the outgoing links of `source` (none: the source is gone or has no links).
   * Returns the resolved targets whose anchor text changed.
   */
  setLinks(source: string, links: readonly GraphLink[]): Set<string> {
    const before = textsByTarget(this.outlinks.get(source) ?? []);
    const after = textsByTarget(links);
    const affected = new Set<string>();
    for (const [target, texts] of before) {
      const now = after.get(target);
      if (now === undefined || !sameTexts(texts, now)) affected.add(this.resolve(target));
      const bySource = this.inbound.get(target);
      bySource?.delete(source);
      if (bySource?.size === 0) this.inbound.delete(target);
    }
    for (const [target, texts] of after) {
      const old = before.get(target);
      if (old === undefined || !sameTexts(old, texts)) affected.add(this.resolve(target));
      let bySource = this.inbound.get(target);
      if (bySource === undefined) this.inbound.set(target, (bySource = new Map<string, string[]>()));
      bySource.set(source, texts);
    }
    if (after.size === 0) this.outlinks.delete(source);
    else
      this.outlinks.set(
        source,
        [...after].flatMap(([target, texts]) => texts.map((text) => ({ target, text }))),
      );
    return affected;
  }

  /** Sets (or, with undefined, removes) the redirect at `key`. Returns the resolved targets whose anchor text changed. */
  setRedirect(key: string, target: string | undefined): Set<string> {
    const old = this.redirects.get(key);
    if (old === target) return new Set();
    const affected = new Set<string>([this.resolve(key)]);
    if (old !== undefined) {
      const from = this.redirectedFrom.get(old);
      from?.delete(key);
      if (from?.size === 0) this.redirectedFrom.delete(old);
      this.redirects.delete(key);
    }
    if (target !== undefined) {
      this.redirects.set(key, target);
      let from = this.redirectedFrom.get(target);
      if (from === undefined) this.redirectedFrom.set(target, (from = new Set()));
      from.add(key);
    }
    affected.add(this.resolve(key));
    // Nothing aims at a key nobody links to: no document's anchor text changed.
    if (!this.hasInbound(key)) return new Set();
    return affected;
  }

  /**
   * Every link text aimed at `target`: links to it and to keys that redirect to it (chains
   * followed), links from the target itself excluded (a page is no evidence about itself).
   * None when `target` is itself a redirect.
   */
  anchorsFor(target: string): InboundAnchor[] {
    const out: InboundAnchor[] = [];
    // A redirect is no result: what aims at it counts where it leads.
    if (this.resolve(target) !== target) return out;
    for (const raw of this.aliasesOf(target)) {
      const bySource = this.inbound.get(raw);
      if (bySource === undefined) continue;
      for (const [source, texts] of bySource) {
        if (source === target) continue;
        for (const text of texts) out.push({ source, text });
      }
    }
    return out;
  }

  /** `target` and every key whose redirects lead to it. */
  private aliasesOf(target: string): string[] {
    const out = [target];
    const seen = new Set(out);
    for (let i = 0; i < out.length; i++) {
      for (const key of this.redirectedFrom.get(out[i]!) ?? []) {
        if (seen.has(key) || this.resolve(key) !== target) continue;
        seen.add(key);
        out.push(key);
      }
    }
    return out;
  }

  /** Whether any link aims at `key` or at a key redirecting to it. */
  private hasInbound(key: string): boolean {
    const seen = new Set<string>();
    const stack = [key];
    while (stack.length > 0) {
      const next = stack.pop()!;
      if (seen.has(next)) continue;
      seen.add(next);
      if (this.inbound.has(next)) return true;
      for (const from of this.redirectedFrom.get(next) ?? []) stack.push(from);
    }
    return false;
  }

  toData(): LinkGraphData {
    return {
      links: [...this.outlinks].map(([source, links]) => [
        source,
        links.map((l): [string, string] => [l.target, l.text]),
      ]),
      redirects: [...this.redirects],
    };
  }

  /** Rebuilds a graph from {@link toData}'s output. Throws TypeError on a malformed value. */
  static fromData(data: LinkGraphData): LinkGraph {
    const graph = new LinkGraph();
    if (!Array.isArray(data.links) || !Array.isArray(data.redirects))
      throw new TypeError('links and redirects must be arrays');
    for (const [key, target] of data.redirects) {
      if (typeof key !== 'string' || typeof target !== 'string')
        throw new TypeError('a redirect must be two strings');
      graph.setRedirect(key, target);
    }
    for (const [source, links] of data.links) {
      if (typeof source !== 'string' || !Array.isArray(links))
        throw new TypeError('a link entry must be a source and a list');
      graph.setLinks(
        source,
        links.map(([target, text]) => {
          if (typeof target !== 'string' || typeof text !== 'string')
            throw new TypeError('a link must be two strings');
          return { target, text };
        }),
      );
    }
    return graph;
  }
}

/** Distinct texts by target, texts sorted (so that comparisons ignore link order). */
function textsByTarget(links: readonly GraphLink[]): Map<string, string[]> {
  const map = new Map<string, Set<string>>();
  for (const { target, text } of links) {
    let texts = map.get(target);
    if (texts === undefined) map.set(target, (texts = new Set()));
    texts.add(text);
  }
  return new Map([...map].map(([target, texts]) => [target, [...texts].sort()]));
}

function sameTexts(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((text, i) => text === b[i]);
}
