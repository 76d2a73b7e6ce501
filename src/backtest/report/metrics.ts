// The figures users compare with Freqtrade, QuantStats and vectorbt (docs/report.md defines each one
// and names the peer that defines it the same way). Incremental where it is easy: TradeStats and
// DrawdownTracker are fed one trade / one equity sample at a time, so a streaming summary can reuse
// them. Money is Dec; ratios are floats only where they are statistics.
import { ZERO, decToNumber, type Dec } from '../../core/decimal.ts';
import type { Trade } from './trades.ts';

export const DAY_MS = 86_400_000;
export const YEAR_DAYS = 365;
/** Fewest daily returns for a daily Sharpe or Sortino ratio. */
export const MIN_DAILY_RETURNS = 7;

/** Running statistics of closed trades (open trades are counted apart, by the caller). */
export class TradeStats {
  closed = 0;
  open = 0;
  wins = 0;
  losses = 0;
  /** Σ netPnl of the closed trades with netPnl > 0. */
  grossProfit: Dec = ZERO;
  /** Σ −netPnl of the closed trades with netPnl < 0 (≥ 0). */
  grossLoss: Dec = ZERO;
  /** Σ netPnl of the closed trades. */
  closedNet: Dec = ZERO;
  /** Σ pnl, fees and netPnl of every trade, open ones included (their partial closes and fees). */
  pnl: Dec = ZERO;
  fees: Dec = ZERO;
  net: Dec = ZERO;
  best: Dec | null = null;
  worst: Dec | null = null;
  totalDurationMs = 0;

  add(t: Trade): void {
    this.pnl = this.pnl.plus(t.pnl);
    this.fees = this.fees.plus(t.fees);
    this.net = this.net.plus(t.netPnl);
    if (t.exitTime === null) {
      this.open++;
      return;
    }
    this.closed++;
    this.closedNet = this.closedNet.plus(t.netPnl);
    this.totalDurationMs += t.durationMs;
    if (t.netPnl.gt(0)) {
      this.wins++;
      this.grossProfit = this.grossProfit.plus(t.netPnl);
    } else if (t.netPnl.lt(0)) {
      this.losses++;
      this.grossLoss = this.grossLoss.minus(t.netPnl);
    }
    if (this.best === null || t.netPnl.gt(this.best)) this.best = t.netPnl;
    if (this.worst === null || t.netPnl.lt(this.worst)) this.worst = t.netPnl;
  }

  /** wins ÷ closed trades; null without a closed trade. */
  winRate(): Dec | null {
    return this.closed === 0 ? null : ZERO.plus(this.wins).div(this.closed);
  }

  /** grossProfit ÷ grossLoss; null without a losing trade. */
  profitFactor(): Dec | null {
    return this.grossLoss.eq(0) ? null : this.grossProfit.div(this.grossLoss);
  }

  /** Mean netPnl per closed trade; null without one. */
  expectancy(): Dec | null {
    return this.closed === 0 ? null : this.closedNet.div(this.closed);
  }

  /** Mean duration of the closed trades in whole ms (half up); null without one. */
  avgDurationMs(): number | null {
    return this.closed === 0 ? null : Math.round(this.totalDurationMs / this.closed);
  }
}

export interface DrawdownEpisode {
  /** Largest fall below the running peak (≥ 0). */
  readonly amount: Dec;
  /** Time of the peak it fell from, and of its lowest point; null when equity never fell. */
  readonly start: number | null;
  readonly end: number | null;
  /** From the peak to the first sample back at or above it, or to the last sample if it never was. */
  readonly durationMs: number | null;
}

/** The largest drawdown (by amount) of an equity series, with its times; fed in time order. */
export class DrawdownTracker {
  #peak: Dec | undefined;
  #peakT = 0;
  #lastT = 0;
  #amount: Dec = ZERO;
  #start: number | null = null;
  #end: number | null = null;
  /** Time the largest drawdown recovered; null while it has not. */
  #recovered: number | null = null;
  /** Peak of the largest drawdown (to detect its recovery). */
  #maxPeak: Dec | undefined;

