/**
 * `xs.map(f)` whose result always has packed elements.
 *
 * V8's `Array.prototype.map` returns a packed array when it runs as a builtin but a holey one
 * once the calling function is optimised (the optimised code preallocates the result), so an
 * array built with `map` has one of two hidden classes depending on whether its builder was
 * optimised yet. Scorers and postings read such arrays in their hot loops: two classes there
 * make the optimised loops check both, or throw them away ("wrong map") when the second one
 * shows up after they were compiled, which happens at a different query on every run. An
 * array grown by `push` from `[]` is packed in every tier.
 *
 * For arrays of objects (or of values of one kind): the literal below is one allocation site
 * for every caller, and V8 starts its arrays with the most general element kind stored there.
 */
export function packedMap<T, U>(xs: readonly T[], f: (x: T, index: number) => U): U[] {
  const out: U[] = [];
  for (let i = 0; i < xs.length; i++) out.push(f(xs[i], i));
  return out;
}
