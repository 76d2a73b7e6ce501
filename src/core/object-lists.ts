// Lists of objects that keep one hidden class whether they are empty or not.
//
// V8 tags every array with an elements kind, and the kind is part of the array's hidden class: an
// empty literal `[]`, and what `.map` makes of an empty list, are arrays of small integers; a list
// holding objects (or strings) is of another kind; and `.map` called from optimized code returns a
// holey array where the same line run unoptimized returns a packed one. Optimized code that has
// only met one of these at a spot (`list.length`, `for … of list`) is thrown away when another
// arrives there (a "wrong map" deoptimization) and compiled again once it is hot again. A backtest
// is full of lists that stay empty for thousands of polls and then hold an item (a round's
// unattributed fills, the loops asleep, a pass of slept rounds): each first item cost the reconcile
// kernel a deoptimization, a stretch of unoptimized rounds and about 150 ms of compiling
// (BENCHMARKS.md, "Warm-up", 2026-11-29). The hot paths build such lists with these instead, so that
// an empty one has the hidden class of a full one. They change no value, only hidden classes.

/** A new empty array of the objects kind; push objects (or strings) onto it as usual. */
export function objectList<T>(): T[] {
  const list = [null] as unknown as T[];
  list.pop();
  return list;
}

/** An empty list of the objects kind, shared: read only. */
export const NO_OBJECTS: readonly never[] = objectList<never>();

/**
 * `list.map(f)` as a packed list of the objects kind, empty or not (a list of that kind holds
 * numbers too, boxed). Not `.map` itself: besides an empty one, it gives a holey array when the code
 * calling it is optimized and a packed one when it is not, two hidden classes from one line.
 */
export function mapToObjects<T, U>(list: readonly T[], f: (item: T, index: number) => U): U[] {
  const out = objectList<U>();
  for (let i = 0; i < list.length; i++) out.push(f(list[i] as T, i));
  return out;
}

/** `[...a, ...b, …]` of the objects kind, empty or not. */
export function joinObjects<T>(...lists: readonly (readonly T[])[]): T[] {
  const out = objectList<T>();
  for (const list of lists) for (const item of list) out.push(item);
  return out;
}

/** A new empty array of the doubles kind, for numbers that are not small integers (epoch ms). */
export function doubleList(): number[] {
  const list = [0.5];
  list.pop();
  return list;
}

/** `list.map(f)` for numbers that are not small integers (epoch ms), of the doubles kind even empty. */
export function mapToDoubles<T>(list: readonly T[], f: (item: T) => number): number[] {
  const out = doubleList();
  for (const item of list) out.push(f(item));
  return out;
}
