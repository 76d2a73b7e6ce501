import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { collapseEqualTimes, downsampleMinMax, pickEvenly } from '../../../src/backtest/report/downsample.ts';

const series = fc
  .array(fc.tuple(fc.integer({ min: 0, max: 50 }), fc.integer({ min: -1000, max: 1000 })), {
    minLength: 1,
    maxLength: 400,
  })
  .map((steps) => {
    let t = 0;
    const ts: number[] = [];
    const vs: number[] = [];
    for (const [dt, v] of steps) {
      t += dt;
      ts.push(t);
      vs.push(v);
    }
    return { t: ts, v: vs };
  });

describe('downsampleMinMax', () => {
  it('keeps at most maxPoints points, in order, with the ends and the extremes', () => {
    fc.assert(
      fc.property(series, fc.integer({ min: 4, max: 100 }), (s, max) => {
        const d = downsampleMinMax(s, max);
        expect(d.t.length).toBeLessThanOrEqual(max);
        expect(d.t[0]).toBe(s.t[0]);
        expect(d.t[d.t.length - 1]).toBe(s.t[s.t.length - 1]);
        expect(Math.min(...d.v)).toBe(Math.min(...s.v));
        expect(Math.max(...d.v)).toBe(Math.max(...s.v));
        // Every kept point is a point of the input, in the input's order.
        let j = 0;
        for (let i = 0; i < d.t.length; i++) {
          while (j < s.t.length && !(s.t[j] === d.t[i] && s.v[j] === d.v[i])) j++;
          expect(j).toBeLessThan(s.t.length);
          j++;
        }
      }),
    );
  });

  it('is deterministic and leaves short series alone', () => {
    const s = { t: [1, 2, 3], v: [3, 1, 2] };
    expect(downsampleMinMax(s, 10)).toBe(s);
    const long = {
      t: Array.from({ length: 1000 }, (_, i) => i),
      v: Array.from({ length: 1000 }, (_, i) => (i * 37) % 101),
    };
    expect(downsampleMinMax(long, 50)).toEqual(downsampleMinMax(long, 50));
  });
});

describe('collapseEqualTimes and pickEvenly', () => {
  it('keeps the last value per time', () => {
    expect(collapseEqualTimes({ t: [1, 1, 2, 3, 3, 3], v: [1, 2, 3, 4, 5, 6] })).toEqual({
      t: [1, 2, 3],
      v: [2, 3, 6],
    });
  });

  it('picks evenly, first and last included', () => {
    expect(pickEvenly([0, 1, 2, 3, 4, 5, 6, 7, 8], 3)).toEqual([0, 4, 8]);
    expect(pickEvenly([1, 2], 5)).toEqual([1, 2]);
  });
});
