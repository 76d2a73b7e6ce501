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
// intervalSharpe  mean ÷ sample standard deviation (n − 1) of equity returns over fixed intervals of
//                 sharpeIntervalMs (default one hour), starting at the first equity sample; the equity at
//                 a grid point is the last sample at or before it; risk-free rate 0; NOT annualised.
//                 intervalSharpeAnnualized = intervalSharpe × √(intervals per 365 days). Both null with
//                 fewer than two returns, zero deviation or a non-positive equity.
// The figures users compare with Freqtrade, QuantStats and vectorbt (startingBalance … bySymbol) are
// defined in docs/report.md, each with its formula and the peer defining it the same way.
// exposure        fraction of [firstTickTime, lastTickTime] during which any position (any symbol, either
//                 hedge leg) was non-zero, from the fills' sizes and sides; 0 for an empty interval
// strategiesDisabled  the strategy instances the engine disabled (a throw or an invalid intent), with
//                 the virtual time and the reason, in time order: their figures stop there
import { ZERO, decToNumber, type Dec } from '../../core/decimal.ts';
import { InvariantViolation } from '../../core/errors.ts';
import { isOpening } from '../../core/orders.ts';
import { reportFills, type ReportFill } from './fills.ts';
import { decRatio, floatRatio, money } from './format.ts';
import { countOrders, type PlanOrderCounts } from './order-counts.ts';

export type { PlanOrderCounts } from './order-counts.ts';
import {
  DrawdownTracker,
  TradeStats,
  buyAndHold,
  cagr,
  dailySharpe,
  dailySortino,
  periodReturns,
  returnsAsNumbers,
  type PriceRange,
} from './metrics.ts';
import { buildTrades, type Trade } from './trades.ts';
import type { DisabledStrategy, EquitySample, RunRecord } from './types.ts';

export const DEFAULT_SHARPE_INTERVAL_MS = 3_600_000;
const YEAR_MS = 365 * 24 * 3_600_000;
const MAX_SHARPE_POINTS = 10_000_000;

/** Trade figures of one strategy or one symbol (money as exact decimal strings). */
export interface Breakdown {
  /** Closed trades. */
  readonly trades: number;
  readonly openTrades: number;
  readonly winRate: number | null;
  /** Σ pnl, fees and netPnl of all its trades (open ones included). */
  readonly realizedPnl: string;
  readonly fees: string;
  readonly netPnl: string;
  readonly profitFactor: number | null;
  readonly expectancy: string | null;
  readonly bestTrade: string | null;
  readonly worstTrade: string | null;
  readonly avgTradeDurationMs: number | null;
}

export interface SymbolBreakdown extends Breakdown {
  readonly buyAndHoldReturn: number | null;
}

