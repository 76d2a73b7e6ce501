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
import { countOrders, type OrderCounts, type PlanOrderCounts } from './order-counts.ts';
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
import {
  ExposureTracker,
  checkTimeOrder,
  maxDrawdown,
  priceRange,
  runSymbolsOf,
  sharpeRatio,
  startingBalance,
} from './run-figures.ts';
import { buildTrades, type Trade } from './trades.ts';
import type { DisabledStrategy, RunFacts, RunRecord } from './types.ts';

export type { PlanOrderCounts } from './order-counts.ts';
export type { Drawdown } from './run-figures.ts';
export {
  checkTimeOrder,
  exposure,
  maxDrawdown,
  priceRange,
  runSymbols,
  runSymbolsOf,
  sharpeRatio,
  startingBalance,
} from './run-figures.ts';

export const DEFAULT_SHARPE_INTERVAL_MS = 3_600_000;
const YEAR_MS = 365 * 24 * 3_600_000;

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

function sortedCounts(counts: Readonly<Record<string, number>>): Record<string, number> {
  // fromEntries defines own properties, so even a key like "__proto__" stays a plain count.
  return Object.fromEntries(Object.entries(counts).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
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
 * The summary computed as the run's fills and trades pass, one at a time: fills in time order (the
 * report's order), then every trade (any order: the trade figures are sums, counts and extremes).
 * `finish` adds what the bounded parts of the record say (equity samples, prices, counts). Memory
 * stays flat in the fills and trades: a few values per strategy and symbol.
 */
export class SummaryBuilder {
  #fills = 0;
  #volume = ZERO;
  #feesPaid = ZERO;
  #realized = ZERO;
  #closing = 0;
  #wins = 0;
  readonly #exposure: ExposureTracker;
  /** Symbols with a fill (runSymbolsOf). */
  readonly traded = new Set<string>();
  readonly #all = new TradeStats();
  readonly #perStrategy = new Map<string, TradeStats>();
  readonly #perSymbol = new Map<string, TradeStats>();

  readonly facts: RunFacts;

  constructor(facts: RunFacts) {
    this.facts = facts;
    this.#exposure = new ExposureTracker(facts.run.firstTickTime, facts.run.lastTickTime);
  }

  /** The next fill, in time order. */
  addFill(f: ReportFill): void {
    this.#fills++;
    this.#volume = this.#volume.plus(f.value);
    this.#feesPaid = this.#feesPaid.plus(f.fee);
    this.#realized = this.#realized.plus(f.realizedPnl);
    if (!isOpening(f.side) && !f.realizedPnl.eq(0)) {
      this.#closing++;
      if (f.realizedPnl.gt(0)) this.#wins++;
    }
    this.#exposure.add(f);
    this.traded.add(f.symbol);
  }

  addTrade(t: Trade): void {
    this.#all.add(t);
    const sk = t.strategy ?? NO_STRATEGY;
    let st = this.#perStrategy.get(sk);
    if (st === undefined) this.#perStrategy.set(sk, (st = new TradeStats()));
    st.add(t);
    let sy = this.#perSymbol.get(t.symbol);
    if (sy === undefined) this.#perSymbol.set(t.symbol, (sy = new TradeStats()));
    sy.add(t);
  }

  /** The symbols the run is about (runSymbolsOf), once every fill was added. */
  symbols(): string[] {
    return runSymbolsOf(this.facts, this.traded);
  }

  finish(counts: OrderCounts, opts: SummaryOptions = {}): Summary {
    const record = this.facts;
    const intervalMs = opts.sharpeIntervalMs ?? DEFAULT_SHARPE_INTERVAL_MS;
    if (!Number.isSafeInteger(intervalMs) || intervalMs <= 0) {
      throw new InvariantViolation(`sharpeIntervalMs must be a positive integer, got ${intervalMs}`);
    }
    checkTimeOrder(record.equity, 'equity');
    const unrealized = record.equity[record.equity.length - 1]?.unrealized ?? ZERO;
    const netPnl = this.#realized.minus(this.#feesPaid).plus(unrealized);
    const dd = maxDrawdown(record.equity.map((s) => s.equity));
    const sharpe = sharpeRatio(record.equity, intervalMs);

    const tracker = new DrawdownTracker();
    for (const s of record.equity) tracker.add(s.t, s.equity);
    const episode = tracker.episode();

    const all = this.#all;
    const perStrategy = new Map(this.#perStrategy);
    const perSymbol = new Map(this.#perSymbol);
    const symbols = this.symbols();
    for (const sym of symbols) if (!perSymbol.has(sym)) perSymbol.set(sym, new TradeStats());
    for (const s of record.run.strategies)
      if (!perStrategy.has(s.id)) perStrategy.set(s.id, new TradeStats());

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

    return {
      ordersPlaced: counts.placed,
      ordersCanceled: counts.canceled,
      ordersRejected: counts.rejected,
      planOrders: counts.plans,
      fills: this.#fills,
      volume: money(this.#volume),
      feesPaid: money(this.#feesPaid),
      realizedPnl: money(this.#realized),
      unrealizedPnl: money(unrealized),
      netPnl: money(netPnl),
      maxDrawdown: money(dd.amount),
      maxDrawdownFraction: dd.fraction === null ? null : decRatio(dd.fraction),
      winRate: this.#closing === 0 ? null : decRatio(ZERO.plus(this.#wins).div(this.#closing)),
      intervalSharpe: sharpe === null ? null : floatRatio(sharpe),
      intervalSharpeAnnualized: sharpe === null ? null : floatRatio(sharpe * Math.sqrt(YEAR_MS / intervalMs)),
      sharpeIntervalMs: intervalMs,
      exposure: decRatio(this.#exposure.value()),
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
}

/** Computes the summary of a run (pure; deterministic): what the report writer computes as it goes. */
export function summarize(record: RunRecord, opts: SummaryOptions = {}): Summary {
  const fills = reportFills(record.fills, record.orders);
  const b = new SummaryBuilder(record);
  for (const f of fills) b.addFill(f);
  for (const t of buildTrades(fills, record.run.lastTickTime)) b.addTrade(t);
  return b.finish(record.orderCounts ?? countOrders(record.orders), opts);
}
