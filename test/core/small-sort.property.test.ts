// sortInPlace against Array.prototype.sort: the same order (both stable) for any list and any
// consistent comparator, on both sides of the length where it hands over to the built-in sort.
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { byCodeUnits, SMALL_SORT_MAX, sortInPlace } from '../../src/core/small-sort.ts';

interface Item {
  readonly key: number;
  readonly tie: string;
  /** Its place in the input: tells a stable sort from an unstable one on equal keys. */
  readonly at: number;
}

const items = (maxLength: number): fc.Arbitrary<Item[]> =>
  fc
    .array(
      fc.record({ key: fc.integer({ min: -3, max: 3 }), tie: fc.constantFrom('a', 'b', 'B', 'ab', '') }),
      {
        maxLength,
      },
    )
    .map((xs) => xs.map((x, at) => ({ ...x, at })));

/** Comparators of the shapes the engine uses: one key, two keys, and a reversed one. */
const comparators: readonly ((a: Item, b: Item) => number)[] = [
  (a, b) => a.key - b.key,
  (a, b) => a.key - b.key || byCodeUnits(a.tie, b.tie),
  (a, b) => b.key - a.key,
  (a, b) => byCodeUnits(a.tie, b.tie),
];

describe('sortInPlace', () => {
  it('orders a list as Array.prototype.sort does, equal items kept in their order', () => {
    fc.assert(
      fc.property(items(3 * SMALL_SORT_MAX), fc.integer({ min: 0, max: comparators.length - 1 }), (xs, c) => {
        const compare = comparators[c] as (a: Item, b: Item) => number;
        const expected = [...xs].sort(compare);
        const list = [...xs];
        const sorted = sortInPlace(list, compare);
        expect(sorted).toBe(list);
        expect(sorted.map((x) => x.at)).toEqual(expected.map((x) => x.at));
      }),
      { numRuns: 2000 },
    );
  });

  it('sorts strings by code units, as sort() without a comparator does', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 4 }), { maxLength: 2 * SMALL_SORT_MAX }), (xs) => {
        expect(sortInPlace([...xs], byCodeUnits)).toEqual([...xs].sort());
      }),
    );
  });

  it('sorts a short list by itself and hands a longer one to Array.prototype.sort', () => {
    const builtIn = vi.spyOn(Array.prototype, 'sort');
    try {
      const short = Array.from({ length: SMALL_SORT_MAX }, (_, i) => SMALL_SORT_MAX - i);
      expect(sortInPlace(short, (a, b) => a - b)[0]).toBe(1);
      expect(builtIn).not.toHaveBeenCalled();
      const long = Array.from({ length: SMALL_SORT_MAX + 1 }, (_, i) => SMALL_SORT_MAX + 1 - i);
      expect(sortInPlace(long, (a, b) => a - b)[0]).toBe(1);
      expect(builtIn).toHaveBeenCalledTimes(1);
    } finally {
      builtIn.mockRestore();
    }
  });

  it('leaves empty and one-item lists as they are', () => {
    const empty: number[] = [];
    expect(sortInPlace(empty, (a, b) => a - b)).toBe(empty);
    expect(sortInPlace([7], (a, b) => a - b)).toEqual([7]);
  });
});
