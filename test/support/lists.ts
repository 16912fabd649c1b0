/**
 * xs[i] for a test that expects it to exist: fails the test with a clear message instead of a
 * TypeError on `undefined` (noUncheckedIndexedAccess). Negative i counts from the end.
 */
export function nth<T>(xs: readonly T[], i: number, what = 'item'): T {
  const x = xs.at(i);
  if (x === undefined) throw new Error(`expected ${what} at index ${i}, but there are ${xs.length}`);
  return x;
}