export interface Summary {
  readonly ordersPlaced: number;
  readonly ordersCanceled: number;
  readonly ordersRejected: number;
  /** Plan (trigger) orders among the orders: how many were placed, triggered, canceled, rejected. */
  readonly planOrders: PlanOrderCounts;
  readonly fills: number;
  readonly volume: string;
  readonly feesPaid: string;
  readonly realizedPnl: string;
  readonly unrealizedPnl: string;
  readonly netPnl: string;
  readonly maxDrawdown: string;
  readonly maxDrawdownFraction: number | null;
  readonly winRate: number | null;
  readonly intervalSharpe: number | null;
  readonly intervalSharpeAnnualized: number | null;
  readonly sharpeIntervalMs: number;
  readonly exposure: number;
  readonly startingBalance: string | null;
  readonly finalEquity: string | null;
  readonly totalReturn: number | null;
  readonly cagr: number | null;
  readonly buyAndHoldReturn: number | null;
  readonly dailyReturns: number;
  readonly sharpe: number | null;
  readonly sortino: number | null;
  readonly calmar: number | null;
  readonly trades: number;
  readonly openTrades: number;
  readonly tradeWinRate: number | null;
  readonly profitFactor: number | null;
  readonly expectancy: string | null;
  readonly avgTradeDurationMs: number | null;
  readonly bestTrade: string | null;
  readonly worstTrade: string | null;
  readonly maxDrawdownStart: number | null;
  readonly maxDrawdownEnd: number | null;
  readonly maxDrawdownDurationMs: number | null;
  readonly requestsByEndpoint: Readonly<Record<string, number>>;
  readonly weightUsed: { readonly ip: number; readonly uid: number };
  readonly rejectionsByReason: Readonly<Record<string, number>>;
  readonly responses429: number;
  readonly strategiesDisabled: readonly DisabledStrategy[];
  readonly byStrategy: Readonly<Record<string, Breakdown>>;
  readonly bySymbol: Readonly<Record<string, SymbolBreakdown>>;
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

/** Key of trades whose opening fill matched no order, in byStrategy. */
export const NO_STRATEGY = '(none)';

const byKeyOrder = <T>(m: Map<string, T>): [string, T][] =>
  [...m.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

const optMoney = (d: Dec | null): string | null => (d === null ? null : money(d));
const optRatio = (d: Dec | null): number | null => (d === null ? null : decRatio(d));

function breakdown(st: TradeStats): Breakdown {
  return {
    trades: st.closed,
    openTrades: st.open,
    winRate: optRatio(st.winRate()),
    realizedPnl: money(st.pnl),
    fees: money(st.fees),
    netPnl: money(st.net),
    profitFactor: optRatio(st.profitFactor()),
    expectancy: optMoney(st.expectancy()),
    bestTrade: optMoney(st.best),
    worstTrade: optMoney(st.worst),
    avgTradeDurationMs: st.avgDurationMs(),
  };
}

/**
 * The symbols the run is about: run.symbols when the record names them, else those with fills, else
 * every symbol with prices (sorted).
 */
export function runSymbols(record: RunRecord, fills: readonly ReportFill[]): string[] {
  if (record.run.symbols !== undefined) return [...new Set(record.run.symbols)].sort();
  const traded = new Set(fills.map((f) => f.symbol));
  const list = traded.size > 0 ? [...traded] : Object.keys(record.prices);
  return list.sort();
}

/** First and last price of `symbol`: record.priceRanges, else its first and last sampled price. */
export function priceRange(record: RunRecord, symbol: string): PriceRange | undefined {
  if (record.priceRanges !== undefined && Object.hasOwn(record.priceRanges, symbol)) {
    return record.priceRanges[symbol];
  }
  const points = Object.hasOwn(record.prices, symbol) ? record.prices[symbol] : undefined;
  const first = points?.[0];
  const last = points?.[points.length - 1];
  return first === undefined || last === undefined ? undefined : { first: first.last, last: last.last };
}

/** The starting balance: record.startingBalance, else the last equity sample minus the net PnL. */
export function startingBalance(record: RunRecord, netPnl: Dec): Dec | null {
  if (record.startingBalance !== undefined) return record.startingBalance;
  const last = record.equity[record.equity.length - 1];
  return last === undefined ? null : last.equity.minus(netPnl);
}

/** Computes the summary of a run (pure; deterministic). */
export function summarize(record: RunRecord, opts: SummaryOptions = {}): Summary {
  const fills = reportFills(record.fills, record.orders);
  return summarizeJoined(record, fills, buildTrades(fills, record.run.lastTickTime), opts);
}

/**
 * summarize() for a caller that already joined the fills with reportFills(record.fills, record.orders)
 * and built the trades with buildTrades(fills, record.run.lastTickTime).
 */
export function summarizeJoined(
  record: RunRecord,
  fills: readonly ReportFill[],
  trades: readonly Trade[],
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
  const netPnl = realized.minus(feesPaid).plus(unrealized);
  const dd = maxDrawdown(record.equity.map((s) => s.equity));
  const sharpe = sharpeRatio(record.equity, intervalMs);

  const tracker = new DrawdownTracker();
  for (const s of record.equity) tracker.add(s.t, s.equity);
  const episode = tracker.episode();

  const all = new TradeStats();
  const perStrategy = new Map<string, TradeStats>();
  const perSymbol = new Map<string, TradeStats>();
  const symbols = runSymbols(record, fills);
  for (const sym of symbols) perSymbol.set(sym, new TradeStats());
  for (const t of trades) {
    all.add(t);
    const sk = t.strategy ?? NO_STRATEGY;
    let st = perStrategy.get(sk);
    if (st === undefined) perStrategy.set(sk, (st = new TradeStats()));
    st.add(t);
    let sy = perSymbol.get(t.symbol);
    if (sy === undefined) perSymbol.set(t.symbol, (sy = new TradeStats()));
    sy.add(t);
  }
  for (const s of record.run.strategies) if (!perStrategy.has(s.id)) perStrategy.set(s.id, new TradeStats());

  const start = startingBalance(record, netPnl);
  const final = record.equity[record.equity.length - 1]?.equity ?? null;
  const totalReturn = start !== null && final !== null && start.gt(0) ? final.div(start).minus(1) : null;
  const growth =
    start !== null && final !== null
      ? cagr(start, final, record.run.lastTickTime - record.run.firstTickTime)
      : null;
  const ranges = new Map<string, PriceRange>();
  for (const sym of symbols) {
    const r = priceRange(record, sym);
    if (r !== undefined) ranges.set(sym, r);
  }
  const bh = buyAndHold([...ranges.values()]);
  const daily = start === null ? [] : returnsAsNumbers(periodReturns(record.equity, start, 'day'));
  const sharpeDaily = dailySharpe(daily);
  const sortino = dailySortino(daily);
  const calmar =
    growth !== null && dd.fraction !== null && dd.fraction.gt(0) ? growth / decToNumber(dd.fraction) : null;

  const counts = record.orderCounts ?? countOrders(record.orders);
  return {
    ordersPlaced: counts.placed,
    ordersCanceled: counts.canceled,
    ordersRejected: counts.rejected,
    planOrders: counts.plans,
    fills: fills.length,
    volume: money(volume),
    feesPaid: money(feesPaid),
    realizedPnl: money(realized),
    unrealizedPnl: money(unrealized),
    netPnl: money(netPnl),
    maxDrawdown: money(dd.amount),
    maxDrawdownFraction: dd.fraction === null ? null : decRatio(dd.fraction),
    winRate: closing === 0 ? null : decRatio(ZERO.plus(wins).div(closing)),
    intervalSharpe: sharpe === null ? null : floatRatio(sharpe),
    intervalSharpeAnnualized: sharpe === null ? null : floatRatio(sharpe * Math.sqrt(YEAR_MS / intervalMs)),
    sharpeIntervalMs: intervalMs,
    exposure: decRatio(exposure(fills, record.run.firstTickTime, record.run.lastTickTime)),
    startingBalance: optMoney(start),
    finalEquity: optMoney(final),
    totalReturn: optRatio(totalReturn),
    cagr: growth === null ? null : floatRatio(growth),
    buyAndHoldReturn: optRatio(bh),
    dailyReturns: daily.length,
    sharpe: sharpeDaily === null ? null : floatRatio(sharpeDaily),
    sortino: sortino === null ? null : floatRatio(sortino),
    calmar: calmar === null ? null : floatRatio(calmar),
    trades: all.closed,
    openTrades: all.open,
    tradeWinRate: optRatio(all.winRate()),
    profitFactor: optRatio(all.profitFactor()),
    expectancy: optMoney(all.expectancy()),
    avgTradeDurationMs: all.avgDurationMs(),
    bestTrade: optMoney(all.best),
    worstTrade: optMoney(all.worst),
    maxDrawdownStart: episode.start,
    maxDrawdownEnd: episode.end,
    maxDrawdownDurationMs: episode.durationMs,
    requestsByEndpoint: sortedCounts(record.requestsByEndpoint),
    weightUsed: { ip: record.weightUsed.ip, uid: record.weightUsed.uid },
    rejectionsByReason: sortedCounts(record.rejectionsByReason),
    responses429: record.responses429,
    strategiesDisabled: record.strategiesDisabled.map((d) => ({
      strategy: d.strategy,
      at: d.at,
      reason: d.reason,
    })),
    byStrategy: Object.fromEntries(byKeyOrder(perStrategy).map(([k, st]) => [k, breakdown(st)])),
    bySymbol: Object.fromEntries(
      byKeyOrder(perSymbol).map(([k, st]) => {
        const r = ranges.get(k);
        return [
          k,
          { ...breakdown(st), buyAndHoldReturn: r === undefined ? null : optRatio(buyAndHold([r])) },
        ];
      }),
    ),
  };
}
