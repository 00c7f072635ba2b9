/**
 * Collects the text of a document piece by piece, with the memory of the text itself.
 *
 * Parsers report text in many small strings (one per text node, entity or separator); kept in
 * one array, a 50 MB document would hold millions of string objects and the garbage collector
 * would spend most of the filter's time marking them. Here every {@link FLUSH_PIECES} pieces
 * become one flat string. Any range of the text can be read back by character offset
 * ({@link slice}), which is how the XML filter reads an element's value without storing it twice.
 */
export class TextAccumulator {
  private readonly segments: string[] = [];
  /** Offset of each segment's first character. */
  private readonly segmentStarts: number[] = [];
  private pending: string[] = [];
  private pendingStart = 0;
  private total = 0;

  /** Characters collected so far. */
  get length(): number {
    return this.total;
  }

  push(piece: string): void {
    if (piece === '') return;
    this.pending.push(piece);
    this.total += piece.length;
    if (this.pending.length >= FLUSH_PIECES) this.flush();
  }

  /** The text from offset `from` to the end; costs the length of that range, not of the whole text. */
  slice(from: number): string {
    if (from >= this.total) return '';
    const parts: string[] = [];
    if (from < this.pendingStart) {
      // The last segment starting at or before `from`.
      let lo = 0;
      let hi = this.segments.length - 1;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        const midStart = this.segmentStarts[mid];
        if (midStart !== undefined && midStart <= from) lo = mid;
        else hi = mid - 1;
      }
      const segment = this.segments[lo];
      const segmentStart = this.segmentStarts[lo];
      if (segment === undefined || segmentStart === undefined)
        throw new RangeError(`offset ${from} is outside the text collected`);
      parts.push(segment.slice(from - segmentStart), ...this.segments.slice(lo + 1), ...this.pending);
      return parts.join('');
    }
    // Within the pending pieces: walk back from the end, so a short range costs little.
    let offset = this.total;
    let i = this.pending.length;
    let piece: string | undefined;
    while (offset > from && (piece = this.pending[--i]) !== undefined) offset -= piece.length;
    if (piece === undefined) throw new RangeError(`offset ${from} is outside the text collected`);
    parts.push(piece.slice(from - offset), ...this.pending.slice(i + 1));
    return parts.join('');
  }

  /** All the text. */
  toString(): string {
    this.flush();
    if (this.segments.length > 1) {
      const all = this.segments.join('');
      this.segments.length = 0;
      this.segmentStarts.length = 0;
      this.segments.push(all);
      this.segmentStarts.push(0);
    }
    return this.segments[0] ?? '';
  }

  private flush(): void {
    if (this.pending.length === 0) return;
    this.segments.push(this.pending.join(''));
    this.segmentStarts.push(this.pendingStart);
    this.pendingStart = this.total;
    this.pending = [];
  }
}

const FLUSH_PIECES = 4096;
