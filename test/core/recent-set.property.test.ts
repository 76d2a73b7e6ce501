// RecentSet (src/core/recent-set.ts): at most `capacity` values, the newest ones, whatever is added.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RecentSet } from '../../src/core/recent-set.ts';

describe('RecentSet', () => {
  it('holds the last `capacity` distinct values added, and says whether each add was new', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 8 }),
        fc.array(fc.integer({ min: 0, max: 20 })),
        (capacity, adds) => {
          const s = new RecentSet<number>(capacity);
          // The model: distinct values in the order first added since they were last forgotten.
          let model: number[] = [];
          for (const v of adds) {
            const fresh = !model.includes(v);
            expect(s.add(v)).toBe(fresh);
            if (fresh) model = [...model, v].slice(-capacity);
            expect(s.size).toBe(model.length);
            expect(s.size).toBeLessThanOrEqual(capacity);
          }
          for (let v = 0; v <= 20; v++) expect(s.has(v)).toBe(model.includes(v));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('refuses a capacity that is not a positive integer', () => {
    for (const c of [0, -1, 1.5, Number.NaN]) expect(() => new RecentSet(c)).toThrow(RangeError);
  });
});