  add(t: number, equity: Dec): void {
    this.#lastT = t;
    if (this.#maxPeak !== undefined && this.#recovered === null && equity.gte(this.#maxPeak)) {
      this.#recovered = t;
    }
    if (this.#peak === undefined || equity.gt(this.#peak)) {
      this.#peak = equity;
      this.#peakT = t;
      return;
    }
    const fall = this.#peak.minus(equity);
    if (fall.gt(this.#amount)) {
      this.#amount = fall;
      this.#start = this.#peakT;
      this.#end = t;
      this.#maxPeak = this.#peak;
      this.#recovered = null;
    }
  }

  episode(): DrawdownEpisode {
    if (this.#start === null) return { amount: ZERO, start: null, end: null, durationMs: null };
    return {
      amount: this.#amount,
      start: this.#start,
      end: this.#end,
      durationMs: (this.#recovered ?? this.#lastT) - this.#start,
    };
  }
}

/** Start (epoch ms, UTC) of the calendar day or month holding `t`. */
export function periodStart(t: number, period: 'day' | 'month'): number {
  if (period === 'day') return Math.floor(t / DAY_MS) * DAY_MS;
  const d = new Date(t);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
}

export interface PeriodReturn {
  /** Start of the UTC calendar period. */
  readonly start: number;
  /** Close of the period ÷ close of the previous one (the starting balance for the first) − 1. */
  readonly ret: Dec;
}

/**
 * Returns per UTC calendar day or month: each period's close is the last equity sample in it; the
 * first period is measured from `base` (the starting balance). Empty when `base` ≤ 0; a period after
 * a non-positive close ends the list (returns are undefined from there).
 */
export function periodReturns(
  samples: readonly { readonly t: number; readonly equity: Dec }[],
  base: Dec,
  period: 'day' | 'month',
): PeriodReturn[] {
  const out: PeriodReturn[] = [];
  let prev = base;
  for (let i = 0; i < samples.length; i++) {
    const s = samples[i]!;
    const next = samples[i + 1];
    const p = periodStart(s.t, period);
    if (next !== undefined && periodStart(next.t, period) === p) continue;
    if (!prev.gt(0)) break;
    out.push({ start: p, ret: s.equity.div(prev).minus(1) });
    prev = s.equity;
  }
  return out;
}

/** mean ÷ sample sd (n − 1) × √365 of daily returns; null below MIN_DAILY_RETURNS or sd 0. */
export function dailySharpe(returns: readonly number[]): number | null {
  if (returns.length < MIN_DAILY_RETURNS) return null;
  const mean = returns.reduce((a, r) => a + r, 0) / returns.length;
  const sq = returns.reduce((a, r) => a + (r - mean) * (r - mean), 0);
  const sd = Math.sqrt(sq / (returns.length - 1));
  return sd > 0 ? (mean / sd) * Math.sqrt(YEAR_DAYS) : null;
}

/**
 * mean ÷ downside deviation × √365, the downside deviation being √(Σ min(r, 0)² ÷ n) (QuantStats);
 * null below MIN_DAILY_RETURNS or without a losing day.
 */
export function dailySortino(returns: readonly number[]): number | null {
  if (returns.length < MIN_DAILY_RETURNS) return null;
  const mean = returns.reduce((a, r) => a + r, 0) / returns.length;
  const down = returns.reduce((a, r) => a + (r < 0 ? r * r : 0), 0);
  const dd = Math.sqrt(down / returns.length);
  return dd > 0 ? (mean / dd) * Math.sqrt(YEAR_DAYS) : null;
}

/** (final ÷ start)^(365 days ÷ span) − 1; null below one day or when either is ≤ 0. */
export function cagr(start: Dec, final: Dec, spanMs: number): number | null {
  if (spanMs < DAY_MS || !start.gt(0) || !final.gt(0)) return null;
  const growth = decToNumber(final.div(start));
  const x = Math.pow(growth, (YEAR_DAYS * DAY_MS) / spanMs) - 1;
  return Number.isFinite(x) ? x : null;
}

/** First and last price of a symbol over the replayed span. */
export interface PriceRange {
  readonly first: Dec;
  readonly last: Dec;
}

/** Equal-weighted mean of last ÷ first − 1 over the symbols; null when none has a positive first price. */
export function buyAndHold(ranges: readonly PriceRange[]): Dec | null {
  const ok = ranges.filter((r) => r.first.gt(0));
  if (ok.length === 0) return null;
  let sum = ZERO;
  for (const r of ok) sum = sum.plus(r.last.div(r.first));
  return sum.div(ok.length).minus(1);
}

/** Σ of the trades' netPnl (exact; equals the run's realized PnL minus fees). */
export function sumNet(trades: readonly Trade[]): Dec {
  let s = ZERO;
  for (const t of trades) s = s.plus(t.netPnl);
  return s;
}

/** A float statistic from exact returns. */
export function returnsAsNumbers(rs: readonly PeriodReturn[]): number[] {
  return rs.map((r) => decToNumber(r.ret));
}
