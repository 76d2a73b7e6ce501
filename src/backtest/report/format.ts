// Stable number formatting for everything a report writes: money as plain decimal strings (exact,
// never exponent notation), ratios as JSON numbers rounded to a fixed number of decimals, so that
// the same inputs always print the same bytes.
import { decToString, dec, type Dec } from '../../core/decimal.ts';

/** Decimals kept for ratios (win rate, exposure, drawdown fraction, Sharpe). */
export const RATIO_DECIMALS = 6;

/** A money amount as a decimal string (`"-12.5"`, `"0"`); exact. */
export function money(d: Dec): string {
  return decToString(d);
}

/** An exact ratio rounded half-up to RATIO_DECIMALS, as a number. */
export function decRatio(d: Dec): number {
  return Number(d.round(RATIO_DECIMALS).toFixed());
}

/** A float statistic rounded to RATIO_DECIMALS; null when it is not finite. */
export function floatRatio(x: number): number | null {
  if (!Number.isFinite(x)) return null;
  // Via Dec so the rounding is half-up on the printed value, not on the binary float; no -0.
  return decRatio(dec(x.toFixed(RATIO_DECIMALS + 3)));
}

/** Epoch ms as ISO-8601 UTC text (a pure function of the number; not the wall clock). */
export function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}
