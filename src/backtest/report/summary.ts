// The summary of a run: pure arithmetic over the RunRecord. Money is exact (Dec) and written as
// decimal strings; ratios are rounded to RATIO_DECIMALS. Definitions (also in the report's docs):
//
// ordersPlaced    every order record of the run (each client_oid capibot wrote, whatever became of it)
// ordersCanceled  orders whose final status is `canceled` (including partially filled ones)
// ordersRejected  orders whose final status is `rejected` (by the venue, the risk gate, or lost)
// fills           number of fills; volume = Σ fill value (quote notional)
// feesPaid        Σ fill fee (a rebate counts negative)
// realizedPnl     Σ fill realizedPnl, as reported with the fills (before fees)
// unrealizedPnl   `unrealized` of the last equity sample (open positions marked at the end), else 0
// netPnl          realizedPnl − feesPaid + unrealizedPnl
// maxDrawdown     largest fall of equity below its running peak, in quote (≥ 0), over the equity samples;
//                 maxDrawdownFraction is the largest such fall divided by its peak (0.25 = 25 %), null
//                 when a fall happened from a peak ≤ 0
// winRate         among closing fills (close_long / close_short) with realizedPnl ≠ 0, the fraction with
//                 realizedPnl > 0 (before fees); null when there is none
// sharpe          mean ÷ sample standard deviation (n − 1) of equity returns over fixed intervals of
//                 sharpeIntervalMs (default one hour), starting at the first equity sample; the equity at
//                 a grid point is the last sample at or before it; risk-free rate 0; NOT annualised.
//                 sharpeAnnualized = sharpe × √(intervals per 365 days) (markets trade around the clock).
//                 Both null with fewer than two returns, zero deviation or a non-positive equity.
// exposure        fraction of [firstTickTime, lastTickTime] during which any position (any symbol, either
//                 hedge leg) was non-zero, from the fills' sizes and sides; 0 for an empty interval
// strategiesDisabled  the strategy instances the engine disabled (a throw or an invalid intent), with
//                 the virtual time and the reason, in time order: their figures stop there
import { ZERO, decToNumber, type Dec } from '../../core/decimal.ts';
import { InvariantViolation } from '../../core/errors.ts';
import { isOpening } from '../../core/orders.ts';
import { reportFills, type ReportFill } from './fills.ts';
import { decRatio, floatRatio, money } from './format.ts';
import type { DisabledStrategy, EquitySample, RunRecord } from './types.ts';

export const DEFAULT_SHARPE_INTERVAL_MS = 3_600_000;
const YEAR_MS = 365 * 24 * 3_600_000;
const MAX_SHARPE_POINTS = 10_000_000;

export interface Summary {
  readonly ordersPlaced: number;
  readonly ordersCanceled: number;
  readonly ordersRejected: number;
  readonly fills: number;
  readonly volume: string;
  readonly feesPaid: string;
  readonly realizedPnl: string;
  readonly unrealizedPnl: string;
  readonly netPnl: string;
  readonly maxDrawdown: string;
  readonly maxDrawdownFraction: number | null;
  readonly winRate: number | null;
  readonly sharpe: number | null;
  readonly sharpeAnnualized: number | null;
  readonly sharpeIntervalMs: number;
  readonly exposure: number;
  readonly requestsByEndpoint: Readonly<Record<string, number>>;
  readonly weightUsed: { readonly ip: number; readonly uid: number };
  readonly rejectionsByReason: Readonly<Record<string, number>>;
  readonly responses429: number;
  readonly strategiesDisabled: readonly DisabledStrategy[];
}

export interface SummaryOptions {
  /** Return interval for the Sharpe ratio, in ms (default one hour). */
  readonly sharpeIntervalMs?: number;
}

export interface Drawdown {
  /** Largest peak-to-trough fall, ≥ 0. */
  readonly amount: Dec;
  /** Largest fall ÷ its peak; null when a fall happened from a peak ≤ 0. */
  readonly fraction: Dec | null;
}

/** Max drawdown of an equity series (samples in time order). */
export function maxDrawdown(equity: readonly Dec[]): Drawdown {
  let amount = ZERO;
  let fraction: Dec | null = ZERO;
  let peak: Dec | undefined;
  let trough: Dec | undefined;
  for (const e of equity) {
    if (peak === undefined || e.gt(peak)) {
      peak = e;
      trough = e;
      continue;
    }
    // Under one peak, both the fall and the fall ÷ peak are largest at the lowest point: only a new
    // trough can improve either, so the division runs rarely.
    if (trough !== undefined && e.gte(trough)) continue;
    trough = e;
    const fall = peak.minus(e);
    if (fall.gt(amount)) amount = fall;
    if (peak.lte(0)) fraction = null;
    else if (fraction !== null) {
      const f = fall.div(peak);
      if (f.gt(fraction)) fraction = f;
    }
  }
  return { amount, fraction };
}

/** Sharpe ratio of fixed-interval equity returns (see the definitions above); null when undefined. */
export function sharpeRatio(samples: readonly EquitySample[], intervalMs: number): number | null {
  const first = samples[0];
  const last = samples[samples.length - 1];
  if (first === undefined || last === undefined) return null;
  if ((last.t - first.t) / intervalMs > MAX_SHARPE_POINTS) {
    throw new InvariantViolation(
      `sharpe interval ${intervalMs} ms is too fine for a run of ${last.t - first.t} ms`,
    );
  }
  const grid: number[] = [];
  let i = 0;
  for (let b = first.t; b <= last.t; b += intervalMs) {
    while (i + 1 < samples.length && samples[i + 1]!.t <= b) i++;
    grid.push(decToNumber(samples[i]!.equity));
  }
  const returns: number[] = [];
  for (let k = 1; k < grid.length; k++) {
    const prev = grid[k - 1]!;
    if (prev <= 0) return null;
    returns.push(grid[k]! / prev - 1);
  }
  if (returns.length < 2) return null;
  let sum = 0;
  for (const r of returns) sum += r;
  const mean = sum / returns.length;
  let sq = 0;
  for (const r of returns) sq += (r - mean) * (r - mean);
  const sd = Math.sqrt(sq / (returns.length - 1));
  if (!(sd > 0)) return null;
  return mean / sd;
}

