// Deterministic thinning of long series for the charts (report.json keeps every sample). Min/max
// buckets: the time span is cut into equal buckets and each bucket keeps its lowest and highest
// point (in time order), plus the very first and last points, so peaks and troughs (and therefore
// the drawdown) stay visible however long the run.

/** A series as parallel arrays: times (any unit, non-decreasing) and values. */
export interface Series {
  readonly t: number[];
  readonly v: number[];
}

/** Keeps the last value of each run of equal times (e.g. several samples in one chart second). */
export function collapseEqualTimes(s: Series): Series {
  const t: number[] = [];
  const v: number[] = [];
  for (let i = 0; i < s.t.length; i++) {
    const ti = s.t[i]!;
    if (t.length > 0 && t[t.length - 1] === ti) v[v.length - 1] = s.v[i]!;
    else {
      t.push(ti);
      v.push(s.v[i]!);
    }
  }
  return { t, v };
}

/** Returns at most `maxPoints` (≥ 4) points of `s`, chosen by min/max buckets; `s` itself when short. */
export function downsampleMinMax(s: Series, maxPoints: number): Series {
  const n = s.t.length;
  if (n <= maxPoints) return s;
  if (!Number.isSafeInteger(maxPoints) || maxPoints < 4)
    throw new RangeError(`maxPoints must be ≥ 4, got ${maxPoints}`);
  const buckets = Math.floor((maxPoints - 2) / 2);
  const t0 = s.t[0]!;
  const span = s.t[n - 1]! - t0 + 1;
  const keep: number[] = [0];
  let bucket = -1;
  let lo = -1;
  let hi = -1;
  const flush = (): void => {
    if (lo < 0) return;
    const a = Math.min(lo, hi);
    const b = Math.max(lo, hi);
    if (a > keep[keep.length - 1]!) keep.push(a);
    if (b > keep[keep.length - 1]!) keep.push(b);
  };
  for (let i = 1; i < n - 1; i++) {
    const b = Math.min(buckets - 1, Math.floor(((s.t[i]! - t0) * buckets) / span));
    if (b !== bucket) {
      flush();
      bucket = b;
      lo = i;
      hi = i;
      continue;
    }
    if (s.v[i]! < s.v[lo]!) lo = i;
    if (s.v[i]! > s.v[hi]!) hi = i;
  }
  flush();
  keep.push(n - 1);
  return { t: keep.map((i) => s.t[i]!), v: keep.map((i) => s.v[i]!) };
}

/** Evenly spaced picks of at most `max` items, always including the first and the last. */
export function pickEvenly<T>(items: readonly T[], max: number): T[] {
  if (items.length <= max) return [...items];
  if (max <= 1) return items.slice(0, Math.max(0, max));
  const out: T[] = [];
  for (let k = 0; k < max; k++) out.push(items[Math.round((k * (items.length - 1)) / (max - 1))]!);
  return out;
}
