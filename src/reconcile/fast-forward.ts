// Periodic rounds in closed form (pure): the rounds a sleeping reconciliation loop slept through, as
// runs of equal intervals instead of one object per round, so a quiet month of a backtest is charged
// in a few arithmetic steps per loop (Reconciler.wake, RoundShortcut.bulk).
//
// A loop's rounds are r₀ = due and rⱼ₊₁ = rⱼ + interval(rⱼ). While a loop sleeps, the orders it sees
// cannot change, so its interval changes at most once: from the normal to the idle pace when the last
// activity grows older than the idle threshold (poll-interval.ts). `interval` must be such a function:
// over any run of rounds at one interval, once it differs it never comes back.
import type { EndpointCounts, EndpointId } from '../core/endpoints.ts';

export type { BulkCharges, EndpointCounts } from '../core/endpoints.ts';

/** `count` rounds at `start`, `start + interval`, … */
export interface RoundRun {
  readonly start: number;
  readonly interval: number;
  readonly count: number;
}

/** The runs of rounds from `due` up to `now` (inclusive), in order; empty when `due > now`. */
export function roundRuns(due: number, now: number, interval: (at: number) => number): RoundRun[] {
  const runs: RoundRun[] = [];
  let at = due;
  while (at <= now) {
    const step = Math.max(1, interval(at));
    // The most rounds at this interval up to now, then the longest prefix that keeps the interval.
    let hi = Math.floor((now - at) / step) + 1;
    if (Math.max(1, interval(at + (hi - 1) * step)) !== step) {
      let lo = 1; // interval(at) === step
      while (hi - lo > 1) {
        const mid = lo + Math.floor((hi - lo) / 2);
        if (Math.max(1, interval(at + (mid - 1) * step)) === step) lo = mid;
        else hi = mid;
      }
      hi = lo;
    }
    runs.push({ start: at, interval: step, count: hi });
    at += hi * step;
  }
  return runs;
}

export function runsCount(runs: readonly RoundRun[]): number {
  let n = 0;
  for (const r of runs) n += r.count;
  return n;
}

/** Time of the last round, or undefined when there is none. */
export function lastRound(runs: readonly RoundRun[]): number | undefined {
  const r = runs[runs.length - 1];
  return r === undefined ? undefined : r.start + (r.count - 1) * r.interval;
}

/** Times of the rounds later than `after`, in order. */
export function roundsAfter(runs: readonly RoundRun[], after: number): number[] {
  const out: number[] = [];
  for (const r of runs) {
    const first = after < r.start ? 0 : Math.floor((after - r.start) / r.interval) + 1;
    for (let j = first; j < r.count; j++) out.push(r.start + j * r.interval);
  }
  return out;
}

export function addCounts(into: EndpointCounts, endpoints: readonly EndpointId[], times = 1): void {
  if (times <= 0) return;
  for (const e of endpoints) into[e] = (into[e] ?? 0) + times;
}

/** Most of `times` (in order) within any span of `spanMs` (a half-open (t − span, t] window). */
export function mostPerSpan(times: readonly number[], spanMs: number): number {
  let most = 0;
  let head = 0;
  for (let i = 0; i < times.length; i++) {
    const t = times[i] as number;
    while ((times[head] as number) <= t - spanMs) head++;
    most = Math.max(most, i - head + 1);
  }
  return most;
}