/** Fraction of [from, to] with any non-zero position, from fills in time order. */
export function exposure(fills: readonly ReportFill[], from: number, to: number): Dec {
  if (!(to > from)) return ZERO;
  const held = new Map<string, Dec>();
  let openLegs = 0;
  let openedAt = 0;
  let covered = 0;
  const clip = (t: number): number => Math.min(Math.max(t, from), to);
  for (const f of fills) {
    const key = `${f.symbol}\u0000${f.side.endsWith('long') ? 'long' : 'short'}`;
    const before = held.get(key) ?? ZERO;
    const after = isOpening(f.side) ? before.plus(f.size) : before.minus(f.size);
    held.set(key, after);
    const wasOpen = !before.eq(0);
    const isOpen = !after.eq(0);
    if (wasOpen === isOpen) continue;
    if (isOpen) {
      if (openLegs === 0) openedAt = f.createdTime;
      openLegs++;
    } else {
      openLegs--;
      if (openLegs === 0) covered += clip(f.createdTime) - clip(openedAt);
    }
  }
  if (openLegs > 0) covered += to - clip(openedAt);
  return ZERO.plus(covered).div(to - from);
}

function sortedCounts(counts: Readonly<Record<string, number>>): Record<string, number> {
  // fromEntries defines own properties, so even a key like "__proto__" stays a plain count.
  return Object.fromEntries(Object.entries(counts).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** Throws InvariantViolation when the samples' `t` ever decreases. */
export function checkTimeOrder(samples: readonly { readonly t: number }[], what: string): void {
  for (let k = 1; k < samples.length; k++) {
    if (samples[k]!.t < samples[k - 1]!.t) {
      throw new InvariantViolation(
        `${what}: sample ${k} at t=${samples[k]!.t} is before t=${samples[k - 1]!.t}`,
      );
    }
  }
}

/** Computes the summary of a run (pure; deterministic). */
export function summarize(record: RunRecord, opts: SummaryOptions = {}): Summary {
  return summarizeJoined(record, reportFills(record.fills, record.orders), opts);
}

/** summarize() for a caller that already joined the fills with reportFills(record.fills, record.orders). */
export function summarizeJoined(
  record: RunRecord,
  fills: readonly ReportFill[],
  opts: SummaryOptions = {},
): Summary {
  const intervalMs = opts.sharpeIntervalMs ?? DEFAULT_SHARPE_INTERVAL_MS;
  if (!Number.isSafeInteger(intervalMs) || intervalMs <= 0) {
    throw new InvariantViolation(`sharpeIntervalMs must be a positive integer, got ${intervalMs}`);
  }
  checkTimeOrder(record.equity, 'equity');

  let volume = ZERO;
  let feesPaid = ZERO;
  let realized = ZERO;
  let closing = 0;
  let wins = 0;
  for (const f of fills) {
    volume = volume.plus(f.value);
    feesPaid = feesPaid.plus(f.fee);
    realized = realized.plus(f.realizedPnl);
    if (!isOpening(f.side) && !f.realizedPnl.eq(0)) {
      closing++;
      if (f.realizedPnl.gt(0)) wins++;
    }
  }
  const unrealized = record.equity[record.equity.length - 1]?.unrealized ?? ZERO;
  const dd = maxDrawdown(record.equity.map((s) => s.equity));
  const sharpe = sharpeRatio(record.equity, intervalMs);

  let canceled = 0;
  let rejected = 0;
  for (const o of record.orders) {
    if (o.status === 'canceled') canceled++;
    else if (o.status === 'rejected') rejected++;
  }

  return {
    ordersPlaced: record.orders.length,
    ordersCanceled: canceled,
    ordersRejected: rejected,
    fills: fills.length,
    volume: money(volume),
    feesPaid: money(feesPaid),
    realizedPnl: money(realized),
    unrealizedPnl: money(unrealized),
    netPnl: money(realized.minus(feesPaid).plus(unrealized)),
    maxDrawdown: money(dd.amount),
    maxDrawdownFraction: dd.fraction === null ? null : decRatio(dd.fraction),
    winRate: closing === 0 ? null : decRatio(ZERO.plus(wins).div(closing)),
    sharpe: sharpe === null ? null : floatRatio(sharpe),
    sharpeAnnualized: sharpe === null ? null : floatRatio(sharpe * Math.sqrt(YEAR_MS / intervalMs)),
    sharpeIntervalMs: intervalMs,
    exposure: decRatio(exposure(fills, record.run.firstTickTime, record.run.lastTickTime)),
    requestsByEndpoint: sortedCounts(record.requestsByEndpoint),
    weightUsed: { ip: record.weightUsed.ip, uid: record.weightUsed.uid },
    rejectionsByReason: sortedCounts(record.rejectionsByReason),
    responses429: record.responses429,
    strategiesDisabled: record.strategiesDisabled.map((d) => ({
      strategy: d.strategy,
      at: d.at,
      reason: d.reason,
    })),
  };
}
