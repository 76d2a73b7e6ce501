// How full a rolling weight window was over a stretch of time, from the requests that were charged.
//
// W(t) is the weight charged in (t − windowMs, t] — what the venue compares with its limit at t.
// Utilisation over [t0, t1] is the time average of W(t) ÷ limit:
//     ∫ W(t) dt / (limit × (t1 − t0)),   with ∫ W dt = Σ wᵢ × |[tᵢ, tᵢ + windowMs) ∩ [t0, t1]|.
// Averaging over time, rather than counting the weight charged between t0 and t1, does not depend on
// where t0 falls: a budget-bound sender spends its window in bursts, one each time weight frees up.

export interface Charge {
  readonly t: number;
  readonly weight: number;
}

export function windowUtilisation(
  charges: readonly Charge[],
  t0: number,
  t1: number,
  windowMs: number,
  limit: number,
): number {
  if (!(t1 > t0)) throw new RangeError('t1 must be after t0');
  let integral = 0;
  for (const c of charges) {
    if (c.weight <= 0) continue;
    const from = Math.max(c.t, t0);
    const to = Math.min(c.t + windowMs, t1);
    if (to > from) integral += c.weight * (to - from);
  }
  return integral / (limit * (t1 - t0));
}

/** The largest W(t) ÷ limit over all t (charges in time order). */
export function peakWindowFill(charges: readonly Charge[], windowMs: number, limit: number): number {
  let peak = 0;
  let sum = 0;
  let head = 0;
  for (const c of charges) {
    sum += c.weight;
    // Keep (c.t − windowMs, c.t].
    for (;;) {
      const h = charges[head];
      if (h === undefined || h.t > c.t - windowMs) break;
      sum -= h.weight;
      head++;
    }
    peak = Math.max(peak, sum);
  }
  return peak / limit;
}
