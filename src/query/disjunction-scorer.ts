import { NO_MORE_DOCS } from '../index/generation-view.js';
import { Scorer } from './scorer.js';

/** Up to this many clauses {@link DisjunctionScorer.boundHere} scans them all instead of walking the heap. */
const LINEAR_BOUND_MAX_CLAUSES = 16;

/**
 * Documents matching at least `minShouldMatch` of the clauses; the score is the sum, over the
 * matching clauses, of the clause's score plus `coordBoost`. The clauses sit in a binary heap
 * ordered by their current docId (Lucene's DisiPriorityQueue).
 *
 * This is the plain document-at-a-time union: nested disjunctions, the exhaustive path and
 * `minShouldMatch > 1` use it. A top-level disjunction is run by `MaxScoreBulkScorer` instead,
 * which skips what cannot compete.
 */
export class DisjunctionScorer extends Scorer {
  private readonly subs: Scorer[];
  private readonly n: number;
  /** Heap of clause indices, smallest current docId at the root. */
  private readonly heap: Int32Array;
  private readonly subDocs: Int32Array;
  /** Clauses positioned on the current document (valid when topDoc === doc). */
  private readonly top: Int32Array;
  private readonly stack: Int32Array;
  private topSize = 0;
  private topDoc = -2;
  private readonly coord: number;
  private readonly msm: number;
  private readonly costValue: number;
  private readonly maxScoreValue: number;
  private doc = -1;

  constructor(clauses: readonly Scorer[], coordBoost = 0, minShouldMatch = 1) {
    super();
    this.subs = [...clauses];
    const n = clauses.length;
    this.n = n;
    this.heap = new Int32Array(clauses.length);
    for (let i = 0; i < clauses.length; i++) this.heap[i] = i;
    this.subDocs = new Int32Array(n).fill(-1);
    this.top = new Int32Array(n);
    this.stack = new Int32Array(n);
    this.coord = coordBoost;
    this.msm = Math.max(1, minShouldMatch);
    let cost = 0;
    let max = 0;
    for (const c of clauses) {
      cost += c.cost();
      max += c.maxScore() + coordBoost;
    }
    this.costValue = cost;
    this.maxScoreValue = max;
  }

  docId(): number {
    return this.doc;
  }

  nextDoc(): number {
    const cur = this.doc;
    if (cur === NO_MORE_DOCS) return cur;
    const heap = this.heap;
    const subDocs = this.subDocs;
    while (subDocs[heap[0]] === cur) {
      const s = heap[0];
      subDocs[s] = this.subs[s].nextDoc();
      this.siftDown();
    }
    return this.settle();
  }

  advance(target: number): number {
    const heap = this.heap;
    const subDocs = this.subDocs;
    while (subDocs[heap[0]] < target) {
      const s = heap[0];
      subDocs[s] = this.subs[s].advance(target);
      this.siftDown();
    }
    return this.settle();
  }

  /** Lands on the heap's smallest docId that has enough matching clauses. */
  private settle(): number {
    const heap = this.heap;
    const subDocs = this.subDocs;
    for (;;) {
      const d = subDocs[heap[0]];
      if (d === NO_MORE_DOCS || this.msm <= 1) return (this.doc = d);
      this.collectTop(d);
      if (this.topSize >= this.msm) return (this.doc = d);
      while (subDocs[heap[0]] === d) {
        const s = heap[0];
        subDocs[s] = this.subs[s].nextDoc();
        this.siftDown();
      }
    }
  }

  /** Clauses on docId `d`: a pre-order walk of the heap that stops at larger docIds. */
  private collectTop(d: number): void {
    const heap = this.heap;
    const subDocs = this.subDocs;
    const n = this.n;
    let size = 0;
    let sp = 0;
    if (subDocs[heap[0]] === d) this.stack[sp++] = 0;
    while (sp > 0) {
      const i = this.stack[--sp];
      this.top[size++] = heap[i];
      const l = 2 * i + 1;
      if (l < n && subDocs[heap[l]] === d) this.stack[sp++] = l;
      if (l + 1 < n && subDocs[heap[l + 1]] === d) this.stack[sp++] = l + 1;
    }
    // Clause order, so that scores add up in the same order as the bounds (see cannotCompete).
    const top = this.top;
    for (let i = 1; i < size; i++) {
      const v = top[i];
      let j = i - 1;
      while (j >= 0 && top[j] > v) {
        top[j + 1] = top[j];
        j--;
      }
      top[j + 1] = v;
    }
    this.topSize = size;
    this.topDoc = d;
  }

  private siftDown(): void {
    const heap = this.heap;
    const subDocs = this.subDocs;
    const n = this.n;
    const node = heap[0];
    const key = subDocs[node];
    let i = 0;
    for (;;) {
      let c = 2 * i + 1;
      if (c >= n) break;
      if (c + 1 < n && subDocs[heap[c + 1]] < subDocs[heap[c]]) c++;
      if (subDocs[heap[c]] >= key) break;
      heap[i] = heap[c];
      i = c;
    }
    heap[i] = node;
  }

  /** Number of clauses matching the current document. */
  matchCount(): number {
    if (this.topDoc !== this.doc) this.collectTop(this.doc);
    return this.topSize;
  }

  score(): number {
    return this.scoreThroughScoreTo();
  }

  /** The matching clauses' scores plus coordBoost each, in clause order (see Scorer.scoreTo). */
  override scoreTo(out: Float64Array, at: number): void {
    if (this.topDoc !== this.doc) this.collectTop(this.doc);
    let s = 0;
    for (let k = 0; k < this.topSize; k++) {
      this.subs[this.top[k]].scoreTo(out, at);
      s += out[at]! + this.coord;
    }
    out[at] = s;
  }

  /** The matching clauses' bounds, summed in clause order as {@link score} sums their scores. */
  override boundHere(): number {
    const doc = this.doc;
    let s = 0;
    if (this.n <= LINEAR_BOUND_MAX_CLAUSES) {
      // Few clauses (a query's words): one pass in clause order costs less than the heap
      // walk and sort of collectTop, and most documents counted this way are never scored.
      const subDocs = this.subDocs;
      for (let i = 0; i < this.n; i++) if (subDocs[i] === doc) s += this.subs[i].boundHere() + this.coord;
      return s;
    }
    if (this.topDoc !== doc) this.collectTop(doc);
    for (let k = 0; k < this.topSize; k++) s += this.subs[this.top[k]].boundHere() + this.coord;
    return s;
  }

  cost(): number {
    return this.costValue;
  }

  maxScore(): number {
    return this.maxScoreValue;
  }

  override advanceShallow(target: number): number {
    let end = NO_MORE_DOCS;
    for (const c of this.subs) {
      const e = c.advanceShallow(target);
      if (e < end) end = e;
    }
    return end;
  }

  override getMaxScore(upTo: number): number {
    let s = 0;
    for (let i = 0; i < this.n; i++) {
      // A clause already past upTo only contributes to documents after the window.
      if (this.subDocs[i] <= upTo) s += this.subs[i].getMaxScore(upTo) + this.coord;
    }
    return s;
  }
}
