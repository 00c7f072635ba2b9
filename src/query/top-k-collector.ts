import type { WorkBudget } from './work-budget.js';

/**
 * The k best hits over all generations of a query, in one heap, so that the score a new
 * document must beat (the k-th best so far) carries from one generation to the next.
 *
 * Order: score descending, then generationIndex ascending, then docId ascending. Documents
 * arrive in that tie order (generation by generation, docIds ascending), so a newcomer only
 * enters a full heap with a score strictly above the worst one, and everything whose upper
 * bound is <= {@link minCompetitiveScore} may be skipped.
 *
 * Counting: every collected document counts. Pruning starts only once more than
 * `totalHitsThreshold` documents were counted (and the heap is full); from then on skipped
 * documents are not counted, so `totalHits` is a lower bound and `totalHitsExact` false.
 */
export class TopKCollector {
  readonly k: number;
  totalHits = 0;
  /** Set by the executor before it runs each generation. */
  generationIndex = 0;
  /** The query's budget: its deadline is checked every few hundred collected documents. */
  budget: WorkBudget | undefined;
  private readonly threshold: number;
  private readonly pruningAllowed: boolean;
  private pruning = false;
  private size = 0;
  // Grown on demand: k may be far larger than the number of matches.
  private scores: Float64Array;
  private gens: Int32Array;
  private docs: Int32Array;
  private minScore = -Infinity;

  constructor(k: number, totalHitsThreshold: number, pruningAllowed: boolean) {
    this.k = k;
    this.threshold = totalHitsThreshold;
    this.pruningAllowed = pruningAllowed;
    const initial = Math.min(k, 64);
    this.scores = new Float64Array(initial);
    this.gens = new Int32Array(initial);
    this.docs = new Int32Array(initial);
  }

  /** A document whose score is not strictly above this cannot enter: -Infinity until pruning starts. */
  minCompetitiveScore(): number {
    return this.minScore;
  }

  /**
   * The score a document arriving now must beat to enter: -Infinity while the heap has room,
   * Infinity when k = 0. A document whose bound is not above it is {@link count}ed unscored.
   */
  entryScore(): number {
    if (this.size < this.k) return -Infinity;
    return this.k > 0 ? this.scores[0] : Infinity;
  }

  /** Counts a matching document that cannot enter (its bound is at most {@link entryScore}). */
  count(): void {
    this.budget?.tick();
    this.totalHits++;
    this.startPruningWhenDue();
  }

  /** True once pruning started: `totalHits` is from then on a lower bound. */
  get pruningStarted(): boolean {
    return this.pruning;
  }

  collect(doc: number, score: number): void {
    this.budget?.tick();
    this.totalHits++;
    const k = this.k;
    if (this.size < k) {
      this.push(doc, score);
    } else if (k > 0 && score > this.scores[0]) {
      this.scores[0] = score;
      this.gens[0] = this.generationIndex;
      this.docs[0] = doc;
      this.siftDown(0);
    } else if (this.pruning) {
      return;
    }
    if (this.pruning) this.minScore = this.scores[0];
    else this.startPruningWhenDue();
  }

  private startPruningWhenDue(): void {
    if (this.pruning || !this.pruningAllowed || this.size !== this.k || this.totalHits <= this.threshold)
      return;
    this.pruning = true;
    // k = 0: nothing can ever enter, so everything left may be skipped.
    this.minScore = this.k > 0 ? this.scores[0] : Infinity;
  }

  /** True when hit a ranks below hit b (lower score, or same score and later in tie order). */
  private worse(a: number, b: number): boolean {
    const sa = this.scores[a];
    const sb = this.scores[b];
    if (sa !== sb) return sa < sb;
    if (this.gens[a] !== this.gens[b]) return this.gens[a] > this.gens[b];
    return this.docs[a] > this.docs[b];
  }

  private swap(a: number, b: number): void {
    const s = this.scores[a];
    this.scores[a] = this.scores[b];
    this.scores[b] = s;
    const g = this.gens[a];
    this.gens[a] = this.gens[b];
    this.gens[b] = g;
    const d = this.docs[a];
    this.docs[a] = this.docs[b];
    this.docs[b] = d;
  }

  private push(doc: number, score: number): void {
    if (this.size === this.scores.length) {
      const capacity = Math.min(this.k, this.size * 2);
      const scores = new Float64Array(capacity);
      scores.set(this.scores);
      this.scores = scores;
      const gens = new Int32Array(capacity);
      gens.set(this.gens);
      this.gens = gens;
      const docs = new Int32Array(capacity);
      docs.set(this.docs);
      this.docs = docs;
    }
    let i = this.size++;
    this.scores[i] = score;
    this.gens[i] = this.generationIndex;
    this.docs[i] = doc;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.worse(i, p)) break;
      this.swap(i, p);
      i = p;
    }
  }

  private siftDown(start: number): void {
    let i = start;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= this.size) return;
      let c = l;
      if (l + 1 < this.size && this.worse(l + 1, l)) c = l + 1;
      if (!this.worse(c, i)) return;
      this.swap(c, i);
      i = c;
    }
  }

  /** The hits, best first. */
  hits(): { generationIndex: number; docId: number; score: number }[] {
    const out: { generationIndex: number; docId: number; score: number }[] = [];
    for (let i = 0; i < this.size; i++) {
      out.push({ generationIndex: this.gens[i], docId: this.docs[i], score: this.scores[i] });
    }
    return out.sort(
      (a, b) => b.score - a.score || a.generationIndex - b.generationIndex || a.docId - b.docId,
    );
  }
}
