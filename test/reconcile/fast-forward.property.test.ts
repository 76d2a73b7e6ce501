// The closed form of periodic rounds (src/reconcile/fast-forward.ts) against the rounds stepped one
// by one, for intervals that change at most once (the normal → idle pace of a sleeping loop).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  addCounts,
  lastRound,
  mostPerSpan,
  roundRuns,
  roundsAfter,
  runsCount,
  type EndpointCounts,
} from '../../src/reconcile/fast-forward.ts';

/** r₀ = due, rⱼ₊₁ = rⱼ + max(1, interval(rⱼ)), while ≤ now. */
function stepped(due: number, now: number, interval: (at: number) => number): number[] {
  const out: number[] = [];
  for (let at = due; at <= now; at += Math.max(1, interval(at))) out.push(at);
  return out;
}

const paces = fc.record({
  due: fc.integer({ min: 0, max: 10_000 }),
  span: fc.integer({ min: 0, max: 200_000 }),
  before: fc.integer({ min: 0, max: 7_000 }),
  after: fc.integer({ min: 0, max: 30_000 }),
  switchAt: fc.integer({ min: -5_000, max: 250_000 }),
});

describe('roundRuns', () => {
  it('lists exactly the rounds stepped one by one (property)', () => {
    fc.assert(
      fc.property(paces, ({ due, span, before, after, switchAt }) => {
        const interval = (at: number): number => (at < switchAt ? before : after);
        const now = due + span;
        const runs = roundRuns(due, now, interval);
        const expected = stepped(due, now, interval);
        expect(roundsAfter(runs, Number.NEGATIVE_INFINITY)).toEqual(expected);
        expect(runsCount(runs)).toBe(expected.length);
        expect(lastRound(runs)).toBe(expected[expected.length - 1]);
        // At most two runs: one per pace; each as long as its pace lasts (no two in a row alike).
        expect(runs.length).toBeLessThanOrEqual(2);
        for (let i = 1; i < runs.length; i++) expect(runs[i]?.interval).not.toBe(runs[i - 1]?.interval);
      }),
    );
  });

  it('lists the rounds after a time, in order (property)', () => {
    fc.assert(
      fc.property(paces, fc.integer({ min: -1_000, max: 250_000 }), (p, cut) => {
        const interval = (at: number): number => (at < p.switchAt ? p.before : p.after);
        const now = p.due + p.span;
        const runs = roundRuns(p.due, now, interval);
        expect(roundsAfter(runs, cut)).toEqual(stepped(p.due, now, interval).filter((t) => t > cut));
      }),
    );
  });

  it('counts a round due exactly now, and keeps a run whole when the pace changes just after now', () => {
    expect(roundRuns(0, 10, () => 5)).toEqual([{ start: 0, interval: 5, count: 3 }]);
    expect(roundRuns(0, 10, (at) => (at < 12 ? 5 : 7))).toEqual([{ start: 0, interval: 5, count: 3 }]);
    expect(roundRuns(0, 30, (at) => (at < 12 ? 5 : 7))).toEqual([
      { start: 0, interval: 5, count: 3 },
      { start: 15, interval: 7, count: 3 },
    ]);
  });

  it('lists after a time strictly later rounds only, the first of a run included', () => {
    const runs = [{ start: 10, interval: 5, count: 3 }];
    expect(roundsAfter(runs, 10)).toEqual([15, 20]);
    expect(roundsAfter(runs, 9)).toEqual([10, 15, 20]);
    expect(roundsAfter(runs, 20)).toEqual([]);
  });

  it('has no round when the first is due after now', () => {
    expect(roundRuns(10, 9, () => 1)).toEqual([]);
    expect(lastRound([])).toBeUndefined();
  });

  it('takes an interval below 1 ms as 1 ms, as the loops do', () => {
    expect(
      roundsAfter(
        roundRuns(0, 3, () => 0),
        -1,
      ),
    ).toEqual([0, 1, 2, 3]);
  });
});

describe('addCounts', () => {
  it('adds each endpoint `times` times, and nothing for zero or fewer', () => {
    const c: EndpointCounts = { fills: 2 };
    addCounts(c, ['fills', 'history'], 3);
    expect(c).toEqual({ fills: 5, history: 3 });
    addCounts(c, ['fills'], 0);
    addCounts(c, ['history'], -2);
    addCounts(c, ['historyPlan'], 0);
    expect(c).toEqual({ fills: 5, history: 3 });
    addCounts(c, ['tickers']);
    expect(c).toEqual({ fills: 5, history: 3, tickers: 1 });
  });
});

describe('mostPerSpan', () => {
  it('counts a time exactly one span earlier as outside the window', () => {
    expect(mostPerSpan([0, 10_000], 10_000)).toBe(1);
    expect(mostPerSpan([0, 9_999], 10_000)).toBe(2);
  });

  it('is the most times in any (t − span, t] window (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 50_000 }), { maxLength: 60 }),
        fc.integer({ min: 1, max: 20_000 }),
        (raw, span) => {
          const times = [...raw].sort((a, b) => a - b);
          let most = 0;
          for (const t of times) most = Math.max(most, times.filter((u) => u > t - span && u <= t).length);
          expect(mostPerSpan(times, span)).toBe(most);
        },
      ),
    );
  });
});
