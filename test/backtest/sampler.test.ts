import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Sampler } from '../../src/backtest/sampler.ts';

/** Feeds polls at `times`, sampling when due (as the driver does), then the last one. */
function sampleAll(times: readonly number[], intervalMs: number, max: number): number[] {
  const s = new Sampler<number>(intervalMs, max);
  for (const t of times) if (s.due(t)) s.add(t, t);
  const last = times[times.length - 1];
  if (last !== undefined) s.add(last, last);
  return s.samples().map((x) => x.t);
}

describe('Sampler', () => {
  it('samples the first poll at or after each interval step, and always the last', () => {
    const polls = Array.from({ length: 10 }, (_, i) => 1_000 + i * 700); // 1000, 1700, ... 7300
    expect(sampleAll(polls, 2_000, 100)).toEqual([1_000, 3_100, 5_200, 7_300]);
  });

  it('replaces a sample taken again at the same time', () => {
    const s = new Sampler<string>(1_000, 10);
    s.add(5, 'a');
    s.add(5, 'b');
    expect(s.samples()).toEqual([{ t: 5, item: 'b' }]);
  });

  it('thins to the doubled grid when full, so memory stays bounded however long the run', () => {
    const polls = Array.from({ length: 10_000 }, (_, i) => i * 1_000);
    const few = sampleAll(polls.slice(0, 2_500), 1_000, 1_000);
    const many = sampleAll(polls, 1_000, 1_000);
    expect(few.length).toBeLessThanOrEqual(1_000);
    expect(many.length).toBeLessThanOrEqual(1_000);
    expect(many.length).toBeGreaterThan(500);
    expect(many[0]).toBe(0);
    expect(many[many.length - 1]).toBe(9_999_000);
  });

  it('keeps samples in time order, bounded, deterministic (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 5_000 }), { minLength: 1, maxLength: 400 }),
        fc.integer({ min: 1, max: 3_000 }),
        fc.integer({ min: 4, max: 40 }),
        (gaps, interval, max) => {
          const times: number[] = [];
          let t = 1_000_000;
          for (const g of gaps) times.push((t += g));
          const a = sampleAll(times, interval, max);
          expect(a.length).toBeLessThanOrEqual(max + 1);
          for (let i = 1; i < a.length; i++) expect(a[i]!).toBeGreaterThan(a[i - 1]!);
          expect(a[0]).toBe(times[0]);
          expect(a[a.length - 1]).toBe(times[times.length - 1]);
          expect(sampleAll(times, interval, max)).toEqual(a);
        },
      ),
    );
  });
});
