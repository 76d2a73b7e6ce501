// Small statistics for the benchmarks: percentiles of latency samples (nearest rank, no interpolation,
// so every reported figure is one that was actually measured).

/** The q-quantile (0 < q ≤ 1) of `samples` by the nearest-rank method; NaN when there are none. */
export function percentile(samples: readonly number[], q: number): number {
  if (!(q > 0 && q <= 1)) throw new RangeError(`quantile must be in (0, 1], got ${q}`);
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.ceil(q * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] ?? Number.NaN;
}

export function mean(samples: readonly number[]): number {
  if (samples.length === 0) return Number.NaN;
  let s = 0;
  for (const x of samples) s += x;
  return s / samples.length;
}

/** Rounds for the report: figures are ratios and milliseconds, a few significant digits are plenty. */
export function round(x: number, digits = 4): number {
  if (!Number.isFinite(x)) return x;
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}
