// Sorting the short lists of the hot paths. V8's Array.prototype.sort costs a few thousand
// instructions per call whatever the length (a work array and TimSort's state are set up each time),
// and a backtest sorts lists of 0 to 10 items some 36 times an order: open orders, a round's fills,
// the rounds a sleeping loop slept through, the virtual clock's timers (BENCHMARKS.md, 2026-11-29).
// An insertion sort of a short list costs tens of instructions per item.

/** Lists longer than this go to Array.prototype.sort (insertion sort is quadratic). */
export const SMALL_SORT_MAX = 16;

/**
 * Sorts `a` in place by `compare` and returns it: the same order as `a.sort(compare)` for a consistent
 * comparator (both sorts are stable), by insertion for a short list. `a` must hold no `undefined`
 * (Array.prototype.sort moves those to the end without calling `compare`).
 */
export function sortInPlace<T>(a: T[], compare: (x: T, y: T) => number): T[] {
  const n = a.length;
  if (n > SMALL_SORT_MAX) return a.sort(compare);
  for (let i = 1; i < n; i++) {
    const item = a[i] as T;
    let j = i - 1;
    // Strictly greater moves: equal items keep their order (stable).
    while (j >= 0 && compare(a[j] as T, item) > 0) {
      a[j + 1] = a[j] as T;
      j--;
    }
    a[j + 1] = item;
  }
  return a;
}

/** Strings in UTF-16 code unit order: the order of `sort()` without a comparator. */
export function byCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
