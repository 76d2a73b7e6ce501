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

// ---- For people (report.html and the terminal summary; report.json and the CSVs stay exact). ----

/** `1234567.891` → `1,234,567.89`: rounded half up to `decimals`, thousands separated by commas. */
export function groupedDecimal(d: Dec, decimals: number): string {
  const text = d.toFixed(decimals);
  const negative = text.startsWith('-');
  const unsigned = negative ? text.slice(1) : text;
  const dot = unsigned.indexOf('.');
  const int = dot < 0 ? unsigned : unsigned.slice(0, dot);
  const frac = dot < 0 ? '' : unsigned.slice(dot);
  const grouped = int.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  // No "-0.00": a value that rounds to zero prints unsigned.
  const zero = /^[0.,]*$/.test(grouped + frac);
  return (negative && !zero ? '-' : '') + grouped + frac;
}

/** Money for people: 2 decimals, thousands separators (`-1,234.50`). */
export function humanMoney(d: Dec | string | null): string {
  if (d === null) return 'n/a';
  return groupedDecimal(typeof d === 'string' ? dec(d) : d, 2);
}

/** Decimals of a tick (`0.5` → 1, `0.01` → 2, `1` → 0). */
export function tickDecimals(tick: Dec): number {
  const s = tick.toFixed();
  const dot = s.indexOf('.');
  return dot < 0 ? 0 : s.length - dot - 1;
}

/** A price for people, at the symbol's tick decimals, with thousands separators. */
export function humanPrice(d: Dec | string | null, decimals: number): string {
  if (d === null) return 'n/a';
  return groupedDecimal(typeof d === 'string' ? dec(d) : d, decimals);
}

/** A fraction as a percentage at 2 decimals (`0.12345` → `12.35 %`); `n/a` for null. */
export function humanPercent(x: number | null): string {
  if (x === null) return 'n/a';
  return `${groupedDecimal(dec(x.toFixed(12)).times(100), 2)} %`;
}

/** A ratio (Sharpe, profit factor) at 2 decimals; `n/a` for null. */
export function humanRatio(x: number | null): string {
  return x === null ? 'n/a' : groupedDecimal(dec(x.toFixed(12)), 2);
}

/** A duration for people: `3d 4h 05m`, `2h 10m`, `5m 03s`, `12s`, `250 ms`. */
export function humanDuration(ms: number | null): string {
  if (ms === null) return 'n/a';
  if (ms < 1000) return `${ms} ms`;
  const s = Math.floor(ms / 1000);
  const d = Math.floor(s / 86_400);
  const h = Math.floor((s % 86_400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  const two = (n: number): string => String(n).padStart(2, '0');
  if (d > 0) return `${d}d ${h}h ${two(m)}m`;
  if (h > 0) return `${h}h ${two(m)}m`;
  if (m > 0) return `${m}m ${two(sec)}s`;
  return `${sec}s`;
}

/** Epoch ms as `2022-01-05 13:04:05 UTC` (seconds kept; no milliseconds unless there are some). */
export function humanTime(ms: number | null): string {
  if (ms === null) return 'n/a';
  const iso = new Date(ms).toISOString();
  const body = iso.endsWith('.000Z') ? iso.slice(0, 19) : iso.slice(0, 23);
  return `${body.replace('T', ' ')} UTC`;
}
