// bench/replay.ts times its baselines (bare parse, floors) over at least MIN_BASELINE_LINES lines:
// a short recording is repeated whole, a long one is used as it is.
import { describe, expect, it } from 'vitest';
import { baselineLines, MIN_BASELINE_LINES } from '../../bench/replay.ts';

describe('replay bench baselines', () => {
  it('repeats a short recording whole, in order, up to the least count', () => {
    const lines = ['a', 'b', 'c'];
    const out = baselineLines(lines);
    expect(out.length).toBeGreaterThanOrEqual(MIN_BASELINE_LINES);
    expect(out.length % lines.length).toBe(0);
    expect(out.length - lines.length).toBeLessThan(MIN_BASELINE_LINES);
    expect(out.slice(0, 6)).toEqual(['a', 'b', 'c', 'a', 'b', 'c']);
  });

  it('leaves a long enough recording as it is', () => {
    const lines = Array.from({ length: MIN_BASELINE_LINES }, (_, i) => String(i));
    expect(baselineLines(lines)).toBe(lines);
    expect(baselineLines([])).toEqual([]);
  });
});
